// Renaming a file (ADR 0040): PATCH /api/v1/files/<id> with `originalName`, and the internal
// tRPC files.rename. The name shown and downloaded changes; the content and the link do not.
import contentDisposition from 'content-disposition';
import { sampleOf } from '../helpers/file-samples';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';

function patchFile(user: TestUser, id: string, body: unknown, headers: Record<string, string> = {}) {
  return user.fetch(`/api/v1/files/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function listed(user: TestUser, id: string) {
  const { files } = (await (await user.fetch('/api/v1/files')).json()) as { files: Array<{ id: string }> };
  return files.find((file) => file.id === id) as Record<string, unknown> | undefined;
}

/** The name the raw link's Content-Disposition carries (its exact UTF-8 form), and the bytes. */
async function download(url: string, id: string) {
  const res = await fetch(`${url}/f/${id}/raw?download=1`);
  expect(res.status).toBe(200);
  const name = contentDisposition.parse(res.headers.get('content-disposition') ?? '').parameters.filename;
  return { name, text: await res.text() };
}

/** The name the public share page shows as its heading. */
async function pageHeading(url: string, id: string) {
  const html = await (await fetch(`${url}/f/${id}`)).text();
  return /<h1 class="file-name">([^<]*)<\/h1>/.exec(html)?.[1];
}

function renameByTrpc(url: string, cookie: string, id: string, originalName: unknown) {
  return fetch(`${url}/trpc/files.rename`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ id, originalName }),
  });
}

describe('PATCH /api/v1/files/<id> with originalName', () => {
  test('when the owner renames a file, then the list, the share page and the download’s Content-Disposition carry the new name, and the content and link are unchanged', async ({
    app,
    alice,
  }) => {
    const { file, url } = await alice.upload('the report itself', 'draft.txt', 'text/plain');
    const res = await patchFile(alice, file.id, { originalName: 'Annual report 2026 — final.txt' });
    expect(res.status).toBe(200);
    const { file: renamed } = await res.json();
    expect(renamed).toEqual({ ...file, originalName: 'Annual report 2026 — final.txt' });

    expect(await listed(alice, file.id)).toMatchObject({ originalName: 'Annual report 2026 — final.txt' });
    expect(await pageHeading(app.url, file.id)).toBe('Annual report 2026 — final.txt');
    expect(await download(app.url, file.id)).toEqual({
      name: 'Annual report 2026 — final.txt',
      text: 'the report itself',
    });
    expect(url).toBe(`${app.url}/f/${file.id}`);
    expect((await app.readStored(file.storedName))?.toString('utf8')).toBe('the report itself');
  });

  test('when the new name has control or bidi characters, spaces around it or is too long, then it is cleaned as an upload’s name is', async ({
    alice,
  }) => {
    const { file } = await alice.upload('x', 'plain.txt', 'text/plain');
    const cleaned = async (originalName: string) => {
      const res = await patchFile(alice, file.id, { originalName });
      expect(res.status).toBe(200);
      return (await res.json()).file.originalName as string;
    };
    expect(await cleaned('  evil\u202egpj.exe\u0000 ')).toBe('evilgpj.exe');
    const long = await cleaned(`${'a'.repeat(400)}.pdf`);
    expect(Array.from(long)).toHaveLength(255);
    expect(long.endsWith('.pdf')).toBe(true);
  });

  test('when the new name is empty, blank, not text or only control characters, then 400 with the reason and nothing changes', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload('kept', 'kept.txt', 'text/plain');
    const refusals: Array<[unknown, string]> = [
      ['', 'originalName must not be empty'],
      ['   ', 'originalName must not be empty'],
      ['\u0001\u202e\u200f', 'originalName must not be empty'],
      [null, 'originalName must be a string'],
      [42, 'originalName must be a string'],
      [['a.txt'], 'originalName must be a string'],
    ];
    for (const [originalName, message] of refusals) {
      const res = await patchFile(alice, file.id, { originalName });
      expect(res.status, JSON.stringify(originalName)).toBe(400);
      expect(await res.json()).toEqual({ error: message });
    }
    // With settings too: a bad name changes none of them, and a bad setting does not rename.
    expect((await patchFile(alice, file.id, { originalName: '', maxDownloads: 3 })).status).toBe(400);
    expect((await patchFile(alice, file.id, { originalName: 'new.txt', maxDownloads: 0 })).status).toBe(400);
    expect(await listed(alice, file.id)).toMatchObject({ originalName: 'kept.txt', maxDownloads: null });
    expect((await download(app.url, file.id)).name).toBe('kept.txt');
  });

  test('when the name comes with share settings, then both change in one request', async ({ alice }) => {
    const { file } = await alice.upload('both', 'both.txt', 'text/plain');
    const res = await patchFile(alice, file.id, { originalName: 'both renamed.txt', maxDownloads: 5 });
    expect(res.status).toBe(200);
    expect((await res.json()).file).toMatchObject({ originalName: 'both renamed.txt', maxDownloads: 5 });
  });

  test("when another user renames someone's file, then 403, an unknown id 404, and the name stays", async ({
    alice,
    bob,
  }) => {
    const { file } = await alice.upload('mine', 'mine.txt', 'text/plain');
    const res = await patchFile(bob, file.id, { originalName: 'taken.txt' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'Forbidden' });
    const unknown = await patchFile(bob, 'AAAAAAAAAAAAAAAAAAAAAA', { originalName: 'taken.txt' });
    expect(unknown.status).toBe(404);
    expect(await listed(alice, file.id)).toMatchObject({ originalName: 'mine.txt' });
  });

  test('when a script renames with an API token, then the file is renamed', async ({ app, alice }) => {
    const token = await alice.createToken('renamer');
    const { file } = await alice.upload(sampleOf('image/jpeg'), 'IMG_0001.jpg', 'image/jpeg');
    const res = await fetch(`${app.url}/api/v1/files/${file.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ originalName: 'beach.jpg' }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).file).toMatchObject({ originalName: 'beach.jpg', mimeType: 'image/jpeg' });
    expect((await download(app.url, file.id)).name).toBe('beach.jpg');
  });

  test('when a link has expired, then its owner may still rename the file, but not change its settings', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload('old', 'old.txt', 'text/plain', { expiresIn: '1' });
    // SQLite keeps times as milliseconds, PostgreSQL as timestamptz.
    const past = Date.now() - 60_000;
    await app.rows('update files set expires_at = ? where id = ?', [
      app.config.database.dialect === 'sqlite' ? past : new Date(past),
      file.id,
    ]);
    expect((await patchFile(alice, file.id, { originalName: 'archived.txt' })).status).toBe(200);
    expect((await patchFile(alice, file.id, { maxDownloads: 3 })).status).toBe(410);
    expect(await listed(alice, file.id)).toMatchObject({ originalName: 'archived.txt', maxDownloads: null });
  });
});

describe('tRPC files.rename', () => {
  test('when the owner renames a file, then the result and the API list carry the new name', async ({ app, alice }) => {
    const { file } = await alice.upload('trpc', 'trpc.txt', 'text/plain');
    const res = await renameByTrpc(app.url, alice.cookie, file.id, 'renamed by trpc.txt');
    expect(res.status).toBe(200);
    expect((await res.json()).result.data).toMatchObject({
      id: file.id,
      originalName: 'renamed by trpc.txt',
      url: `${app.url}/f/${file.id}`,
    });
    expect(await listed(alice, file.id)).toMatchObject({ originalName: 'renamed by trpc.txt' });
  });

  test('when the name is bad, then BAD_REQUEST with the API’s message; another user’s file is FORBIDDEN', async ({
    app,
    alice,
    bob,
  }) => {
    const { file } = await alice.upload('trpc', 'trpc-kept.txt', 'text/plain');
    const bad = await renameByTrpc(app.url, alice.cookie, file.id, ' ');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toBe('originalName must not be empty');
    const other = await renameByTrpc(app.url, bob.cookie, file.id, 'taken.txt');
    expect(other.status).toBe(403);
    expect((await other.json()).error.data.code).toBe('FORBIDDEN');
    expect(await listed(alice, file.id)).toMatchObject({ originalName: 'trpc-kept.txt' });
  });
});
