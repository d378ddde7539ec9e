// The OpenAPI 3.1 document of /api/v1 (ADR 0017), served at /api/v1/openapi.json. Request
// bodies and parameters are the zod schemas the services validate with (server/schemas.ts);
// responses are described here and checked against real responses by every test that calls
// the API (tests/setup/validate-api-responses.ts).
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  addToCollectionSchema,
  changePasswordSchema,
  collectionChangeSchema,
  newCollectionSchema,
  loginSchema,
  MAX_DOWNLOADS_LIMIT,
  newApiTokenSchema,
  shareSettingsFields,
} from '../../schemas';
import { fileListPageSchema } from '../../services/files';
import { accountPreferencesSchema } from '../../services/users';
import { newWebhookSchema, WEBHOOK_EVENTS } from '../../services/webhooks';

const isoDate = z.string().datetime({ offset: true });
const json = <T extends z.ZodTypeAny>(schema: T) => ({ 'application/json': { schema } });

const ErrorBody = z.object({ error: z.string().openapi({ example: 'Unauthorized' }) }).openapi('Error');
const Ok = z.object({ ok: z.literal(true) });

const User = z.object({ id: z.string(), username: z.string() }).openapi('User');

const FileListView = accountPreferencesSchema.shape.fileListView.openapi({
  description: 'How My files shows your files: a table (the default) or a gallery of cards.',
});

const File = z
  .object({
    id: z.string().openapi({ example: 'Xk3v9Qm2Lp' }),
    userId: z.string(),
    originalName: z.string().openapi({ example: 'holiday.jpg' }),
    mimeType: z.string().openapi({ example: 'image/jpeg' }),
    size: z.number().int().nonnegative(),
    storedName: z.string(),
    createdAt: isoDate,
    expiresAt: isoDate.nullable().openapi({ description: 'When the share link stops working; null: never.' }),
    maxDownloads: z
      .number()
      .int()
      .min(1)
      .max(MAX_DOWNLOADS_LIMIT)
      .nullable()
      .openapi({ description: 'null: no limit.' }),
    downloads: z.number().int().nonnegative().openapi({ description: 'Downloads started by others than the owner.' }),
    views: z.number().int().nonnegative().openapi({
      description:
        'Views of the share page by others than the owner, apart from downloads: the page’s own preview is not a download.',
    }),
    hasPassword: z.boolean(),
  })
  .strict()
  .openapi('File');

// Written out with the File's fields (not `extend`, which the document would give as an allOf
// that no object can match while each part forbids the other's fields).
const ListedFile = z
  .object({
    ...File.shape,
    request: z.object({ id: z.string(), title: z.string() }).strict().nullable().openapi({
      description:
        'The file request a guest sent it through; null for your own uploads, or once the request is deleted.',
    }),
    receivedFrom: z
      .object({
        name: z.string().nullable().openapi({ description: 'The name the guest left, as text; null: none.' }),
        note: z.string().nullable().openapi({ description: 'The note the guest left, as text; null: none.' }),
      })
      .strict()
      .nullable()
      .openapi({
        description:
          'What the guest who sent it left; null when they left neither a name nor a note, or for your own uploads.',
      }),
  })
  .strict()
  .openapi('ListedFile');

const FileCreated = z
  .object({ file: File, url: z.string().url().openapi({ description: 'The public share link' }) })
  .openapi('FileCreated');

const ApiToken = z
  .object({
    id: z.string(),
    name: z.string(),
    start: z
      .string()
      .openapi({ description: 'The first characters of the token, to tell tokens apart.', example: 'fsk_Ab3dE9' }),
    createdAt: isoDate,
    lastUsedAt: isoDate.nullable(),
    expiresAt: isoDate.nullable(),
  })
  .strict()
  .openapi('ApiToken');

const Session = z
  .object({
    id: z.string(),
    createdAt: isoDate,
    lastSeenAt: isoDate,
    expiresAt: isoDate,
    browser: z.string().openapi({ example: 'Firefox 133 on Linux' }),
    address: z.string().nullable(),
    current: z.boolean().openapi({ description: 'The session this request came with.' }),
    signInMethod: z.enum(['password', 'oidc']).nullable().openapi({
      description:
        'How the session began: a password (with its two-factor code, if any) or the OpenID Connect provider; null for sessions from before this was recorded.',
    }),
    signedInVia: z.string().nullable().openapi({
      description:
        'For a session begun at the provider: its name (OIDC_DISPLAY_NAME), shown as "via Acme"; otherwise null.',
      example: 'Acme',
    }),
  })
  .strict()
  .openapi('Session');

/** The body of PATCH /files/{id}: a new name, share settings, or both. */
const fileChange = shareSettingsFields
  .extend({
    originalName: z
      .string()
      .optional()
      .openapi({ description: 'The file’s new name.', example: 'holiday in Rome.jpg' }),
  })
  .openapi('FileChange');

const idParam = (what: string) => z.object({ id: z.string().openapi({ description: `The ${what}'s id` }) });

const upload = shareSettingsFields
  .extend({
    file: z.string().openapi({
      format: 'binary',
      description: 'The file: the first file part is stored; settings must come before it.',
    }),
  })
  .partial({ expiresAt: true, expiresIn: true, maxDownloads: true, password: true })
  .openapi({ required: ['file'] });

const collectionUpload = shareSettingsFields
  .extend({
    title: z.string().openapi({ description: 'The collection’s title; "N files" when left out.' }),
    path: z.string().openapi({
      description: 'Sent just before a file part: that file’s path in the collection (its name when left out).',
    }),
    file: z.array(z.string().openapi({ format: 'binary' })).openapi({
      description:
        'The files, in order (any field name): every file part is stored, each with the share settings sent. The title and share settings come before the first.',
    }),
  })
  .partial({ expiresAt: true, expiresIn: true, maxDownloads: true, password: true, title: true, path: true })
  .openapi({ required: ['file'] });
type Responses = RouteConfig['responses'];
const errors = (...statuses: number[]): Responses =>
  Object.fromEntries([
    ...statuses.map((status) => [
      status,
      { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: json(ErrorBody) },
    ]),
    [
      'default',
      {
        description: 'Any other error, e.g. 503 with Retry-After when the database or the storage cannot be reached',
        content: json(ErrorBody),
      },
    ],
  ]);
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The input is not valid: the message names the problem',
  401: 'Not logged in, or an invalid or expired token',
  403: 'Not allowed: another user’s file, an API token where a session is needed, a cross-site request, or a disabled account',
  404: 'Not found (another user’s token or session looks the same)',
  409: 'Upload-Offset is not where the upload stands',
  410: 'The share link has expired or used up its downloads, or the upload has expired',
  412: 'Tus-Resumable is missing or not 1.0.0 (Tus-Version names the versions the server speaks); nothing was done',
  413: 'The upload is larger than the server allows, or would pass your storage quota',
  415: 'The PATCH’s Content-Type is not application/offset+octet-stream',
  423: 'Another request is writing to this upload: retry shortly',
  429: 'Too many failed attempts: see Retry-After',
};

const CollectionSummary = z
  .object({
    id: z.string(),
    userId: z.string(),
    title: z.string().openapi({ example: 'Holiday photos' }),
    url: z.string().url().openapi({ description: 'The public link, /c/<id>' }),
    createdAt: isoDate,
    expiresAt: isoDate.nullable().openapi({ description: 'When the link stops working; null: never.' }),
    maxDownloads: z
      .number()
      .int()
      .min(1)
      .max(MAX_DOWNLOADS_LIMIT)
      .nullable()
      .openapi({ description: '"Download all" archives allowed in all; null: no limit.' }),
    downloads: z.number().int().nonnegative().openapi({ description: 'Archives started by others than the owner.' }),
    hasPassword: z.boolean(),
    fileCount: z.number().int().nonnegative(),
    totalSize: z.number().int().nonnegative().openapi({ description: 'The sum of its files’ sizes, in bytes.' }),
  })
  .strict();
const Collection = CollectionSummary.extend({
  files: z.array(
    z
      .object({
        path: z.string().openapi({ description: 'Where the file sits in the collection and its archive.' }),
        file: File,
      })
      .strict(),
  ),
})
  .strict()
  .openapi('Collection');

/** Who may call a route: a session cookie, or also an API token. */
const SESSION_ONLY: Record<string, string[]>[] = [{ cookieAuth: [] }];
const SESSION_OR_TOKEN: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];

function describeCollections(registry: OpenAPIRegistry): void {
  const one = json(z.object({ collection: Collection }));
  registry.registerPath({
    method: 'get',
    path: '/collections',
    tags: ['Collections'],
    summary: 'Your collections, newest first (without their files)',
    security: SESSION_OR_TOKEN,
    responses: {
      200: { description: 'Your collections', content: json(z.object({ collections: z.array(CollectionSummary) })) },
      ...errors(401, 403),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/collections',
    tags: ['Collections'],
    summary: 'Make a collection: of files you have uploaded (JSON), or of the files of a multipart body, each stored',
    security: SESSION_OR_TOKEN,
    request: {
      body: {
        content: {
          ...json(newCollectionSchema),
          'multipart/form-data': { schema: collectionUpload },
        },
      },
    },
    responses: {
      201: { description: 'Made; Location is its public link', content: one },
      ...errors(400, 401, 403),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/collections/{id}',
    tags: ['Collections'],
    summary: 'One of your collections, with its files in order',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('collection') },
    responses: { 200: { description: 'The collection', content: one }, ...errors(401, 403, 404) },
  });
  registry.registerPath({
    method: 'patch',
    path: '/collections/{id}',
    tags: ['Collections'],
    summary:
      'Change a collection: its title, its share settings (null clears one), and with `files` which files it holds, in that order',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('collection'), body: { content: json(collectionChangeSchema) } },
    responses: {
      200: { description: 'The collection as it is now', content: one },
      ...errors(400, 401, 403, 404, 410),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/collections/{id}',
    tags: ['Collections'],
    summary: 'Delete a collection; with deleteFiles=true its files too (otherwise they stay, with their own links)',
    security: SESSION_OR_TOKEN,
    request: {
      params: idParam('collection'),
      query: z.object({ deleteFiles: z.enum(['true', 'false']).optional() }),
    },
    responses: {
      200: {
        description: 'Deleted',
        content: json(z.object({ ok: z.literal(true), filesDeleted: z.number().int().nonnegative() })),
      },
      ...errors(400, 401, 403, 404),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/collections/{id}/files',
    tags: ['Collections'],
    summary: 'Add files of yours at the end of a collection',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('collection'), body: { content: json(addToCollectionSchema) } },
    responses: {
      200: { description: 'The collection as it is now', content: one },
      ...errors(400, 401, 403, 404, 409),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/collections/{id}/files/{fileId}',
    tags: ['Collections'],
    summary: 'Take a file out of a collection (the file stays)',
    security: SESSION_OR_TOKEN,
    request: {
      params: idParam('collection').extend({ fileId: z.string().openapi({ description: "The file's id" }) }),
    },
    responses: { 200: { description: 'The collection as it is now', content: one }, ...errors(401, 403, 404) },
  });
}

// Two-factor codes (ADR 0043): the login's optional `code`, and the routes that set them up.
const twoFactorCode = z.string().max(64).openapi({
  description:
    'A 6-digit code from the authenticator app (this, the previous or the next 30-second step), or a recovery code.',
  example: '123456',
});
const loginWithCodeSchema = loginSchema.extend({
  code: twoFactorCode.optional().openapi({
    description: 'Needed when the user has two-factor codes on: a current code or an unused recovery code.',
  }),
});
const codeBody = { body: { content: json(z.object({ code: twoFactorCode })) } };
const TwoFactorStatus = z
  .object({ enabled: z.boolean(), recoveryCodesLeft: z.number().int().nonnegative() })
  .strict()
  .openapi('TwoFactorStatus');

function describeTwoFactor(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/me/2fa',
    tags: ['Account'],
    summary: 'Whether your logins need a two-factor code, and how many recovery codes are left',
    security: SESSION_ONLY,
    responses: { 200: { description: 'The state', content: json(TwoFactorStatus) }, ...errors(401, 403) },
  });
  registry.registerPath({
    method: 'post',
    path: '/me/2fa',
    tags: ['Account'],
    summary: 'Begin setting up two-factor codes: a new secret for your authenticator app (confirm it next)',
    security: SESSION_ONLY,
    responses: {
      200: {
        description: 'The secret, base32, and the otpauth:// URI a QR code carries',
        content: json(z.object({ secret: z.string(), otpauthUri: z.string() }).strict()),
      },
      ...errors(401, 403, 409),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/me/2fa/confirm',
    tags: ['Account'],
    summary:
      'Turn two-factor codes on with a first code from the secret begun: the ten recovery codes, shown this once',
    security: SESSION_ONLY,
    request: codeBody,
    responses: {
      200: {
        description: 'On; keep the recovery codes somewhere safe',
        content: json(z.object({ recoveryCodes: z.array(z.string()).length(10) }).strict()),
      },
      ...errors(400, 401, 403, 409),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/me/2fa',
    tags: ['Account'],
    summary: 'Turn two-factor codes off with a current code or a recovery code (wrong ones are throttled like logins)',
    security: SESSION_ONLY,
    request: codeBody,
    responses: { 200: { description: 'Off', content: json(Ok) }, ...errors(400, 401, 403, 409, 429) },
  });
}

function describeApi(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'A personal access token (fsk_…) made on the settings page, with POST /tokens, or with `npm run tokens`.',
  });
  registry.registerComponent('securitySchemes', 'cookieAuth', {
    type: 'apiKey',
    in: 'cookie',
    name: 'token',
    description: 'The session cookie set by POST /auth/login.',
  });

  registry.registerPath({
    method: 'post',
    path: '/auth/login',
    tags: ['Session'],
    summary: 'Log in: sets the session cookie',
    security: [],
    request: {
      body: {
        content: {
          ...json(loginWithCodeSchema),
          'application/x-www-form-urlencoded': { schema: loginWithCodeSchema },
        },
      },
    },
    responses: {
      200: {
        description:
          "Logged in; Set-Cookie carries the session. `wrongCodes` is there when wrong two-factor codes locked the account's code step since its last sign-in (told once, ADR 0058)",
        content: json(
          z.object({
            user: User,
            wrongCodes: z
              .object({
                count: z
                  .number()
                  .int()
                  .positive()
                  .openapi({ description: 'Wrong codes that locked the code step, all lock-outs added up' }),
                lastAt: isoDate.openapi({ description: 'When the last lock-out began' }),
              })
              .optional(),
          }),
        ),
      },
      ...errors(400, 429),
      403: {
        description:
          'The account is disabled; or logging in with a password is turned off (PASSWORD_LOGIN=off: sign in on the login page with the provider; API tokens still work)',
        content: json(ErrorBody),
      },
      401: {
        description:
          'Wrong username or password; or, with two-factor codes on, a code missing or wrong (then `twoFactorRequired` is true)',
        content: json(ErrorBody.extend({ twoFactorRequired: z.literal(true).optional() })),
      },
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/auth/logout',
    tags: ['Session'],
    summary: 'Log out: revokes this session and clears the cookie (always succeeds)',
    security: [],
    responses: { 200: { description: 'Logged out', content: json(Ok) }, ...errors() },
  });

  registry.registerPath({
    method: 'get',
    path: '/files',
    tags: ['Files'],
    summary: 'List your files, newest first or in another order, narrowed by name and type',
    description:
      'Without `limit` and `cursor`: every file. With them: one page and the cursor of the next (null at the end). ' +
      '`q`, `type` and `sort` apply to both; pass the same ones with each cursor (a cursor of another `sort` is a 400). ' +
      'Types: images, video, audio (by MIME type), documents (text, PDF, office formats), code (source, scripts, markup, ' +
      'JSON, YAML), other (the rest). Each file also names the file request a guest sent it through, and what the guest left.',
    security: SESSION_OR_TOKEN,
    request: { query: fileListPageSchema.partial() },
    responses: {
      200: {
        description: 'Your files',
        content: json(z.object({ files: z.array(ListedFile), nextCursor: z.string().nullable().optional() })),
      },
      ...errors(400, 401),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/files',
    tags: ['Files'],
    summary: 'Upload a file (multipart/form-data, streamed)',
    security: SESSION_OR_TOKEN,
    request: { body: { content: { 'multipart/form-data': { schema: upload } } } },
    responses: {
      201: { description: 'Stored; `url` is the public share link', content: json(FileCreated) },
      ...errors(400, 401, 413),
    },
  });
  describeResumableUploads(registry);
  registry.registerPath({
    method: 'get',
    path: '/files/{id}',
    tags: ['Files'],
    summary: 'One of your files, with its views and downloads so far',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('file') },
    responses: {
      200: { description: 'The file as it is now', content: json(z.object({ file: File })) },
      ...errors(401, 403, 404),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/files/{id}',
    tags: ['Files'],
    summary: 'Rename a file or change its share settings (a key left out stays as it is; null clears a setting)',
    description:
      '`originalName` renames the file: the name its page, the list and its downloads show. Its content and link stay ' +
      'the same. The name is cleaned as an upload’s is (control characters dropped, trimmed, shortened past 255 ' +
      'characters keeping its extension); one that is not a string or is left empty is a 400, and nothing changes.',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('file'), body: { content: json(fileChange) } },
    responses: {
      200: { description: 'The file as it is now', content: json(z.object({ file: File })) },
      ...errors(400, 401, 403, 404, 410),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/files/{id}',
    tags: ['Files'],
    summary: 'Delete a file and its content',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('file') },
    responses: { 200: { description: 'Deleted', content: json(Ok) }, ...errors(401, 403, 404) },
  });
  describeCollections(registry);

  registry.registerPath({
    method: 'get',
    path: '/tokens',
    tags: ['API tokens'],
    summary: 'List your API tokens (never the tokens themselves)',
    security: SESSION_ONLY,
    responses: {
      200: { description: 'Your tokens, newest first', content: json(z.object({ tokens: z.array(ApiToken) })) },
      ...errors(401, 403),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/tokens',
    tags: ['API tokens'],
    summary: 'Create an API token: the response is the only time it is shown',
    security: SESSION_ONLY,
    request: { body: { content: json(newApiTokenSchema) } },
    responses: {
      201: {
        description: 'Created',
        content: json(z.object({ token: z.string().regex(/^fsk_/), apiToken: ApiToken })),
      },
      ...errors(400, 401, 403),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/tokens/{id}',
    tags: ['API tokens'],
    summary: 'Revoke an API token: it stops working at once',
    security: SESSION_ONLY,
    request: { params: idParam('token') },
    responses: { 200: { description: 'Revoked', content: json(Ok) }, ...errors(401, 403, 404) },
  });

  registry.registerPath({
    method: 'get',
    path: '/me',
    tags: ['Account'],
    summary: 'Who you are, the space your files use, what unfinished uploads hold, and your quota',
    security: SESSION_OR_TOKEN,
    responses: {
      200: {
        description: 'You and your storage',
        content: json(
          z.object({
            user: User,
            usage: z
              .object({
                bytes: z.number().int().nonnegative().openapi({ description: 'What your files take.' }),
                files: z.number().int().nonnegative(),
                heldBytes: z.number().int().nonnegative().openapi({
                  description:
                    'Held against your quota by unfinished uploads (multipart ones under way; resumable ones, their whole Upload-Length) until they finish or are cancelled.',
                }),
                unfinishedUploads: z
                  .number()
                  .int()
                  .nonnegative()
                  .openapi({ description: 'How many uploads hold `heldBytes`.' }),
              })
              .strict(),
            quota: z
              .number()
              .int()
              .nonnegative()
              .nullable()
              .openapi({ description: 'Bytes you may fill; null: unlimited.' }),
            fileListView: FileListView,
          }),
        ),
      },
      ...errors(401),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/me',
    tags: ['Account'],
    summary: 'Change your preferences: how My files shows your files (kept across logins)',
    security: SESSION_OR_TOKEN,
    request: { body: { content: json(accountPreferencesSchema) } },
    responses: {
      200: { description: 'Stored', content: json(z.object({ fileListView: FileListView }).strict()) },
      ...errors(400, 401, 403),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/me/password',
    tags: ['Account'],
    summary: 'Change your password: every other session is logged out (API tokens stay)',
    security: SESSION_ONLY,
    request: { body: { content: json(changePasswordSchema) } },
    responses: {
      200: {
        description: 'Changed',
        content: json(z.object({ ok: z.literal(true), otherSessionsRevoked: z.number().int().nonnegative() })),
      },
      ...errors(400, 401, 403, 429),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/sessions',
    tags: ['Account'],
    summary: 'Your live sessions, most recently seen first',
    security: SESSION_ONLY,
    responses: {
      200: { description: 'Your sessions', content: json(z.object({ sessions: z.array(Session) })) },
      ...errors(401, 403),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/sessions/{id}',
    tags: ['Account'],
    summary: 'Log one session out (this one too: then the cookie is cleared)',
    security: SESSION_ONLY,
    request: { params: idParam('session') },
    responses: { 200: { description: 'Logged out', content: json(Ok) }, ...errors(401, 403, 404) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/sessions',
    tags: ['Account'],
    summary: 'Log out everywhere: every session of yours, this one included',
    security: SESSION_ONLY,
    responses: {
      200: {
        description: 'Logged out everywhere',
        content: json(z.object({ ok: z.literal(true), revoked: z.number().int().nonnegative() })),
      },
      ...errors(401, 403),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    tags: ['Meta'],
    summary: 'This document',
    security: [],
    responses: {
      200: { description: 'The OpenAPI 3.1 document', content: json(z.object({ openapi: z.string() }).passthrough()) },
    },
  });
}

/** tus 1.0 (https://tus.io/protocols/resumable-upload): the headers carry the protocol; bodies are bytes. */
function describeResumableUploads(registry: OpenAPIRegistry): void {
  const tusResumable = z
    .literal('1.0.0')
    .openapi({ description: 'The protocol version, on every request but OPTIONS.' });
  const uploadOffset = z.string().regex(/^\d+$/).openapi({ description: 'Where the upload stands, in bytes.' });
  const bytes = { 'application/offset+octet-stream': { schema: z.string().openapi({ format: 'binary' }) } };
  // The request that brings the last byte answers the file; the others have no body.
  const fileOrNothing = {
    ...json(FileCreated),
    'text/plain': { schema: z.string().max(0).openapi({ description: 'Empty: the upload is not complete yet.' }) },
  };
  const uploadId = idParam('upload');
  registry.registerPath({
    method: 'options',
    path: '/uploads',
    tags: ['Resumable uploads'],
    summary: 'What the tus server supports: Tus-Version, Tus-Extension, Tus-Max-Size',
    security: [],
    responses: { 204: { description: 'The capabilities, in headers' } },
  });
  registry.registerPath({
    method: 'post',
    path: '/uploads',
    tags: ['Resumable uploads'],
    summary: 'Start a resumable upload (tus creation; creation-with-upload when bytes come along)',
    description:
      'Upload-Metadata carries `filename` and `filetype` (cleaned as for a multipart upload) and optionally the share settings ' +
      '`expiresAt`, `expiresIn`, `maxDownloads`, `password`. The whole Upload-Length counts against your quota until the upload ' +
      'finishes or expires (24 hours after it began). Location is the upload’s address. Upload-Length is required: ' +
      'Upload-Defer-Length (creation-defer-length) is not supported, and is a 400.',
    security: SESSION_OR_TOKEN,
    request: {
      headers: z.object({
        'Tus-Resumable': tusResumable,
        'Upload-Length': z.string().regex(/^\d+$/).openapi({ description: 'The size of the whole file, in bytes.' }),
        'Upload-Metadata': z.string().optional().openapi({ description: 'Comma-separated `key base64(value)` pairs.' }),
      }),
      body: { content: bytes, required: false },
    },
    responses: {
      201: {
        description: 'Created (Location, Upload-Offset, Upload-Expires); with every byte already sent, the file',
        content: fileOrNothing,
      },
      ...errors(400, 401, 412, 413),
    },
  });
  registry.registerPath({
    method: 'head',
    path: '/uploads/{id}',
    tags: ['Resumable uploads'],
    summary: 'Where an upload stands: Upload-Offset, Upload-Length, Upload-Metadata',
    security: SESSION_OR_TOKEN,
    request: { params: uploadId, headers: z.object({ 'Tus-Resumable': tusResumable }) },
    responses: { 200: { description: 'The upload’s offset and length, in headers' }, ...errors(401, 404, 410, 412) },
  });
  registry.registerPath({
    method: 'patch',
    path: '/uploads/{id}',
    tags: ['Resumable uploads'],
    summary: 'Send bytes from Upload-Offset on (Content-Type: application/offset+octet-stream)',
    description:
      'Bytes that arrive are kept even if the connection breaks; HEAD then says where to resume. ' +
      'A wrong Upload-Offset is 409; bytes past Upload-Length are 413; another request writing to the upload makes this one wait, then 423. ' +
      'Without Upload-Offset, with Upload-Length (the length is fixed at creation), or on a finished upload: 400.',
    security: SESSION_OR_TOKEN,
    request: {
      params: uploadId,
      headers: z.object({ 'Tus-Resumable': tusResumable, 'Upload-Offset': uploadOffset }),
      body: { content: bytes },
    },
    responses: {
      200: { description: 'The last bytes: the upload is now this file', content: fileOrNothing },
      204: { description: 'Stored; Upload-Offset is the new offset' },
      ...errors(400, 401, 404, 409, 410, 412, 413, 415, 423),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/uploads/{id}',
    tags: ['Resumable uploads'],
    summary: 'Abandon an unfinished upload and remove its bytes (tus termination)',
    security: SESSION_OR_TOKEN,
    request: { params: uploadId, headers: z.object({ 'Tus-Resumable': tusResumable }) },
    responses: { 204: { description: 'Removed' }, ...errors(400, 401, 404, 412) },
  });
}

const Webhook = z
  .object({
    id: z.string().openapi({ example: 'wh_3q2-7wXbYk1mPz0a' }),
    url: z.string().openapi({ example: 'https://example.com/hooks/files' }),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    createdAt: isoDate,
  })
  .strict()
  .openapi('Webhook');

const WebhookDelivery = z
  .object({
    id: z.string().openapi({ description: 'Sent as X-Webhook-Id and in the body: the same on every retry.' }),
    type: z.string().openapi({ example: 'file.uploaded' }),
    status: z.enum(['pending', 'delivered', 'failed']).openapi({
      description:
        'pending: waiting for its next attempt; delivered: a 2xx came back; failed: retried for a day without one.',
    }),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: isoDate,
    nextAttemptAt: isoDate.nullable().openapi({ description: 'When it is tried next; null unless pending.' }),
    deliveredAt: isoDate.nullable(),
  })
  .strict()
  .openapi('WebhookDelivery');

/** Webhooks (ADR 0050): endpoints that get signed JSON events of the caller's files. */
function describeWebhooks(registry: OpenAPIRegistry): void {
  const params = z.object({
    id: z.string().openapi({ description: "The webhook's id" }),
    deliveryId: z.string().openapi({ description: "The delivery's id" }),
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks',
    tags: ['Webhooks'],
    summary: 'List your webhooks (never their secrets)',
    responses: {
      200: { description: 'Your webhooks, oldest first', content: json(z.object({ webhooks: z.array(Webhook) })) },
      ...errors(401),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/webhooks',
    tags: ['Webhooks'],
    summary: 'Add a webhook: the response is the only time its signing secret is shown',
    request: { body: { content: json(newWebhookSchema) } },
    responses: {
      201: {
        description: 'Added',
        content: json(z.object({ webhook: Webhook, secret: z.string().regex(/^whsec_/) })),
      },
      ...errors(400, 401),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/webhooks/{id}',
    tags: ['Webhooks'],
    summary: 'Remove a webhook and its deliveries',
    request: { params: idParam('webhook') },
    responses: { 200: { description: 'Removed', content: json(Ok) }, ...errors(401, 404) },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    tags: ['Webhooks'],
    summary: "A webhook's recent deliveries, newest first (up to 50)",
    request: { params: idParam('webhook') },
    responses: {
      200: { description: 'Its deliveries', content: json(z.object({ deliveries: z.array(WebhookDelivery) })) },
      ...errors(401, 404),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/resend',
    tags: ['Webhooks'],
    summary: 'Send a delivery again, with the same id: it is pending from now',
    request: { params },
    responses: {
      202: { description: 'Queued again', content: json(z.object({ delivery: WebhookDelivery })) },
      ...errors(401, 404),
    },
  });
}

// File requests (ADR 0048): links through which guests without an account send you files.
const FileRequest = z
  .object({
    id: z.string(),
    url: z.string().url().openapi({ description: 'The link to give guests, /r/<id>' }),
    title: z.string().openapi({ example: 'Scans for the tax return' }),
    message: z.string().openapi({ description: 'Shown to guests under the title; empty for none.' }),
    createdAt: isoDate,
    expiresAt: isoDate.nullable().openapi({ description: 'When the link stops taking files; null: never.' }),
    maxFiles: z.number().int().min(1).nullable().openapi({ description: 'Files it takes in all; null: no limit.' }),
    maxBytes: z.number().int().min(1).nullable().openapi({ description: 'Bytes it takes in all; null: no limit.' }),
    hasPassword: z.boolean(),
    requireName: z.boolean().openapi({ description: 'Whether guests must leave a name.' }),
    state: z.enum(['open', 'closed', 'expired', 'full']),
    filesReceived: z.number().int().nonnegative(),
    bytesReceived: z.number().int().nonnegative(),
    newFiles: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: 'Files received since you last opened /requests.' }),
  })
  .strict()
  .openapi('FileRequest');

const ReceivedFile = z
  .object({
    id: z.string().openapi({ description: 'The file’s id: one of your files (GET /files lists it too).' }),
    originalName: z.string(),
    mimeType: z.string(),
    size: z.number().int().nonnegative(),
    createdAt: isoDate,
    guestName: z.string().nullable().openapi({ description: 'The name the guest left, as text; null: none.' }),
    guestNote: z.string().nullable().openapi({ description: 'The note the guest left, as text; null: none.' }),
    isNew: z.boolean(),
  })
  .strict()
  .openapi('ReceivedFile');

const newFileRequestBody = z
  .object({
    title: z.string().min(1).max(200),
    message: z.string().max(2000).optional(),
    expiresIn: z
      .union([z.number().int().min(60), z.literal('never')])
      .optional()
      .openapi({ description: 'Seconds from now until the link stops taking files, or "never"; default 7 days.' }),
    expiresAt: isoDate.optional().openapi({ description: 'Or a date in the future.' }),
    maxFiles: z.number().int().min(1).nullable().optional(),
    maxBytes: z.number().int().min(1).nullable().optional(),
    password: z.string().max(200).optional().openapi({ description: 'Guests type it before they can send.' }),
    requireName: z.boolean().optional(),
  })
  .openapi('NewFileRequest');

function describeFileRequests(registry: OpenAPIRegistry): void {
  const one = json(z.object({ request: FileRequest }));
  registry.registerPath({
    method: 'get',
    path: '/requests',
    tags: ['File requests'],
    summary: 'Your file requests, newest first, with what each has received',
    security: SESSION_OR_TOKEN,
    responses: {
      200: { description: 'Your requests', content: json(z.object({ requests: z.array(FileRequest) })) },
      ...errors(401, 403),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/requests',
    tags: ['File requests'],
    summary: 'Make a file request: a link, /r/<id>, through which anyone with it sends you files',
    security: SESSION_OR_TOKEN,
    request: { body: { content: json(newFileRequestBody) } },
    responses: { 201: { description: 'Made; Location is its link', content: one }, ...errors(400, 401, 403) },
  });
  registry.registerPath({
    method: 'get',
    path: '/requests/{id}',
    tags: ['File requests'],
    summary: 'One of your requests with the files it received, newest first',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('request') },
    responses: {
      200: {
        description: 'The request and its files',
        content: json(z.object({ request: FileRequest, files: z.array(ReceivedFile) })),
      },
      ...errors(401, 403, 404),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/requests/{id}',
    tags: ['File requests'],
    summary: 'Close a request (it takes no more files) or reopen it',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('request'), body: { content: json(z.object({ closed: z.boolean() })) } },
    responses: { 200: { description: 'The request as it is now', content: one }, ...errors(400, 401, 403, 404) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/requests/{id}',
    tags: ['File requests'],
    summary: 'Delete a request: its link stops working; the files it received stay yours',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('request') },
    responses: { 200: { description: 'Deleted', content: json(Ok) }, ...errors(401, 403, 404) },
  });
}

let document: ReturnType<OpenApiGeneratorV31['generateDocument']> | null = null;

/** The document (built once: it depends on nothing but the code). Paths are relative to /api/v1. */
export function openApiDocument() {
  if (document) return document;
  const registry = new OpenAPIRegistry();
  describeApi(registry);
  describeTwoFactor(registry);
  describeFileRequests(registry);
  describeWebhooks(registry);
  document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'File sharing API',
      version: '1',
      description:
        'Upload, list, share and delete files; manage API tokens and sessions. docs/api.md explains it with curl examples.',
    },
    servers: [{ url: '/api/v1' }],
    security: SESSION_OR_TOKEN,
  });
  return document;
}
