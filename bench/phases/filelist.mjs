// The filelist phase: time to first byte of "My files" with BENCH_FILELIST_FILES files.
import { timeToFirstByte } from '../client.mjs';
import { seedFiles } from '../lib/database.mjs';
import { assert, log } from '../lib/log.mjs';
import { record } from '../lib/results.mjs';
import { logIn } from '../lib/service.mjs';
import { S, SEEDED_USERS } from '../lib/settings.mjs';
import { median, rotate, round } from '../lib/stats.mjs';

/**
 * "My files" (GET /files, its first page) of a user with BENCH_FILELIST_FILES files: time to
 * first byte, sequentially, a new connection each, the table and ?view=gallery in turn (where
 * the gallery is not there, the page answers with its table).
 */
export async function measureFileList({ port, dataDir }) {
  await seedFiles(dataDir, SEEDED_USERS.filelist, S.filelistFiles, (i) => `listed-${i}.${i % 4 ? 'pdf' : 'jpg'}`);
  const cookie = await logIn(port, SEEDED_USERS.filelist);
  const newest = `listed-${S.filelistFiles - 1}.`;
  const views = { table: '/files', gallery: '/files?view=gallery' };
  const ttfb = { table: [], gallery: [] };
  const bytes = { table: 0, gallery: 0 };
  log(`filelist: ${S.filelistRequests} × GET /files and /files?view=gallery, ${S.filelistFiles} files`);
  for (let i = -3; i < S.filelistRequests; i++) {
    for (const view of rotate(Object.keys(views), Math.max(i, 0))) {
      const res = await timeToFirstByte({ port, path: views[view], cookie });
      assert(res.status === 200, `GET ${views[view]}: ${res.status} ${res.text.slice(0, 300)}`);
      assert(res.text.includes(newest), `GET ${views[view]} does not show the newest file (${newest}…)`);
      if (i < 0) continue; // the first three warm the route up
      ttfb[view].push(res.ttfbMs);
      bytes[view] = res.bytes;
    }
  }
  for (const view of Object.keys(views)) {
    record({
      group: 'filelist',
      measure: `TTFB My files GET ${views[view]}, ${S.filelistFiles} files, p50 (ms)`,
      unit: 'ms',
      service: round(median(ttfb[view])),
      note: `logged in; its first page, ${bytes[view]} bytes; one request at a time, a new connection each; informational`,
      samples: ttfb[view].map((x) => round(x)),
    });
  }
}
