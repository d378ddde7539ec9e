// Who may open a share link, and when (ADR 0014): a link that has expired or used up its
// downloads is gone (410) until the sweeper removes it (then 404); a password-protected one
// opens with the password or the proof a right password left in a cookie (for a file of a
// protected collection, the collection's proof too: ADR 0067); the owner, logged in, is never
// asked and never uses up a download. Every answer of the raw link that sends content counts a
// download, unless it is a range continuing one counted before for the same visitor (ADR 0056).
// The share page counts a view, and its own preview nothing (ADR 0066).
import type { CollectionGrant } from '../auth/cookie';
import { claimedEtag, DOWNLOAD_CLAIM_TTL_SECONDS, signDownloadClaim } from '../auth/download-claim';
import { signShareGrant, SHARE_GRANT_TTL_SECONDS, verifyShareGrant } from '../auth/share-grant';
import { verifyPassword } from '../auth/passwords';
import type { ServiceContext } from '../context';
import { countDownloadOfCollection } from '../db/collections';
import type { StoredFile } from '../db/entities/file.entity';
import { countDownloadOfFile } from '../db/file-counts';
import { selectSharedFileById } from '../db/files';
import { AppError } from '../utilities/errors';
import { ContentNotFoundError, type ByteRange, type OpenedContent } from '../storage/content-store';
import { opensAsCollectionFile } from './collection-grants';
import { previewKind } from './content-policy';
import { findFile, isFileId, toFileDto, type FileDto } from './files';
import { admitSharePasswordAttempt, checkedUnderThrottle } from './login-throttle';
import { GONE_MESSAGES, goneReason, type GoneReason } from './share-settings';
import { noteExpiredLink } from './webhooks';

export const PASSWORD_REQUIRED = 'This file is password-protected.';
const WRONG_PASSWORD = 'Wrong password.';

export type ShareAccess =
  /** No such file (or its content is gone): 404. */
  | { kind: 'missing' }
  /** The link expired or used up its downloads: 410. */
  | { kind: 'gone'; reason: GoneReason; message: string }
  /** Password-protected and no proof given: 401. */
  | { kind: 'locked'; fileId: string }
  | OpenShare;

interface OpenShare {
  kind: 'open';
  file: FileDto;
  /** The logged-in owner: never asked for the password, their downloads never count. */
  isOwner: boolean;
  size: number;
  /** Strong: the content of a file never changes, so its id and size name it. */
  etag: string;
  /**
   * The request carries the claim of a download of this content counted before (ADR 0056): a
   * range it asks continues that download and counts no new one, even once the link is used up.
   */
  resumable: boolean;
  /**
   * Whether the share page may show it inline: not to a visitor of a link with a download limit.
   * A preview hands over the content without counting a download (ADR 0066): there, the file
   * leaves only as a download.
   */
  previewable: boolean;
  /** Opens the content, or one byte range of it; rejects with ContentNotFoundError once it is gone. */
  open(range?: ByteRange): Promise<OpenedContent>;
  /** Whether the content is still there (asked of the store, not the record). */
  contentExists(): Promise<boolean>;
}

export interface OpenShareOptions {
  /**
   * Whether to ask the store that the content is there before answering (the default). The
   * raw link does not: it opens the content anyway, and asks `contentExists` when it will not.
   */
  checkContent?: boolean;
}

export interface ShareProof {
  /** A password sent with the request (the X-Share-Password header). */
  password?: string | null;
  /** The share-grant cookie a right password left. */
  grant?: string | null;
  /** The grants of collections unlocked in this browser: each opens the files of its collection (ADR 0067). */
  collectionGrants?: readonly CollectionGrant[];
  /**
   * The claim cookie of a download counted before (ADR 0056). Doors pass it only with a Range
   * header, the one request it changes: a plain download reads no claim and verifies no token.
   */
  claim?: string | null;
}

/**
 * What a visitor gets at a share link. A wrong password (in `proof.password`) is a 401
 * AppError, and too many of them a 429, counted per file and address like logins.
 */
export async function openShare(
  ctx: ServiceContext,
  fileId: string,
  proof: ShareProof = {},
  options: OpenShareOptions = {},
): Promise<ShareAccess> {
  const file = await findSharedFile(ctx, fileId);
  if (!file) return { kind: 'missing' };
  const gone = goneReason(file, ctx.clock.now());
  const etag = contentEtag(file);
  const resumable = gone !== 'expired' && (await claimedContent(ctx, proof.claim, file.id)) === etag;
  // A used-up link still lets the holder of a claim finish the download that used it up.
  if (gone && !(gone === 'used-up' && resumable)) {
    // Its owner's webhooks hear of it now, not when the sweep removes it (once per file: ADR 0050).
    noteExpiredLink(ctx, file);
    return { kind: 'gone', reason: gone, message: GONE_MESSAGES[gone] };
  }
  const isOwner = ctx.user?.id === file.userId;
  if (
    file.passwordHash &&
    !isOwner &&
    !(await opensProtectedFile(ctx, { id: file.id, passwordHash: file.passwordHash }, proof))
  )
    return { kind: 'locked', fileId: file.id };
  const contentMissing = () =>
    ctx.log.warn({ fileId: file.id, storedName: file.storedName }, 'content missing for an existing file record');
  const contentExists = async () => {
    if (await ctx.store.stat(file.storedName)) return true;
    contentMissing();
    return false;
  };
  if (options.checkContent !== false && !(await contentExists())) return { kind: 'missing' };
  return {
    kind: 'open',
    file: toFileDto(file),
    isOwner,
    // The record's: content is written whole before its record, and never changes.
    size: file.size,
    etag,
    resumable,
    previewable: isOwner || file.maxDownloads === null,
    open: async (range) => {
      try {
        return await ctx.store.open(file.storedName, range);
      } catch (error) {
        if (error instanceof ContentNotFoundError) contentMissing();
        throw error;
      }
    },
    contentExists,
  };
}

/**
 * What an open link's share page shows a visitor who brings no cookie, as one string; null when
 * there is no such page for them (no file, gone, password-protected, content missing), which
 * the page itself then answers. Two equal versions draw the same page: everything the page
 * takes from the file is in it (a rename, a new limit or a download counted changes it).
 */
export async function sharePageVersion(ctx: ServiceContext, fileId: string): Promise<string | null> {
  const file = await findSharedFile(ctx, fileId);
  if (!file || file.passwordHash || goneReason(file, ctx.clock.now())) return null;
  if (!(await ctx.store.stat(file.storedName))) return null;
  return JSON.stringify([
    file.id,
    file.originalName,
    file.mimeType,
    file.size,
    file.storedName,
    new Date(file.createdAt).getTime(),
    file.expiresAt === null ? null : new Date(file.expiresAt).getTime(),
    file.maxDownloads,
    file.downloads,
  ]);
}

/**
 * Checks a share password typed on the share page; resolves with the proof to keep in a
 * cookie. Throws UNAUTHORIZED for a wrong one, TOO_MANY_REQUESTS, GONE or NOT_FOUND.
 * @public The pages call it through the load context (server/remix-context.ts), which knip does not follow.
 */
export async function unlockShare(
  ctx: ServiceContext,
  fileId: string,
  password: unknown,
): Promise<{ grant: string; maxAgeSeconds: number }> {
  const file = await findFile(ctx, fileId);
  if (!file) throw new AppError('NOT_FOUND', 'File not found');
  const gone = goneReason(file, ctx.clock.now());
  if (gone) throw new AppError('GONE', GONE_MESSAGES[gone]);
  if (!file.passwordHash) throw new AppError('BAD_REQUEST', 'This file has no password');
  return grantForPassword(ctx, { id: file.id, passwordHash: file.passwordHash }, password);
}

/** A share that asks for a password: a file or a collection (their ids never collide). */
interface ProtectedShare {
  id: string;
  passwordHash: string;
}

/**
 * Whether a visitor passes a protected file's password: with its own grant, with the grant of a
 * collection it is in (ADR 0067), or with the password sent (a wrong one is a 401, too many a 429).
 */
async function opensProtectedFile(ctx: ServiceContext, file: ProtectedShare, proof: ShareProof): Promise<boolean> {
  if (await passesSharePassword(ctx, file, { grant: proof.grant })) return true;
  if (await opensAsCollectionFile(ctx, file.id, proof.collectionGrants ?? [])) return true;
  return passesSharePassword(ctx, file, { password: proof.password });
}

/**
 * Whether a visitor passes a share's password: with the proof a right password left (a cookie),
 * or with the password sent (a wrong one is a 401, too many a 429); false with neither.
 */
export async function passesSharePassword(
  ctx: ServiceContext,
  share: ProtectedShare,
  proof: ShareProof,
): Promise<boolean> {
  if (proof.grant) {
    const secret = ctx.config.sessionSecret;
    if (await verifyShareGrant(proof.grant, share.id, share.passwordHash, secret, nowSeconds(ctx))) return true;
  }
  if (!proof.password) return false;
  await checkSharePassword(ctx, share, proof.password);
  return true;
}

/**
 * The proof to keep in a cookie once a password typed on a share's page is right. Throws
 * UNAUTHORIZED for a wrong or empty one, TOO_MANY_REQUESTS for too many.
 */
export async function grantForPassword(
  ctx: ServiceContext,
  share: ProtectedShare,
  password: unknown,
): Promise<{ grant: string; maxAgeSeconds: number }> {
  if (typeof password !== 'string' || password === '') throw new AppError('UNAUTHORIZED', 'Enter the password.');
  await checkSharePassword(ctx, share, password);
  const grant = await signShareGrant(share.id, share.passwordHash, ctx.config.sessionSecret, nowSeconds(ctx));
  return { grant, maxAgeSeconds: SHARE_GRANT_TTL_SECONDS };
}

/** Checks a share's password, throttled per share and address like logins. */
async function checkSharePassword(ctx: ServiceContext, share: ProtectedShare, password: string): Promise<void> {
  const ticket = await admitSharePasswordAttempt(ctx, share.id, ctx.clientAddress);
  const right = await checkedUnderThrottle(ticket, () => verifyPassword(password, share.passwordHash));
  if (!right) throw new AppError('UNAUTHORIZED', WRONG_PASSWORD);
}

/** A file's ETag: its id and size (its content never changes). */
function contentEtag(file: { id: string; size: number }): string {
  return `"${file.id}-${Number(file.size).toString(36)}"`;
}

/**
 * The ETag of the content whose download `claim` claims on this link, for the caller to compare
 * with the content's now; null without a claim, or with one that is not ours, for another link
 * or past its time.
 */
export function claimedContent(
  ctx: ServiceContext,
  claim: string | null | undefined,
  linkId: string,
): Promise<string | null> {
  if (!claim) return Promise.resolve(null);
  return claimedEtag(claim, linkId, ctx.config.sessionSecret, nowSeconds(ctx));
}

/**
 * Counts one download of a link in its row, atomically: null when the link still had one to give
 * (then it is counted), or why it has none any more (expired or used up meanwhile). One
 * statement, so N parallel downloads of a link allowing N all get one, and the next ones none.
 */
export async function countDownload(
  ctx: ServiceContext,
  table: 'files' | 'collections',
  share: { id: string; expiresAt: string | null },
): Promise<GoneReason | null> {
  const now = new Date(ctx.clock.now());
  const counted =
    table === 'files'
      ? await countDownloadOfFile(ctx.sql, share.id, now)
      : await countDownloadOfCollection(ctx.sql, share.id, now);
  if (counted === 1) return null;
  return share.expiresAt !== null && Date.parse(share.expiresAt) <= now.getTime() ? 'expired' : 'used-up';
}

/** What an answer that sends content does to its link's count (ADR 0056). */
export type DownloadCount =
  /** Not counted: the owner's, or a range continuing a download counted before. */
  | { kind: 'continued' }
  /** Counted, with the claim to give the visitor (a cookie) so that they may resume it; null: none. */
  | { kind: 'counted'; claim: DownloadClaim | null }
  /** None left to count: the link is used up (or expired meanwhile), 410. */
  | { kind: 'gone'; reason: GoneReason };

interface DownloadClaim {
  token: string;
  maxAgeSeconds: number;
}

/**
 * Counts the download that an answer sending a file's content (200, or 206 when `partial`) is,
 * unless it is the owner's or a range continuing a download claimed before. A link without a
 * limit is counted in memory (download-tally.ts), and its whole-file answers give no claim: the
 * answers an image host lives on stay free of a signature and of a cookie that would keep caches
 * from storing them; a range, what players and download managers ask, gets one.
 */
export async function countFileDownload(
  ctx: ServiceContext,
  share: Pick<OpenShare, 'file' | 'isOwner' | 'etag' | 'resumable'>,
  partial: boolean,
): Promise<DownloadCount> {
  if (share.isOwner || (partial && share.resumable)) return { kind: 'continued' };
  const { file } = share;
  if (file.maxDownloads === null) {
    ctx.downloads.add(file.id);
    return { kind: 'counted', claim: partial ? await downloadClaim(ctx, file.id, share.etag) : null };
  }
  const gone = await countDownload(ctx, 'files', file);
  if (gone) return { kind: 'gone', reason: gone };
  return { kind: 'counted', claim: await downloadClaim(ctx, file.id, share.etag) };
}

/** The kinds the share page shows from `/f/<id>/preview`: the browser draws them from the content itself. */
const CONTENT_PREVIEW_KINDS = new Set(['image', 'video', 'audio', 'pdf']);

/**
 * Whether `/f/<id>/preview` gives this open share's content (ADR 0066): only where the share page
 * shows it, and only what the page's own elements draw (an image, a player, a PDF), all of them
 * types a browser may show inline (content-policy.ts). Never counted, so never to a visitor of a
 * link with a download limit; text is drawn on the server, an SVG by its thumbnail.
 */
export function previewsContent(share: Pick<OpenShare, 'file' | 'previewable'>): boolean {
  return share.previewable && CONTENT_PREVIEW_KINDS.has(previewKind(share.file.mimeType));
}

/**
 * Counts one look at a file's share page (ADR 0066), by anyone but its owner, in the tally that
 * writes once a second: a view is not a download, so it tells no webhook and uses up nothing.
 * @public The pages call it through the load context (server/remix-context.ts), which knip does not follow.
 */
export function countPageView(ctx: ServiceContext, share: { fileId: string; isOwner: boolean }): void {
  if (!share.isOwner) ctx.downloads.add(share.fileId, 'views');
}

/** A new claim on the download just counted of a link's content (`etag`). */
export async function downloadClaim(ctx: ServiceContext, linkId: string, etag: string): Promise<DownloadClaim> {
  const token = await signDownloadClaim(linkId, etag, ctx.config.sessionSecret, nowSeconds(ctx));
  return { token, maxAgeSeconds: DOWNLOAD_CLAIM_TTL_SECONDS };
}

function nowSeconds(ctx: Pick<ServiceContext, 'clock'>): number {
  return Math.floor(ctx.clock.now() / 1000);
}

const TEXT_PREVIEW_BYTES = 64 * 1024;

/**
 * The start of an open text file for the share page, capped; null once its content is gone.
 * @public The pages call it through the load context (server/remix-context.ts), which knip does not follow.
 */
export async function readTextPreview(
  share: OpenShare,
  maxBytes = TEXT_PREVIEW_BYTES,
): Promise<{ text: string; truncated: boolean } | null> {
  if (share.size === 0) return { text: '', truncated: false };
  const chunks: Buffer[] = [];
  let content: OpenedContent;
  try {
    content = await share.open({ start: 0, end: Math.min(share.size, maxBytes) - 1 });
  } catch (error) {
    if (error instanceof ContentNotFoundError) return null; // deleted since the stat
    throw error;
  }
  for await (const chunk of content.stream) chunks.push(chunk as Buffer);
  // A multi-byte character cut by the cap decodes to U+FFFD at the very end: drop it.
  const text = new TextDecoder('utf-8').decode(Buffer.concat(chunks));
  const truncated = share.size > maxBytes;
  return { text: truncated ? text.replace(/\uFFFD$/, '') : text, truncated };
}

/**
 * The file behind a share link, in one query on every download: null when there is none or its
 * owner is disabled (ADR 0018). An id that cannot be one of ours never reaches the database.
 */
function findSharedFile(ctx: ServiceContext, fileId: string): Promise<StoredFile | null> {
  return isFileId(fileId) ? selectSharedFileById(ctx.sql, fileId) : Promise.resolve(null);
}
