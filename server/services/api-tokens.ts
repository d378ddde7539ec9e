// Personal access tokens (ADR 0015): a recognisable prefix and 256 random bits, shown once;
// only their SHA-256 is stored. They open the file routes of the API, never the pages, and
// cannot manage tokens: that needs a session (a stolen token cannot mint more).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AuthUser, ServiceContext } from '../context';
import { ApiTokenSchema, type ApiToken } from '../db/entities/api-token.entity';
import { selectTokenUser } from '../db/api-tokens';
import { storedDateMillis } from '../db/stored-date';
import { AppError } from '../utilities/errors';
import { firstIssue, isRecordId, newApiTokenSchema } from '../schemas';
import { requireSessionUser } from './guards';
import { recordActivity } from './activity';

export const TOKEN_PREFIX = 'fsk_';
const TOKEN_RANDOM_BYTES = 32;
/** What the lists show of a token: the prefix and six random characters. */
const SHOWN_CHARACTERS = TOKEN_PREFIX.length + 6;
/** A token's last use is written at most this often (each use would be a write otherwise). */
const LAST_USED_PRECISION_MS = 60_000;

export interface ApiTokenDto {
  id: string;
  name: string;
  /** The token's first characters, e.g. `fsk_Ab3dE9`. */
  start: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

export interface CreatedApiToken {
  /** The whole token: shown this once, never stored. */
  token: string;
  apiToken: ApiTokenDto;
}

function toDto(row: ApiToken): ApiTokenDto {
  const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());
  return {
    id: row.id,
    name: row.name,
    start: row.start,
    createdAt: new Date(row.createdAt).toISOString(),
    lastUsedAt: iso(row.lastUsedAt),
    expiresAt: iso(row.expiresAt),
  };
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Creates a token for the signed-in user. */
export function createApiToken(ctx: ServiceContext, input: unknown): Promise<CreatedApiToken> {
  return issueApiToken(ctx, requireSessionUser(ctx).id, input);
}

/** Creates a token for a user (the CLI names the user; the doors pass the signed-in one). */
export async function issueApiToken(ctx: ServiceContext, userId: string, input: unknown): Promise<CreatedApiToken> {
  const parsed = newApiTokenSchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { name, expiresInDays } = parsed.data;
  const token = TOKEN_PREFIX + randomBytes(TOKEN_RANDOM_BYTES).toString('base64url');
  const now = ctx.clock.now();
  const row: ApiToken = {
    id: randomUUID(),
    userId,
    name,
    tokenHash: hashToken(token),
    start: token.slice(0, SHOWN_CHARACTERS),
    createdAt: new Date(now),
    lastUsedAt: null,
    expiresAt: expiresInDays ? new Date(now + expiresInDays * 86400_000) : null,
  };
  await ctx.em.insert(ApiTokenSchema, row);
  ctx.log.info({ tokenId: row.id, userId }, 'api token created');
  await recordActivity(ctx, { action: 'token.created', target: { kind: 'token', id: row.id, name } });
  return { token, apiToken: toDto(row) };
}

/** The signed-in user's tokens, newest first (expired ones included, marked by their date). */
export async function listApiTokens(ctx: ServiceContext): Promise<ApiTokenDto[]> {
  return listApiTokensOf(ctx, requireSessionUser(ctx).id);
}

export async function listApiTokensOf(ctx: ServiceContext, userId: string): Promise<ApiTokenDto[]> {
  const rows = await ctx.em.find(
    ApiTokenSchema,
    { userId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, disableIdentityMap: true },
  );
  return rows.map(toDto);
}

/** Revokes one of the signed-in user's tokens: it stops working on the next request, on every instance. */
export async function revokeApiToken(ctx: ServiceContext, tokenId: string): Promise<void> {
  return revokeApiTokenOf(ctx, requireSessionUser(ctx).id, tokenId);
}

export async function revokeApiTokenOf(ctx: ServiceContext, userId: string, tokenId: string): Promise<void> {
  // Someone else's token is as unknown as a missing one: ids are not for probing.
  const removed = isRecordId(tokenId) ? await ctx.em.nativeDelete(ApiTokenSchema, { id: tokenId, userId }) : 0;
  if (removed === 0) throw new AppError('NOT_FOUND', 'Token not found');
  ctx.log.info({ tokenId, userId }, 'api token revoked');
  await recordActivity(ctx, { action: 'token.revoked', target: { kind: 'token', id: tokenId } });
}

/** The user a live token belongs to; null for an unknown, revoked or expired token. Records no use. */
export async function findApiTokenOwner(ctx: ServiceContext, token: string): Promise<AuthUser | null> {
  return (await lookUpToken(ctx, token))?.user ?? null;
}

/** The same, for a request that uses the token: its last use is recorded (at most once a minute). */
export async function recogniseApiToken(ctx: ServiceContext, token: string): Promise<AuthUser | null> {
  const found = await lookUpToken(ctx, token);
  if (!found) return null;
  const now = ctx.clock.now();
  if (found.lastUsedAt === null || found.lastUsedAt < now - LAST_USED_PRECISION_MS) {
    await ctx.em.nativeUpdate(ApiTokenSchema, { id: found.tokenId }, { lastUsedAt: new Date(now) });
  }
  return found.user;
}

async function lookUpToken(
  ctx: ServiceContext,
  token: string,
): Promise<{ tokenId: string; user: AuthUser; lastUsedAt: number | null } | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  // One query for the token and its user, written out (db/api-tokens.ts): this runs on every
  // request that carries one, the uploads of screenshot tools included.
  const row = await selectTokenUser(ctx.sql, hashToken(token));
  if (!row) return null;
  const expiresAt = storedDateMillis(row.expiresAt);
  if (expiresAt !== null && expiresAt <= ctx.clock.now()) return null;
  return {
    tokenId: row.tokenId,
    user: { id: row.id, username: row.username },
    lastUsedAt: storedDateMillis(row.lastUsedAt),
  };
}
