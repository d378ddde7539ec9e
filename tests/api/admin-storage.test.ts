// The admin console's storage and settings over the API (ADR 0083): what the site stores in all
// and per user, what unfinished uploads hold, where, and the settings in force with every secret
// hidden. Admins only: anyone else gets 404. Runs on both backends.
import { UserSchema } from '../../server/db/entities/user.entity';
import { TEST_SECRET } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';
import { onPostgresS3 } from '../helpers/test-backend';

describe('the admin API’s storage and settings', () => {
  test.beforeAll(async ({ app, alice }) => {
    await app.orm.em.fork().nativeUpdate(UserSchema, { usernameKey: alice.username }, { isAdmin: true });
  });

  test('when someone who is not an admin asks, then both are 404', async ({ app, bob }) => {
    for (const path of ['/api/v1/admin/storage', '/api/v1/admin/settings']) {
      expect((await fetch(`${app.url}${path}`)).status).toBe(404);
      const res = await bob.fetch(path);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'Not found' });
    }
  });

  test('when an admin asks for the storage, then it counts every file, names the largest users first, and says where content lives', async ({
    alice,
    bob,
  }) => {
    await bob.upload('x'.repeat(300), 'big.txt');
    await bob.upload('y'.repeat(100), 'small.txt');
    await alice.upload('z'.repeat(50), 'mine.txt');
    const res = await alice.fetch('/api/v1/admin/storage');
    expect(res.status).toBe(200);
    const storage = await res.json();
    expect(storage).toMatchObject({ files: 3, bytes: 450, held: { bytes: 0, uploads: 0 } });
    expect(storage.largestUsers).toEqual([
      { username: 'bob', files: 2, bytes: 400 },
      { username: 'alice', files: 1, bytes: 50 },
    ]);
    if (onPostgresS3) {
      expect(storage.backend).toMatchObject({ kind: 'bucket' });
      expect(storage.space).toBeNull();
    } else {
      expect(storage.backend).toMatchObject({ kind: 'disk' });
      expect(storage.space.freeBytes).toBeGreaterThan(0);
      expect(storage.space.totalBytes).toBeGreaterThanOrEqual(storage.space.freeBytes);
    }
  });

  test('when an admin asks for the settings, then every variable is listed as set, and no secret or password is in the answer', async ({
    app,
    alice,
  }) => {
    const res = await alice.fetch('/api/v1/admin/settings');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(TEST_SECRET);
    const { settings } = JSON.parse(text) as { settings: Array<{ name: string; value: string | null }> };
    const byName = new Map(settings.map((setting) => [setting.name, setting.value]));
    expect(byName.get('SESSION_SECRET')).toBe('(set, hidden)');
    expect(byName.get('MAX_UPLOAD_BYTES')).toBeNull();
    expect(byName.has('PASSWORD_LOGIN')).toBe(true);
    if (onPostgresS3) {
      const database = new URL(app.env.DATABASE_URL);
      if (database.password) {
        expect(byName.get('DATABASE_URL')).toContain(':***@');
        expect(text).not.toContain(`:${database.password}@`);
      } else expect(byName.get('DATABASE_URL')).toBe(app.env.DATABASE_URL);
      expect(byName.get('S3_SECRET_ACCESS_KEY')).toBe('(set, hidden)');
      expect(text).not.toContain(app.env.S3_SECRET_ACCESS_KEY);
    }
  });
});
