// The internal tRPC door of the share settings (ADR 0014): the list carries them, and
// files.updateShare changes them with the same rules and messages as the API's PATCH.
import { describe, expect } from 'vitest';
import { type SharingApp, test } from './support';

function updateShare(app: SharingApp, id: string, settings: Record<string, unknown>, cookie = app.cookie) {
  return fetch(`${app.url}/trpc/files.updateShare`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ id, settings }),
  });
}

describe('tRPC files.updateShare', () => {
  test('when the owner changes the settings, then the result and the API list carry them, never the password', async ({
    app,
  }) => {
    const { file } = await app.upload('trpc', 'trpc.txt', 'text/plain');
    const res = await updateShare(app, file.id, { expiresIn: 7200, maxDownloads: 2, password: 'trpc secret' });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('trpc secret');
    const updated = JSON.parse(text).result.data;
    expect(updated).toMatchObject({
      id: file.id,
      maxDownloads: 2,
      downloads: 0,
      hasPassword: true,
      url: `${app.url}/f/${file.id}`,
    });
    expect(Date.parse(updated.expiresAt)).toBeGreaterThan(Date.now() + 7200_000 - 60_000);

    const list = (await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie: app.cookie } })).json()).files;
    expect(list.find((f: { id: string }) => f.id === file.id)).toMatchObject({ maxDownloads: 2, hasPassword: true });
  });

  test('when a value is bad, then BAD_REQUEST with the same message as the API, and nothing changes', async ({
    app,
  }) => {
    const { file } = await app.upload('trpc bad', 'bad.txt', 'text/plain');
    const res = await updateShare(app, file.id, { maxDownloads: 0 });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.data.code).toBe('BAD_REQUEST');
    expect(body.error.message).toBe('maxDownloads must be at least 1');
    const [row] = await app.rows('select max_downloads from files where id = ?', [file.id]);
    expect(row.max_downloads).toBeNull();
  });

  test("when another user changes someone's settings, then FORBIDDEN and nothing changes", async ({ app, bob }) => {
    const { file } = await app.upload('trpc mine', 'mine.txt', 'text/plain');
    const res = await updateShare(app, file.id, { password: 'taken over' }, bob.cookie);
    expect(res.status).toBe(403);
    expect((await res.json()).error.data.code).toBe('FORBIDDEN');
    const [row] = await app.rows('select password_hash from files where id = ?', [file.id]);
    expect(row.password_hash).toBeNull();
  });
});
