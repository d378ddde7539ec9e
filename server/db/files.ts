// Statements on the `files` table beyond what the ORM's entity methods say.
import { raw } from '@mikro-orm/core';

/**
 * The two filters of the files whose link is gone (ADR 0014, ADR 0056): expired at `now`, or used
 * up its downloads with the last claim on them older than `claimsFrom`. Each is read through its
 * own index.
 */
export function goneFileFilters(now: Date, claimsFrom: Date) {
  return [
    { expiresAt: { $lte: now } },
    {
      maxDownloads: { $ne: null },
      downloads: { $gte: raw('max_downloads') },
      $or: [{ lastDownloadAt: null }, { lastDownloadAt: { $lte: claimsFrom } }],
    },
  ];
}
