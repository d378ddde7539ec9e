// One schema per input, reused at every door (REST, pages, tRPC, CLI).
import { z } from 'zod';

const MAX_PASSWORD_BYTES = 72; // bcrypt ignores everything past 72 bytes: refuse, never truncate

export const usernameSchema = z
  .string({ required_error: 'Username is required', invalid_type_error: 'Username must be a string' })
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'Username must be 1-64 characters of letters, digits, ".", "_" or "-"')
  // ".", ".." and "-x" read as paths and options in shells, URLs and logs.
  .regex(/^[A-Za-z0-9_]/, 'Username must start with a letter, a digit or "_"');

/** Spaces of every kind, and the invisible characters that look like nothing at all. */
const BLANK_LOOKING = /^[\s\p{Cc}\p{Cf}\u2800\u3164\uFFA0\u115F\u1160]*$/u;

export const newPasswordSchema = z
  .string({ required_error: 'Password is required', invalid_type_error: 'Password must be a string' })
  .min(8, 'Password must be at least 8 characters long')
  .refine((password) => !BLANK_LOOKING.test(password), { message: 'Password must not be only spaces or invisible characters' })
  .refine((password) => Buffer.byteLength(password, 'utf8') <= MAX_PASSWORD_BYTES, {
    message: `Password must be at most ${MAX_PASSWORD_BYTES} bytes of UTF-8`,
  });

export const registerUserSchema = z.object({ username: usernameSchema, password: newPasswordSchema });

/** Login takes any strings: a malformed guess is just a wrong one. Lengths are capped to keep bcrypt bounded. */
export const loginSchema = z.object({
  username: z.string({ required_error: 'Username is required' }).min(1, 'Username is required').max(256),
  password: z.string({ required_error: 'Password is required' }).min(1, 'Password is required').max(1024),
});

/** File ids are URL-safe tokens; anything else cannot be a file. */
export const fileIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/** `?limit=&cursor=` of the file list; query strings arrive as text. */
export const filePageSchema = z.object({
  limit: z.coerce
    .number({ invalid_type_error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(1000, 'limit must be at most 1000'),
  cursor: z.string().max(200, 'Invalid cursor').optional(),
});

/** The first message of a failed parse: one clear line for people. */
export function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'Invalid input';
}
