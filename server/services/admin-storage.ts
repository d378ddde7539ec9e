// The admin console's storage and settings (ADR 0083): what the site stores in all and per
// user (largest first), what unfinished uploads hold, where content lives and how much room is
// left there when that can be known; and the settings in force, secrets hidden. Admins only
// (anyone else: NOT_FOUND).
import fs from 'node:fs/promises';
import type { SettingInForce } from '../config';
import type { ServiceContext } from '../context';
import { selectAccountsPage } from '../db/accounts-page';
import { countAllFilesAndBytes, sumHeldBytesByUser } from '../db/usage';
import { requireAdmin } from './admins';

/** The users the storage page names, largest first. */
const LARGEST_USERS = 20;

export interface StorageOverview {
  files: number;
  bytes: number;
  /** Bytes held against quotas by uploads not yet finished, and how many uploads hold them. */
  held: { bytes: number; uploads: number };
  largestUsers: Array<{ username: string; files: number; bytes: number }>;
  /** Where the content lives: a folder on this machine, or a bucket. */
  backend: { kind: 'disk'; folder: string } | { kind: 'bucket'; bucket: string; endpoint: string | null };
  /** Free bytes where content is written (disk), and the whole of that disk; null for a bucket or when unknown. */
  space: { freeBytes: number; totalBytes: number } | null;
}

async function diskSpace(folder: string): Promise<StorageOverview['space']> {
  try {
    const stats = await fs.statfs(folder);
    return { freeBytes: stats.bavail * stats.bsize, totalBytes: stats.blocks * stats.bsize };
  } catch {
    return null;
  }
}

export async function storageOverview(ctx: ServiceContext): Promise<StorageOverview> {
  await requireAdmin(ctx);
  const largest = await selectAccountsPage(ctx.em, {
    search: '',
    sort: 'bytes',
    descending: true,
    limit: LARGEST_USERS,
    offset: 0,
  });
  const byUser = await sumHeldBytesByUser(ctx.em);
  const held = { bytes: 0, uploads: 0 };
  for (const one of byUser.values()) {
    held.bytes += one.bytes;
    held.uploads += one.uploads;
  }
  const totals = await countAllFilesAndBytes(ctx.em);
  const { storage } = ctx.config;
  return {
    ...totals,
    held,
    largestUsers: largest
      .filter((row) => Number(row.files) > 0)
      .map((row) => ({ username: row.username, files: Number(row.files), bytes: Number(row.bytes ?? 0) })),
    backend:
      storage.kind === 'disk'
        ? { kind: 'disk', folder: storage.dir }
        : { kind: 'bucket', bucket: storage.bucket, endpoint: storage.endpoint ?? null },
    space: storage.kind === 'disk' ? await diskSpace(storage.dir) : null,
  };
}

/** Every variable the service reads, as set (secrets hidden), or null when left to its default. */
export async function settingsInForce(ctx: ServiceContext): Promise<readonly SettingInForce[]> {
  await requireAdmin(ctx);
  return ctx.config.settingsInForce;
}
