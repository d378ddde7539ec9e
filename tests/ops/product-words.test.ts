// The repository speaks of the product: what it does and why. A numbered work period, a review
// pass, a bug-tracker number or a document that is not in the repository tells a reader nothing
// they can follow, so every tracked text file is read and each such line is listed as file:line.
// A rule worth citing is stated where it applies, or points to a file that is here (an ADR,
// docs/api.md, a test).
//
// The patterns below are written so that this file does not match itself: spaces are `\s` and
// the one bare word is joined from pieces. The test reads this file like any other.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/app';

const PROCESS_WORDS: RegExp[] = [
  // A numbered work period; a login session that lasts a number of minutes or days is the product's own.
  /\bsession[\s-]?\d+(?!\d)(?!\s?(seconds?|minutes?|hours?|days?|weeks?)\b)/i,
  /\bQA\b/i,
  // A review of the code, not the product's audit trail (its events, `/admin/audit`, `users audit`).
  /\b(an|this|the|security|code|last|previous)\s+audit\b(?![\s_-]*(trail|events?|entr|retention|actions?))/i,
  /\baudit\s+(found|showed|noted|said|findings?)\b/i,
  /\bauditors?\b/i,
  /\bfound\sby\b/i,
  /\bnoticed\sby\b/i,
  /\bissues?\s#?\d+/i,
  /\(issue\s/i,
  new RegExp(['\\bCON', 'TRACT\\b'].join('')),
  /\bcontract\.md\b/i,
  /\bstack\.md\b/i,
  /\bstyle\.md\b/i,
  /shared\/spec/i,
  /\bthe\sspec\b/i,
];

/** Tracked files that are not text to a reader: the lock file npm writes, and anything with a NUL byte. */
const SKIPPED = new Set(['package-lock.json']);

function trackedTextFiles(): { file: string; text: string }[] {
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const files: { file: string; text: string }[] = [];
  for (const file of listing.split('\0')) {
    if (!file || SKIPPED.has(file)) continue;
    const full = path.join(ROOT, file);
    // A tracked file deleted in the working tree has nothing to read.
    if (!fs.existsSync(full) || !fs.statSync(full).isFile()) continue;
    const bytes = fs.readFileSync(full);
    if (bytes.includes(0)) continue;
    files.push({ file, text: bytes.toString('utf8') });
  }
  return files;
}

describe('the words of the repository', () => {
  it('when the tracked files are read, then none speaks of how the project was made or cites a document outside the repository', () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const { file, text } of files) {
      text.split('\n').forEach((line, index) => {
        if (PROCESS_WORDS.some((pattern) => pattern.test(line))) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
