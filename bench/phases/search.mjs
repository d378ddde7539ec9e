// The search phase: GET /api/v1/files?q= of a user with BENCH_SEARCH_FILES files.
import { requestJson } from '../client.mjs';
import { BARE_FILES_SELECT, bareApiFile, openDatabase, seedFiles } from '../lib/database.mjs';
import { assert, log } from '../lib/log.mjs';
import { record } from '../lib/results.mjs';
import { logIn } from '../lib/service.mjs';
import { S, SEEDED_USERS } from '../lib/settings.mjs';
import { median, percentile, round } from '../lib/stats.mjs';

/** The names of the search phase: one in a hundred has the word "holiday", none has "zebra". */
const SEARCH_WORDS = ['invoice', 'photo', 'scan', 'notes', 'backup', 'draft', 'report', 'slides'];
const searchName = (i) =>
  i % 100 === 0 ? `Holiday-${i}.jpg` : `${SEARCH_WORDS[i % SEARCH_WORDS.length]}-${i}.${i % 3 ? 'pdf' : 'txt'}`;

/**
 * Searching the list (ADR 0042): GET /api/v1/files?q=<word> of a user with BENCH_SEARCH_FILES
 * files, sequentially, for a word in 1 % of the names (any case) and for one in none.
 */
export async function measureSearch({ port, dataDir }) {
  const userId = await seedFiles(dataDir, SEEDED_USERS.search, S.searchFiles, searchName);
  const cookie = await logIn(port, SEEDED_USERS.search);
  const { all, close } = openDatabase(dataDir);
  const expected = Math.ceil(S.searchFiles / 100);
  for (const [word, count] of [
    ['holiday', expected],
    ['zebra', 0],
  ]) {
    const urlPath = `/api/v1/files?q=${word}`;
    for (let i = 0; i < 3; i++) await requestJson({ port, path: urlPath, cookie }); // warm-up
    log(`search: ${S.searchRequests} sequential GET ${urlPath}, ${S.searchFiles} files`);
    const ms = [];
    for (let i = 0; i < S.searchRequests; i++) {
      const res = await requestJson({ port, path: urlPath, cookie });
      assert(
        res.status === 200 && res.body.files.length === count,
        `search ${word}: ${res.status}, ${res.body?.files?.length} files`,
      );
      ms.push(res.ms);
    }
    // Baseline: the plain scan of the user's rows (no name index) and JSON with sqlite3 in the bench process, no HTTP.
    const bare = [];
    for (let i = 0; i < S.searchRequests; i++) {
      const t0 = process.hrtime.bigint();
      const rows = await all(
        `${BARE_FILES_SELECT} AND original_name LIKE ? ESCAPE '\\' ORDER BY created_at DESC, id DESC`,
        [userId, `%${word}%`],
      );
      assert(rows.length === count, `bare search ${word}: ${rows.length} rows`);
      JSON.stringify({ files: rows.map(bareApiFile) });
      bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const what = count ? `"${word}", in ${count} names (1 %)` : `"${word}", in no name`;
    record({
      group: 'search',
      measure: `GET /api/v1/files?q=${word} p50 (ms), ${S.searchFiles} files`,
      unit: 'ms',
      service: round(median(ms)),
      baseline: round(median(bare)),
      target: '< 50 ms',
      check: (s) => s < 50,
      note: `${what}; sequential, one connection each; the whole list of matches (no limit); baseline: a plain SELECT … LIKE over the user's rows + JSON.stringify with sqlite3 in the bench process (no HTTP)`,
      samples: { service: ms.map((x) => round(x)), baseline: bare.map((x) => round(x, 2)) },
    });
    record({
      group: 'search',
      measure: `GET /api/v1/files?q=${word} p95 (ms), ${S.searchFiles} files`,
      unit: 'ms',
      service: round(percentile(ms, 0.95)),
      baseline: round(percentile(bare, 0.95)),
      note: what,
    });
  }
  await close();
}
