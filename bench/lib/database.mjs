// The bench's own handle on the service's SQLite database: rows put straight in, and the list
// baseline's query.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { assert, log } from './log.mjs';

const require = createRequire(import.meta.url);

/** The list baseline's query and the API's file object, every field of it (docs/api.md), made in JavaScript. */
export const BARE_FILES_SELECT =
  'SELECT id, user_id, original_name, mime_type, size, stored_name, created_at, expires_at, max_downloads, downloads, password_hash FROM files WHERE user_id = ?';
export function bareApiFile(row) {
  return {
    id: row.id,
    userId: row.user_id,
    originalName: row.original_name,
    mimeType: row.mime_type,
    size: row.size,
    storedName: row.stored_name,
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
    maxDownloads: row.max_downloads,
    downloads: row.downloads,
    hasPassword: row.password_hash !== null,
  };
}

/** The bench's own handle on the service's SQLite database (run, all, a prepared insert). */
export function openDatabase(dataDir) {
  const sqlite3 = require('sqlite3');
  const db = new sqlite3.Database(path.join(dataDir, 'app.db'));
  const run = (sql, params = []) =>
    new Promise((resolve, reject) => db.run(sql, params, (e) => (e ? reject(e) : resolve())));
  const all = (sql, params = []) =>
    new Promise((resolve, reject) => db.all(sql, params, (e, rows) => (e ? reject(e) : resolve(rows))));
  const close = () => new Promise((resolve) => db.close(resolve));
  return { db, run, all, close };
}

/**
 * `count` file rows for `username`, inserted straight into SQLite in one transaction (as the list
 * phase does: no content on disk, which neither a search nor a page of the list reads).
 * `nameOf(i)` gives each name; the newest is i = count - 1. Resolves with the user's id.
 */
export async function seedFiles(dataDir, username, count, nameOf) {
  const { db, run, all, close } = openDatabase(dataDir);
  try {
    await run('PRAGMA busy_timeout = 10000');
    const [user] = await all('SELECT id FROM users WHERE username_key = ?', [username]);
    assert(user, `no user ${username}`);
    const [{ n }] = await all('SELECT count(*) AS n FROM files WHERE user_id = ?', [user.id]);
    assert(n === 0, `${username} already has ${n} files`);
    log(`${username}: inserting ${count} rows straight into SQLite`);
    const now = Date.now();
    await run('BEGIN');
    const insert = db.prepare(
      'INSERT INTO files (id, user_id, original_name, mime_type, size, stored_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    for (let i = 0; i < count; i++) {
      const id = randomBytes(16).toString('base64url');
      const name = nameOf(i);
      const ext = name.slice(name.lastIndexOf('.'));
      const mime = ext === '.jpg' ? 'image/jpeg' : ext === '.pdf' ? 'application/pdf' : 'text/plain';
      await new Promise((resolve, reject) =>
        insert.run([id, user.id, name, mime, 4096 + (i % 997), `${id}${ext}`, now - (count - i) * 1000], (e) =>
          e ? reject(e) : resolve(),
        ),
      );
    }
    await new Promise((resolve) => insert.finalize(resolve));
    await run('COMMIT');
    return user.id;
  } finally {
    await close();
  }
}
