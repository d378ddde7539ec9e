// A raw link the fast path ahead of Express does not serve (an unknown id, a gone link, a locked
// one) is answered by the Express route from what the fast path already read: the file is looked
// up once per request, not once on each path (ADR 0022). What the app asks its database is
// watched at the driver (sqlite3's statements, pg's client), the app's own code left as it is.
import pg from 'pg';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startSharingApp, type SharingApp } from './support';

let app: SharingApp;

beforeAll(async () => {
  app = await startSharingApp();
});
afterAll(() => app.close());

/** The statements on the files table, with `fileId` among their parameters, sent while `during` runs. */
async function fileLookupsDuring(fileId: string, during: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const note = (sql: unknown, params: unknown) => {
    if (typeof sql === 'string' && /[`"]files[`"]/.test(sql) && JSON.stringify(params ?? []).includes(fileId)) {
      seen.push(sql);
    }
  };
  const statement = sqlite3.Statement.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const database = sqlite3.Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const client = pg.Client.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const restore: Array<() => void> = [];
  const watch = (
    target: Record<string, (...args: unknown[]) => unknown>,
    name: string,
    look: (self: unknown, args: unknown[]) => void,
  ) => {
    const original = target[name];
    target[name] = function (this: unknown, ...args: unknown[]) {
      look(this, args);
      return original.apply(this, args);
    };
    restore.push(() => {
      target[name] = original;
    });
  };
  for (const name of ['all', 'get', 'run', 'each']) {
    watch(statement, name, (self, args) => note((self as { sql: string }).sql, args));
    watch(database, name, (_self, [sql, ...params]) => note(sql, params));
  }
  watch(client, 'query', (_self, [query, values]) =>
    typeof query === 'string'
      ? note(query, values)
      : note((query as pg.QueryConfig).text, (query as pg.QueryConfig).values),
  );
  try {
    await during();
  } finally {
    for (const undo of restore) undo();
  }
  return seen;
}

describe('a raw link the fast path passes on to Express', () => {
  it('when the id is unknown, then the 404 page is answered after one lookup of the file', async () => {
    const fileId = 'AAAAAAAAAAAAAAAAAAAAAA';
    let status = 0;
    const lookups = await fileLookupsDuring(fileId, async () => {
      status = (await request(`${app.url}/f/${fileId}/raw`)).status;
    });
    expect(status).toBe(404);
    expect(lookups).toHaveLength(1);
  });

  it('when the link is used up, then the 410 page is answered after one lookup of the file', async () => {
    const once = await app.upload('one download only', 'once.txt', 'text/plain', { maxDownloads: '1' });
    expect((await request(once.rawUrl)).status).toBe(200);
    let status = 0;
    const lookups = await fileLookupsDuring(once.file.id, async () => {
      status = (await request(once.rawUrl)).status;
    });
    expect(status).toBe(410);
    expect(lookups).toHaveLength(1);
  });

  it('when the link is locked by a password, then the 401 page is answered after one lookup of the file', async () => {
    const locked = await app.upload('secret', 'locked.txt', 'text/plain', { password: 'open sesame' });
    let status = 0;
    const lookups = await fileLookupsDuring(locked.file.id, async () => {
      status = (await request(locked.rawUrl)).status;
    });
    expect(status).toBe(401);
    expect(lookups).toHaveLength(1);
  });

  it('when the file is served, then it too is looked up once', async () => {
    const open = await app.upload('for everyone', 'open.txt', 'text/plain');
    let status = 0;
    const lookups = await fileLookupsDuring(open.file.id, async () => {
      status = (await request(open.rawUrl)).status;
    });
    expect(status).toBe(200);
    expect(lookups).toHaveLength(1);
  });
});
