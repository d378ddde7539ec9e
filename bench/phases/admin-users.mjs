// The adminusers phase: the admin console's accounts at BENCH_ADMIN_USERS users. Each request
// is timed with the few accounts the bench starts with, then again once BENCH_ADMIN_USERS users
// (each with a file) are put straight into SQLite: the figure beside its own baseline.
import { randomBytes, randomUUID } from 'node:crypto';
import { timeToFirstByte } from '../client.mjs';
import { openDatabase } from '../lib/database.mjs';
import { assert, log } from '../lib/log.mjs';
import { record } from '../lib/results.mjs';
import { logIn } from '../lib/service.mjs';
import { S, SEEDED_USERS } from '../lib/settings.mjs';
import { median, rotate, round } from '../lib/stats.mjs';

/** What an admin asks of the list: its first page (HTML and JSON), sorted by bytes, a search, a late page. */
const REQUESTS = {
  page: '/admin',
  first: '/api/v1/admin/users',
  largest: '/api/v1/admin/users?sort=bytes&order=desc',
  search: '/api/v1/admin/users?q=member-004',
  late: '/api/v1/admin/users?page=150&sort=lastSignIn',
};

async function timeEach(port, cookie) {
  const ttfb = Object.fromEntries(Object.keys(REQUESTS).map((name) => [name, []]));
  for (let i = -3; i < S.adminUsersRequests; i++) {
    for (const name of rotate(Object.keys(REQUESTS), Math.max(i, 0))) {
      const res = await timeToFirstByte({ port, path: REQUESTS[name], cookie });
      assert(res.status === 200, `GET ${REQUESTS[name]}: ${res.status} ${res.text.slice(0, 300)}`);
      if (i >= 0) ttfb[name].push(res.ttfbMs);
    }
  }
  return ttfb;
}

/** `count` users with one file each, inserted in one transaction (no content on disk: the list reads rows). */
async function seedUsers(dataDir, count) {
  const { db, run, close } = openDatabase(dataDir);
  try {
    await run('PRAGMA busy_timeout = 10000');
    log(`adminusers: inserting ${count} users and a file each straight into SQLite`);
    const now = Date.now();
    await run('BEGIN');
    const user = db.prepare(
      'INSERT INTO users (id, username, username_key, password_hash, created_at, last_sign_in_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const file = db.prepare(
      'INSERT INTO files (id, user_id, original_name, mime_type, size, stored_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const insert = (statement, values) =>
      new Promise((resolve, reject) => statement.run(values, (e) => (e ? reject(e) : resolve())));
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      const name = `member-${String(i).padStart(5, '0')}`;
      await insert(user, [
        id,
        name,
        name,
        '$2b$10$notahashnotahashnotahashnotahashnotahashnotahashnota',
        now - i * 60_000,
        i % 3 ? now - i * 1000 : null,
      ]);
      const fileId = randomBytes(16).toString('base64url');
      await insert(file, [
        fileId,
        id,
        `file-${i}.pdf`,
        'application/pdf',
        1000 + (i % 5000) * 997,
        `${fileId}.pdf`,
        now - i * 1000,
      ]);
    }
    await Promise.all([user, file].map((statement) => new Promise((resolve) => statement.finalize(resolve))));
    await run('COMMIT');
  } finally {
    await close();
  }
}

export async function measureAdminUsers({ port, dataDir }) {
  const username = SEEDED_USERS.adminusers;
  const { run, close } = openDatabase(dataDir);
  await run('UPDATE users SET is_admin = 1 WHERE username_key = ?', [username]).finally(close);
  const cookie = await logIn(port, username);
  log(
    `adminusers: ${S.adminUsersRequests} × each of ${Object.keys(REQUESTS).length} requests, with the bench's few users`,
  );
  const few = await timeEach(port, cookie);
  await seedUsers(dataDir, S.adminUsers);
  log(`adminusers: the same with ${S.adminUsers} more users`);
  const many = await timeEach(port, cookie);
  for (const name of Object.keys(REQUESTS)) {
    record({
      group: 'adminusers',
      measure: `TTFB GET ${REQUESTS[name]}, ${S.adminUsers} users, p50 (ms)`,
      unit: 'ms',
      service: round(median(many[name])),
      baseline: round(median(few[name])),
      target: '< 200 ms',
      check: (service) => service < 200,
      note: 'baseline: the same request with the bench’s few users; one request at a time, a new connection each',
      samples: many[name].map((x) => round(x)),
    });
  }
}
