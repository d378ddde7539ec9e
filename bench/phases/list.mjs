// The list phase: GET /api/v1/files of BENCH_LIST_FILES files against the same query and JSON
// made with sqlite3 in the bench process.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { requestJson } from '../client.mjs';
import { BARE_FILES_SELECT, bareApiFile } from '../lib/database.mjs';
import { assert, log } from '../lib/log.mjs';
import { record } from '../lib/results.mjs';
import { MiB, S } from '../lib/settings.mjs';
import { median, percentile, round } from '../lib/stats.mjs';

const require = createRequire(import.meta.url);

export async function measureList({ port, cookie, dataDir, serviceRss }) {
  const sqlite3 = require('sqlite3');
  const db = new sqlite3.Database(path.join(dataDir, 'app.db'));
  const run = (sql, params = []) =>
    new Promise((resolve, reject) => db.run(sql, params, (e) => (e ? reject(e) : resolve())));
  const all = (sql, params = []) =>
    new Promise((resolve, reject) => db.all(sql, params, (e, rows) => (e ? reject(e) : resolve(rows))));
  try {
    await run('PRAGMA busy_timeout = 10000');
    const [user] = await all("SELECT id FROM users WHERE username_key = 'bench'");
    const [{ n }] = await all('SELECT count(*) AS n FROM files WHERE user_id = ?', [user.id]);
    const missing = Math.max(0, S.listFiles - n);
    log(`list: the user has ${n} files; inserting ${missing} rows straight into SQLite`);
    // created_at as MikroORM writes a Date here: an integer of milliseconds (checked on a real row).
    const [sample] = await all('SELECT typeof(created_at) AS t FROM files LIMIT 1');
    assert(!sample || sample.t === 'integer', `unexpected created_at storage: ${sample?.t}`);
    const now = Date.now();
    await run('BEGIN');
    for (let i = 0; i < missing; i++) {
      const id = randomBytes(16).toString('base64url');
      await run(
        'INSERT INTO files (id, user_id, original_name, mime_type, size, stored_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [id, user.id, `listed-${i}.txt`, 'text/plain', 4096, `${id}.txt`, now - (missing - i) * 1000],
      );
    }
    await run('COMMIT');

    const path_ = '/api/v1/files';
    for (let i = 0; i < 3; i++) await requestJson({ port, path: path_, cookie }); // warm-up
    log(`list: ${S.listRequests} sequential GET ${path_} with ${S.listFiles} files`);
    const service = [];
    let bytes = 0;
    serviceRss.start();
    for (let i = 0; i < S.listRequests; i++) {
      const res = await requestJson({ port, path: path_, cookie });
      assert(
        res.status === 200 && res.body.files.length === Math.max(n, S.listFiles),
        `list ${res.status}, ${res.body?.files?.length} files`,
      );
      service.push(res.ms);
      bytes = res.bytes;
    }
    const rss = serviceRss.stop();

    // Baseline: the same query and JSON shape with sqlite3 directly, no HTTP.
    const bare = [];
    for (let i = 0; i < S.listRequests; i++) {
      const t0 = process.hrtime.bigint();
      const rows = await all(`${BARE_FILES_SELECT} ORDER BY created_at DESC, id DESC`, [user.id]);
      JSON.stringify({ files: rows.map(bareApiFile) });
      bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    // One page of 100 (keyset pagination, ?limit=100), the way a client that pages would ask.
    const page = [];
    for (let i = 0; i < S.listRequests; i++) {
      const res = await requestJson({ port, path: `${path_}?limit=100`, cookie });
      assert(res.status === 200 && res.body.files.length === 100 && res.body.nextCursor, `list page ${res.status}`);
      page.push(res.ms);
    }
    const barePage = [];
    for (let i = 0; i < S.listRequests; i++) {
      const t0 = process.hrtime.bigint();
      const rows = await all(`${BARE_FILES_SELECT} ORDER BY created_at DESC, id DESC LIMIT 101`, [user.id]);
      JSON.stringify({ files: rows.slice(0, 100).map(bareApiFile) });
      barePage.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }

    const note = `baseline: the same SELECT + JSON.stringify with sqlite3 in the bench process (no HTTP); body ${round(bytes / MiB, 2)} MiB`;
    record({
      group: 'list',
      measure: `GET /api/v1/files p50 (ms), ${S.listFiles} files`,
      unit: 'ms',
      service: round(median(service)),
      baseline: round(median(bare)),
      target: '≤ 1.30',
      check: (_s, ratio) => ratio <= 1.3,
      note,
      samples: { service: service.map((x) => round(x)), baseline: bare.map((x) => round(x, 2)) },
    });
    record({
      group: 'list',
      measure: `GET /api/v1/files p99 (ms), ${S.listFiles} files`,
      unit: 'ms',
      service: round(percentile(service, 0.99)),
      baseline: round(percentile(bare, 0.99)),
      note,
    });
    record({
      group: 'list',
      measure: 'GET /api/v1/files?limit=100 p50 (ms)',
      unit: 'ms',
      service: round(median(page)),
      baseline: round(median(barePage)),
      note: `first page of 100 of the same ${S.listFiles}; baseline: SELECT … LIMIT 101 + JSON.stringify`,
    });
    record({
      group: 'list',
      measure: 'GET /api/v1/files?limit=100 p99 (ms)',
      unit: 'ms',
      service: round(percentile(page, 0.99)),
      baseline: round(percentile(barePage, 0.99)),
    });
    record({
      group: 'list',
      measure: 'peak RSS listing (MB)',
      unit: 'MB',
      service: rss.peakMb,
      note: 'informational',
      detail: rss,
    });
  } finally {
    await new Promise((resolve) => db.close(resolve));
  }
}
