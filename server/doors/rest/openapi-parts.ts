// What the OpenAPI descriptions of the /api/v1 routes share (ADR 0017): the error answers, who
// may call a route, and the schemas more than one resource answers with.
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { MAX_DOWNLOADS_LIMIT } from '../../schemas';

export const isoDate = z.string().datetime({ offset: true });
export const json = <T extends z.ZodTypeAny>(schema: T) => ({ 'application/json': { schema } });

export const ErrorBody = z.object({ error: z.string().openapi({ example: 'Unauthorized' }) }).openapi('Error');
export const Ok = z.object({ ok: z.literal(true) });

export const User = z.object({ id: z.string(), username: z.string() }).openapi('User');

export const File = z
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

export const FileCreated = z
  .object({ file: File, url: z.string().url().openapi({ description: 'The public share link' }) })
  .openapi('FileCreated');

export const idParam = (what: string) => z.object({ id: z.string().openapi({ description: `The ${what}'s id` }) });

type Responses = RouteConfig['responses'];
export const errors = (...statuses: number[]): Responses =>
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

/** Who may call a route: a session cookie, or also an API token. */
export const SESSION_ONLY: Record<string, string[]>[] = [{ cookieAuth: [] }];
export const SESSION_OR_TOKEN: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];
