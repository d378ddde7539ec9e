// The share settings of a file (ADR 0014): when its link expires, how many downloads it allows,
// and its password. Validated here for every door; the server's MAX_EXPIRY and DEFAULT_EXPIRY
// are applied here too.
import { hashPassword } from '../auth/passwords';
import type { Config } from '../config';
import type { ServiceContext } from '../context';
import type { StoredFile } from '../db/entities/file.entity';
import { AppError } from '../utilities/errors';
import { firstIssue, shareSettingsSchema, type ShareSettings } from '../schemas';

/** The columns the settings live in. */
export type ShareColumns = Pick<StoredFile, 'expiresAt' | 'maxDownloads' | 'passwordHash'>;

/** Parses the settings of any door; a bad value is a 400 with one clear line. */
export function parseShareSettings(input: unknown): ShareSettings {
  // Most uploads send no settings: what the schema makes of an empty object, without its work.
  if (input === undefined || input === null || isEmptyPlainObject(input)) return {};
  const parsed = shareSettingsSchema.safeParse(input);
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  return parsed.data;
}

/**
 * The settings of a new upload: what the uploader chose, the server's default expiry otherwise.
 * `expiresAfterMs`: a relative expiry (expiresIn, or the default) as a length, so that it counts
 * from when the file is made, not from the upload's first byte; null for a fixed date or never.
 */
export async function newShareColumns(
  ctx: Pick<ServiceContext, 'config' | 'clock'>,
  input: unknown,
): Promise<ShareColumns & { expiresAfterMs: number | null }> {
  const settings = parseShareSettings(input);
  const chosen = expiryOf(ctx, settings);
  const { defaultSeconds } = ctx.config.shareExpiry;
  const expiresAt =
    chosen !== undefined ? chosen : defaultSeconds === null ? null : new Date(ctx.clock.now() + defaultSeconds * 1000);
  checkWithinMaximum(ctx, expiresAt);
  const relativeSeconds =
    typeof settings.expiresIn === 'number' ? settings.expiresIn : chosen === undefined ? defaultSeconds : null;
  return {
    expiresAt,
    expiresAfterMs: relativeSeconds === null ? null : relativeSeconds * 1000,
    maxDownloads: settings.maxDownloads ?? null,
    passwordHash: settings.password ? await hashPassword(settings.password) : null,
  };
}

/**
 * The columns a change of settings writes: only the keys it names. A limit must stay above
 * the downloads already made (else the link would be used up at once: delete it instead).
 */
export async function changedShareColumns(
  ctx: Pick<ServiceContext, 'config' | 'clock'>,
  file: Pick<StoredFile, 'downloads'>,
  input: unknown,
): Promise<Partial<ShareColumns>> {
  const settings = parseShareSettings(input);
  const changes: Partial<ShareColumns> = {};
  const expiresAt = expiryOf(ctx, settings);
  if (expiresAt !== undefined) {
    checkWithinMaximum(ctx, expiresAt);
    changes.expiresAt = expiresAt;
  }
  if (settings.maxDownloads !== undefined) {
    if (settings.maxDownloads !== null && settings.maxDownloads <= file.downloads) {
      throw new AppError('BAD_REQUEST', `maxDownloads must be more than the ${file.downloads} downloads so far`);
    }
    changes.maxDownloads = settings.maxDownloads;
  }
  if (settings.password !== undefined) {
    changes.passwordHash = settings.password === null ? null : await hashPassword(settings.password);
  }
  return changes;
}

/** The expiry the settings name: a date, null for never, undefined when they name none. */
function expiryOf(ctx: Pick<ServiceContext, 'clock'>, settings: ShareSettings): Date | null | undefined {
  const now = ctx.clock.now();
  if (settings.expiresIn !== undefined)
    return settings.expiresIn === 'never' ? null : new Date(now + settings.expiresIn * 1000);
  if (settings.expiresAt === undefined || settings.expiresAt === null) return settings.expiresAt;
  const expiresAt = new Date(settings.expiresAt);
  if (expiresAt.getTime() <= now) throw new AppError('BAD_REQUEST', 'expiresAt must be in the future');
  return expiresAt;
}

/** With MAX_EXPIRY set, every link expires, and no later than that from now. */
function checkWithinMaximum(ctx: Pick<ServiceContext, 'config' | 'clock'>, expiresAt: Date | null): void {
  const { maxSeconds } = ctx.config.shareExpiry;
  if (maxSeconds === null) return;
  if (expiresAt === null || expiresAt.getTime() > ctx.clock.now() + maxSeconds * 1000) {
    throw new AppError('BAD_REQUEST', `Links on this server must expire within ${describeSeconds(maxSeconds)}`);
  }
}

/** 2592000 → "30 days", 5400 → "90 minutes". */
function describeSeconds(seconds: number): string {
  const units: Array<[number, string]> = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  // The largest unit that divides it (whole seconds always do).
  const [size, name] = units.find(([unit]) => seconds % unit === 0) ?? [1, 'second'];
  const count = seconds / size;
  return `${count} ${name}${count === 1 ? '' : 's'}`;
}

export type GoneReason = 'expired' | 'used-up';

export const GONE_MESSAGES: Record<GoneReason, string> = {
  expired: 'This link has expired.',
  'used-up': 'This link has reached its download limit.',
};

/** Why a file's link no longer opens, or null while it does. */
export function goneReason(
  file: Pick<StoredFile, 'expiresAt' | 'maxDownloads' | 'downloads'>,
  now: number,
): GoneReason | null {
  if (file.expiresAt !== null && new Date(file.expiresAt).getTime() <= now) return 'expired';
  if (file.maxDownloads !== null && file.downloads >= file.maxDownloads) return 'used-up';
  return null;
}

/** The expiry presets of the pages' forms. */
const EXPIRY_PRESETS: ReadonlyArray<[seconds: number, label: string]> = [
  [3600, '1 hour'],
  [86400, '1 day'],
  [7 * 86400, '7 days'],
  [30 * 86400, '30 days'],
];

export interface ExpiryChoice {
  /** The `expiresIn` value: seconds, or "never". */
  value: string;
  label: string;
}

/** The expiry presets this server allows, and the one an upload gets when none is chosen. */
export function expiryChoices(config: Pick<Config, 'shareExpiry'>): { choices: ExpiryChoice[]; defaultValue: string } {
  const { maxSeconds, defaultSeconds } = config.shareExpiry;
  const choices = EXPIRY_PRESETS.filter(([seconds]) => maxSeconds === null || seconds <= maxSeconds).map(
    ([seconds, label]) => ({
      value: String(seconds),
      label,
    }),
  );
  if (maxSeconds === null) choices.push({ value: 'never', label: 'Never' });
  const defaultValue = defaultSeconds === null ? 'never' : String(defaultSeconds);
  if (defaultSeconds !== null && !choices.some((choice) => choice.value === defaultValue)) {
    choices.push({ value: defaultValue, label: describeSeconds(defaultSeconds) });
    choices.sort((a, b) => (a.value === 'never' ? 1 : b.value === 'never' ? -1 : Number(a.value) - Number(b.value)));
  }
  return { choices, defaultValue };
}

function isEmptyPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const _key in value) return false;
  return true;
}
