// Conditional and range requests, RFC 9110 §13–14. Our own few lines rather than `fresh` and
// `range-parser`: those answer 416 where the RFC asks for the whole file (a suffix longer than
// the file, an invalid range) and let If-Modified-Since override a matching If-None-Match.
import type { IncomingMessage } from 'node:http';
import type { ByteRange } from '../storage/content-store';

export type Precondition = 'none' | 'not-modified' | 'failed';

/** RFC 9110 §13.2.2, in its order: If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since. */
export function evaluatePreconditions(req: IncomingMessage, etag: string, lastModifiedMs: number): Precondition {
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined) {
    if (!matchesEtag(ifMatch, etag, 'strong')) return 'failed';
  } else {
    const since = httpDate(req.headers['if-unmodified-since']);
    if (since !== null && lastModifiedMs > since) return 'failed';
  }
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesEtag(ifNoneMatch, etag, 'weak') ? 'not-modified' : 'none';
  const since = httpDate(req.headers['if-modified-since']);
  if (since !== null && lastModifiedMs <= since) return 'not-modified';
  return 'none';
}

function matchesEtag(list: string, etag: string, comparison: 'strong' | 'weak'): boolean {
  if (list.trim() === '*') return true;
  return list.split(',').some((candidate) => {
    const tag = candidate.trim();
    if (comparison === 'strong') return tag === etag;
    return tag === etag || tag === `W/${etag}`;
  });
}

function httpDate(value: string | undefined): number | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : time;
}

/** If-Range (RFC 9110 §13.1.5): a range applies only to the representation the client has. */
export function ifRangeHolds(req: IncomingMessage, etag: string, lastModifiedMs: number): boolean {
  const header = req.headers['if-range'];
  const ifRange = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!ifRange) return true;
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange === etag;
  return httpDate(ifRange) === lastModifiedMs;
}

/**
 * The Range header (RFC 9110 §14.1–14.2): null to ignore it (absent, another unit, invalid
 * syntax, or several disjoint ranges, answered with the whole content as the RFC allows),
 * 'unsatisfiable' when no range overlaps the content, or the one range to send.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!match) return null;
  const ranges: ByteRange[] = [];
  let specs = 0;
  for (const part of match[1].split(',')) {
    const spec = part.trim();
    if (!spec) continue;
    specs += 1;
    const parts = /^(\d*)-(\d*)$/.exec(spec);
    if (!parts || (!parts[1] && !parts[2])) return null;
    if (!parts[1]) {
      // bytes=-N: the last N bytes, or all of them when the content is shorter.
      const suffix = Number(parts[2]);
      if (suffix > 0 && size > 0) ranges.push({ start: Math.max(0, size - suffix), end: size - 1 });
      continue;
    }
    const start = Number(parts[1]);
    const last = parts[2] ? Number(parts[2]) : Infinity;
    if (last < start) return null;
    if (start < size) ranges.push({ start, end: Math.min(last, size - 1) });
  }
  if (specs === 0) return null;
  if (ranges.length === 0) return 'unsatisfiable';
  // Overlapping or adjacent ranges are one range.
  ranges.sort((a, b) => a.start - b.start);
  const merged = ranges.reduce<ByteRange[]>((acc, range) => {
    const last = acc[acc.length - 1];
    if (last && range.start <= last.end + 1) last.end = Math.max(last.end, range.end);
    else acc.push({ ...range });
    return acc;
  }, []);
  return merged.length === 1 ? merged[0] : null;
}
