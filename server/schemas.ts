// One schema per input, reused at every door (REST, pages, tRPC, CLI) and by the OpenAPI
// document (server/doors/rest/openapi.ts), which `.openapi()` metadata helps describe.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
// bcrypt ignores everything past 72 bytes: refuse, never truncate.
import { MAX_PASSWORD_BYTES } from './auth/passwords';
import { countCharacters, hasUnsafeCharacters, type TextKind, withUnixLineBreaks } from './utilities/characters';

extendZodWithOpenApi(z);

const UNSAFE_TEXT_MESSAGES: Record<TextKind, string> = {
  line: 'must not contain control characters or bidirectional formatting characters',
  lines: 'must not contain control characters (line breaks and tabs aside) or bidirectional formatting characters',
};

/**
 * Refuses text a person typed that holds a character text of its kind never keeps (NUL and the
 * other controls, bidi overrides: server/utilities/characters.ts). Every label and message of an account
 * holder's takes this at every door: a 400 naming the field, never a 500 (ADR 0059).
 */
function refuseUnsafeCharacters(field: string, kind: TextKind) {
  return (text: string, ctx: z.RefinementCtx) => {
    if (hasUnsafeCharacters(text, kind))
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${field} ${UNSAFE_TEXT_MESSAGES[kind]}` });
  };
}

export const usernameSchema = z
  .string({ required_error: 'Username is required', invalid_type_error: 'Username must be a string' })
  // Any of A-Z a-z 0-9 . _ -, in any order (ADR 0027): a name is never a path nor part of a URL
  // here, and the CLI takes one that starts with "-" after a lone "--".
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'Username must be 1-64 characters of letters, digits, ".", "_" or "-"');

/** Spaces of every kind, and the invisible characters that look like nothing at all. */
const BLANK_LOOKING = /^[\s\p{Cc}\p{Cf}\u2800\u3164\uFFA0\u115F\u1160]*$/u;

export const newPasswordSchema = z
  .string({ required_error: 'Password is required', invalid_type_error: 'Password must be a string' })
  .min(8, 'Password must be at least 8 characters long')
  // `min` counts UTF-16 units (and gives the OpenAPI document its minLength); characters as a
  // person counts them are code points: "😀😀😀😀" is 4, not 8.
  .refine((password) => countCharacters(password) >= 8, { message: 'Password must be at least 8 characters long' })
  .refine((password) => !BLANK_LOOKING.test(password), {
    message: 'Password must not be only spaces or invisible characters',
  })
  .refine((password) => Buffer.byteLength(password, 'utf8') <= MAX_PASSWORD_BYTES, {
    message: `Password must be at most ${MAX_PASSWORD_BYTES} bytes of UTF-8`,
  });

export const registerUserSchema = z.object({ username: usernameSchema, password: newPasswordSchema });

/** A user changing their own password: the current one, then the new one (twice on the page). */
export const changePasswordSchema = z
  .object({
    currentPassword: z
      .string({ required_error: 'currentPassword is required', invalid_type_error: 'currentPassword must be a string' })
      .min(1, 'currentPassword is required')
      .max(1024, 'currentPassword is wrong'),
    newPassword: newPasswordSchema,
    /** The page asks twice; scripts may leave it out. */
    confirmPassword: z.string({ invalid_type_error: 'confirmPassword must be a string' }).optional(),
  })
  .strict()
  .refine((input) => input.confirmPassword === undefined || input.confirmPassword === input.newPassword, {
    message: 'The new password and its confirmation do not match',
  })
  .refine((input) => input.currentPassword !== input.newPassword, {
    message: 'The new password must differ from the current one',
  });

/** Login takes any strings: a malformed guess is just a wrong one. Lengths are capped to keep bcrypt bounded. */
export const loginSchema = z.object({
  username: z
    .string({ required_error: 'Username is required', invalid_type_error: 'Username must be a string' })
    .min(1, 'Username is required')
    .max(256, 'Username must be at most 256 characters'),
  password: z
    .string({ required_error: 'Password is required', invalid_type_error: 'Password must be a string' })
    .min(1, 'Password is required')
    .max(1024, 'Password must be at most 1024 characters'),
});

/** File ids are URL-safe tokens; anything else cannot be a file. */
export const fileIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/**
 * Whether a value can be the id of one of our rows (files, collections, tokens, sessions,
 * webhooks, deliveries: random URL-safe text or UUIDs). Anything else is answered as an unknown
 * id before it reaches a query: a NUL in `/tokens/a%00b` made PostgreSQL drop the connection.
 */
export function isRecordId(id: unknown): id is string {
  return fileIdSchema.safeParse(id).success;
}

/** `?limit=&cursor=` of the file list; query strings arrive as text. */
export const filePageSchema = z.object({
  limit: z.coerce
    .number({ invalid_type_error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(1000, 'limit must be at most 1000'),
  cursor: z.string().max(200, 'Invalid cursor').optional(),
});

/** The most downloads a link may allow (a 32-bit column on PostgreSQL). */
export const MAX_DOWNLOADS_LIMIT = 1_000_000_000;
/** The furthest ahead an expiry may be set: 100 years. */
const MAX_EXPIRES_IN_SECONDS = 100 * 365 * 24 * 3600;
const MIN_SHARE_PASSWORD_LENGTH = 4;

/** Reports a bad setting (one line naming it) and stops its parsing. */
function refuseSetting(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: z.ZodIssueCode.custom, message });
  return z.NEVER;
}

/** A whole number in [min, max]: multipart fields are text, JSON has numbers. */
function readWholeNumber(value: unknown, name: string, min: number, max: number, ctx: z.RefinementCtx): number {
  const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number))
    return refuseSetting(ctx, `${name} must be a whole number`);
  if (number < min) return refuseSetting(ctx, `${name} must be at least ${min}`);
  if (number > max) return refuseSetting(ctx, `${name} must be at most ${max}`);
  return number;
}

const isoDateTime = z.string().datetime({ offset: true });

const sharePasswordSchema = z
  .string({ invalid_type_error: 'password must be a string or null' })
  .min(MIN_SHARE_PASSWORD_LENGTH, `password must be at least ${MIN_SHARE_PASSWORD_LENGTH} characters long`)
  .refine((password) => countCharacters(password) >= MIN_SHARE_PASSWORD_LENGTH, {
    message: `password must be at least ${MIN_SHARE_PASSWORD_LENGTH} characters long`,
  })
  .refine((password) => Buffer.byteLength(password, 'utf8') <= MAX_PASSWORD_BYTES, {
    message: `password must be at most ${MAX_PASSWORD_BYTES} bytes of UTF-8`,
  });

/**
 * A file's share settings, as an upload sends them (multipart fields) or a change does (JSON).
 * A key left out means "as it is" (a change) or "the default" (an upload); null clears it.
 * `expiresIn` (seconds, or "never") is the relative form of `expiresAt`.
 */
export const shareSettingsFields = z
  .object({
    expiresAt: z
      .unknown()
      .transform((value, ctx): string | null | undefined => {
        if (value === undefined || value === null) return value;
        // The format alone lets through offsets no clock has (+24:00, +99:99): an Invalid Date.
        if (typeof value === 'string' && isoDateTime.safeParse(value).success && Number.isFinite(Date.parse(value)))
          return value;
        return refuseSetting(
          ctx,
          'expiresAt must be an ISO-8601 date and time with a time zone (e.g. 2030-01-31T12:00:00Z), or null',
        );
      })
      .openapi({
        type: ['string', 'null'],
        format: 'date-time',
        description: 'When the link stops working; null: never.',
        example: '2030-01-31T12:00:00Z',
      }),
    expiresIn: z
      .unknown()
      .transform((value, ctx): number | 'never' | undefined => {
        if (value === undefined || value === 'never') return value;
        // null clears it, as it clears every other setting.
        if (value === null) return 'never';
        return readWholeNumber(value, 'expiresIn', 1, MAX_EXPIRES_IN_SECONDS, ctx);
      })
      .openapi({
        anyOf: [
          { type: 'integer', minimum: 1, maximum: MAX_EXPIRES_IN_SECONDS },
          { type: 'string', pattern: '^\\d+$' },
          { const: 'never' },
          { type: 'null' },
        ],
        description: 'The expiry relative to now, in seconds, or "never" (or null). Send this or expiresAt, not both.',
      }),
    maxDownloads: z
      .unknown()
      .transform((value, ctx): number | null | undefined => {
        if (value === undefined || value === null) return value;
        return readWholeNumber(value, 'maxDownloads', 1, MAX_DOWNLOADS_LIMIT, ctx);
      })
      .openapi({
        anyOf: [
          { type: 'integer', minimum: 1, maximum: MAX_DOWNLOADS_LIMIT },
          { type: 'string', pattern: '^\\d+$' },
          { type: 'null' },
        ],
        description: 'Downloads the link allows in all; null: no limit.',
      }),
    password: z
      .unknown()
      .transform((value, ctx): string | null | undefined => {
        if (value === undefined || value === null) return value;
        const parsed = sharePasswordSchema.safeParse(value);
        return parsed.success ? parsed.data : refuseSetting(ctx, firstIssue(parsed.error));
      })
      .openapi({
        type: ['string', 'null'],
        minLength: MIN_SHARE_PASSWORD_LENGTH,
        description: 'A password visitors must give; null: none.',
      }),
  })
  .strict();

export const shareSettingsSchema = shareSettingsFields.refine(
  (settings) => settings.expiresAt === undefined || settings.expiresIn === undefined,
  'Send expiresAt or expiresIn, not both',
);

export type ShareSettings = z.output<typeof shareSettingsSchema>;

/** The share settings' names: the multipart fields an upload reads before its file part. */
export const SHARE_SETTING_FIELDS = ['expiresAt', 'expiresIn', 'maxDownloads', 'password'] as const;

/** A new personal access token: a name to tell it apart, and optionally a lifetime in days. */
export const newApiTokenSchema = z
  .object({
    name: z
      .string({ required_error: 'name is required', invalid_type_error: 'name must be a string' })
      .trim()
      .min(1, 'name is required')
      .max(100, 'name must be at most 100 characters')
      .superRefine(refuseUnsafeCharacters('name', 'line')),
    expiresInDays: z
      .union([z.null(), z.coerce.number({ invalid_type_error: 'expiresInDays must be a whole number' })])
      .optional()
      .refine((days) => days === undefined || days === null || (Number.isInteger(days) && days >= 1 && days <= 3650), {
        message: 'expiresInDays must be a whole number from 1 to 3650, or null for no expiry',
      })
      .openapi({
        type: ['integer', 'null'],
        minimum: 1,
        maximum: 3650,
        description: 'Lifetime in days; null or left out: no expiry.',
      }),
  })
  .strict();

/** The first message of a failed parse: one clear line for people. */
export function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'Invalid input';
}

// ---------------------------------------------------------------------------- collections

/** More than a folder of photos needs, few enough that one archive's plan stays small. */
export const MAX_COLLECTION_FILES = 10_000;
const MAX_TITLE_LENGTH = 200;

export const collectionEntrySchema = z.object({
  id: fileIdSchema,
  path: z.string({ invalid_type_error: 'path must be a string' }).optional(),
});

const entriesSchema = z
  .array(collectionEntrySchema, { invalid_type_error: 'files must be an array of { id, path? }' })
  .max(MAX_COLLECTION_FILES, `A collection holds at most ${MAX_COLLECTION_FILES} files`);

const titleSchema = z
  .string({ invalid_type_error: 'title must be a string' })
  .trim()
  .min(1, 'title must not be empty')
  .max(MAX_TITLE_LENGTH, `title must be at most ${MAX_TITLE_LENGTH} characters`)
  .superRefine(refuseUnsafeCharacters('title', 'line'));

/** A new collection: the caller's files by id (each with an optional path), a title, and share settings. */
export const newCollectionSchema = shareSettingsFields.partial().extend({
  title: titleSchema.optional(),
  files: entriesSchema.min(1, 'files must name at least one file'),
});

/** A change of a collection: only the keys sent; `files` replaces its files and their order. */
export const collectionChangeSchema = shareSettingsFields.partial().extend({
  title: titleSchema.optional(),
  files: entriesSchema.optional(),
});

export const addToCollectionSchema = z.object({ files: entriesSchema.min(1, 'files must name at least one file') });

// ---------------------------------------------------------------------------- file requests

const REQUEST_TITLE_MAX = 200;
const REQUEST_MESSAGE_MAX = 2000;

const flag = z
  .union([z.boolean(), z.enum(['true', 'false', 'on', 'yes', '1', '0', ''])])
  .transform((value) => value === true || value === 'true' || value === 'on' || value === 'yes' || value === '1');
const wholeNumber = (name: string, min: number) =>
  z
    .union([z.number(), z.string().regex(/^\d{1,16}$/, `${name} must be a whole number`)])
    .transform(Number)
    .refine(
      (value) => Number.isSafeInteger(value) && value >= min,
      `${name} must be a whole number of at least ${min}`,
    );

/** A new file request (ADR 0048), from the API's JSON, tRPC or the page's form (blank fields left out). */
export const newFileRequestSchema = z.object({
  title: z
    .string({ required_error: 'title is required', invalid_type_error: 'title must be a string' })
    .trim()
    .min(1, 'title is required')
    .max(REQUEST_TITLE_MAX, `title must be at most ${REQUEST_TITLE_MAX} characters`)
    .superRefine(refuseUnsafeCharacters('title', 'line')),
  // Several lines: a page's textarea sends its line breaks as "\r\n", kept as "\n".
  message: z.preprocess(
    (message) => (typeof message === 'string' ? withUnixLineBreaks(message) : message),
    z
      .string({ invalid_type_error: 'message must be a string' })
      .max(REQUEST_MESSAGE_MAX, `message must be at most ${REQUEST_MESSAGE_MAX} characters`)
      .superRefine(refuseUnsafeCharacters('message', 'lines'))
      .optional(),
  ),
  expiresIn: z
    .union([z.literal('never'), wholeNumber('expiresIn', 60)])
    .optional()
    .openapi({ description: 'Seconds from now until the link stops taking files, or "never" (the default: 7 days).' }),
  expiresAt: z
    .string({ invalid_type_error: 'expiresAt must be a date' })
    .datetime({ offset: true, message: 'expiresAt must be an ISO-8601 date' })
    .optional(),
  maxFiles: z.union([z.null(), wholeNumber('maxFiles', 1)]).optional(),
  maxBytes: z.union([z.null(), wholeNumber('maxBytes', 1)]).optional(),
  password: z
    .string({ invalid_type_error: 'password must be a string' })
    .max(200, 'password must be at most 200 characters')
    .optional(),
  requireName: flag.optional(),
});
