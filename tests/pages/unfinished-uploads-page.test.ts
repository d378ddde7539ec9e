// The files page's list of unfinished resumable uploads and its Cancel, as a browser without
// JavaScript uses them: plain GETs and form POSTs. Each upload holds its whole size against the
// quota until it finishes or is cancelled; only its owner sees it and can cancel it.
import type { TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';
import { getPage, postForm, visibleText } from '../helpers/pages-fixtures';
import { tusClient } from '../helpers/tus';

const QUOTA = 100_000;
test.override('appEnv', { DEFAULT_QUOTA_BYTES: String(QUOTA) });

let users = 0;
async function newUser(app: TestApp): Promise<string> {
  const name = `paused${++users}`;
  await app.createUser(name);
  return app.login(name);
}

/** A resumable upload of `length` bytes with `received` of them in; its id. */
async function unfinishedUpload(
  app: TestApp,
  cookie: string,
  filename: string,
  length: number,
  received: number,
): Promise<string> {
  const tus = tusClient(app.url, cookie);
  const begun = await tus.create(length, { filename });
  expect(begun.status).toBe(201);
  const location = begun.headers.get('location')!;
  if (received > 0) expect((await tus.patch(location, 0, new Uint8Array(received))).status).toBe(204);
  return location.slice(location.lastIndexOf('/') + 1);
}

async function filesPage(app: TestApp, cookie: string): Promise<string> {
  const res = await getPage(app, '/files', cookie);
  expect(res.status).toBe(200);
  return res.text();
}

/** The section's rows as a reader sees them, one text per upload. */
function unfinishedRows(html: string): string[] {
  const section = /<section[^>]*class="unfinished-uploads"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
  return [...section.matchAll(/<tr[^>]*data-upload-id="[^"]+"[\s\S]*?<\/tr>/g)].map((row) => visibleText(row[0]));
}

async function uploadRow(app: TestApp, id: string) {
  const [row] = await app.rows('select id, received_bytes from resumable_uploads where id = ?', [id]);
  return row;
}

describe('unfinished uploads on the files page', () => {
  test('when a user has nothing unfinished, then the page has no section for it and says nothing is held', async ({
    app,
  }) => {
    const html = await filesPage(app, await newUser(app));
    expect(html).not.toContain('unfinished-uploads');
    expect(visibleText(html)).not.toMatch(/unfinished|held/i);
  });

  test('when a user has unfinished uploads, then each shows its name (escaped), size, bytes received and start, newest first, and the usage says what they hold', async ({
    app,
  }) => {
    const cookie = await newUser(app);
    const before = Date.now();
    await unfinishedUpload(app, cookie, '<b>report</b>.pdf', 30_720, 10_240);
    await unfinishedUpload(app, cookie, 'empty so far.bin', 2048, 0);
    const html = await filesPage(app, cookie);
    expect(html).not.toContain('<b>report</b>');
    expect(html).toContain('&lt;b&gt;report&lt;/b&gt;.pdf');
    const started = new Date(before).toISOString().slice(0, 10);
    const rows = unfinishedRows(html);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(
      new RegExp(`^empty so far\\.bin 2 KiB 0 bytes \\(0%\\) received ${started} \\d\\d:\\d\\d UTC Cancel$`),
    );
    expect(rows[1]).toMatch(
      new RegExp(`^<b>report</b>\\.pdf 30 KiB 10 KiB \\(33%\\) received ${started} \\d\\d:\\d\\d UTC Cancel$`),
    );
    expect(visibleText(html)).toContain('0 bytes of 100 kB used (0%) by 0 files · 33 kB held by 2 unfinished uploads');
    expect(html).toContain('aria-label="Cancel the upload of &lt;b&gt;report&lt;/b&gt;.pdf"');
  });

  test('when another user has unfinished uploads, then this user never sees them', async ({ app }) => {
    const owner = await newUser(app);
    const id = await unfinishedUpload(app, owner, 'private-plans.txt', 5000, 100);
    const html = await filesPage(app, await newUser(app));
    expect(html).not.toContain('private-plans');
    expect(html).not.toContain(id);
    expect(unfinishedRows(html)).toEqual([]);
  });

  test('when the owner presses Cancel without JavaScript, then the upload and its bytes go, its hold is freed, and the list comes back without it', async ({
    app,
  }) => {
    const cookie = await newUser(app);
    const id = await unfinishedUpload(app, cookie, 'abandoned.iso', 90_000, 4096);
    const [{ stored_name: storedName }] = await app.rows('select stored_name from resumable_uploads where id = ?', [
      id,
    ]);
    expect((await app.partialContent()).join()).toContain(storedName);
    // Holding 90,000 of 100,000 bytes: a 20,000-byte upload does not fit.
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(20_000)]), 'next.bin');
    expect((await fetch(`${app.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form })).status).toBe(
      413,
    );

    const res = await postForm(app, `/uploads/${id}/cancel`, {}, { cookie });
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get('location')).toBe('/files');
    expect(await uploadRow(app, id)).toBeUndefined();
    expect((await app.partialContent()).join()).not.toContain(storedName);
    const html = await filesPage(app, cookie);
    expect(unfinishedRows(html)).toEqual([]);
    expect(html).not.toContain('unfinished-uploads');
    const me = await (await fetch(`${app.url}/api/v1/me`, { headers: { cookie } })).json();
    expect(me.usage).toMatchObject({ heldBytes: 0, unfinishedUploads: 0 });
    expect((await fetch(`${app.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form })).status).toBe(
      201,
    );
  });

  test('when another user posts Cancel for an upload not theirs, then it is the not-found page and the upload carries on', async ({
    app,
  }) => {
    const owner = await newUser(app);
    const id = await unfinishedUpload(app, owner, 'mine.bin', 3000, 1000);
    const res = await postForm(app, `/uploads/${id}/cancel`, {}, { cookie: await newUser(app) });
    expect(res.status).toBe(404);
    expect(visibleText(await res.text())).toContain(
      'This upload is not there any more: it finished, was cancelled or expired.',
    );
    expect(await uploadRow(app, id)).toMatchObject({ id });
    const tus = tusClient(app.url, owner);
    // Its last bytes make it a file.
    expect((await tus.patch(`${app.url}/api/v1/uploads/${id}`, 1000, new Uint8Array(2000))).status).toBe(200);
  });

  test('when a Cancel comes from another site, or without a session, then it is refused and the upload stays', async ({
    app,
  }) => {
    const cookie = await newUser(app);
    const id = await unfinishedUpload(app, cookie, 'kept.bin', 3000, 0);
    const crossSite = await postForm(
      app,
      `/uploads/${id}/cancel`,
      {},
      { cookie, headers: { origin: 'https://elsewhere.example' } },
    );
    expect(crossSite.status).toBe(403);
    const noSession = await postForm(app, `/uploads/${id}/cancel`, {});
    expect([302, 303]).toContain(noSession.status);
    expect(noSession.headers.get('location')).toBe('/login?redirectTo=%2Ffiles');
    expect(await uploadRow(app, id)).toMatchObject({ id });
    expect(unfinishedRows(await filesPage(app, cookie))).toHaveLength(1);
  });

  test('when an upload is cancelled twice (a second click, another tab), then the second says it is not there any more', async ({
    app,
  }) => {
    const cookie = await newUser(app);
    const id = await unfinishedUpload(app, cookie, 'twice.bin', 3000, 0);
    expect((await postForm(app, `/uploads/${id}/cancel`, {}, { cookie })).status).toBe(302);
    const again = await postForm(app, `/uploads/${id}/cancel`, {}, { cookie });
    expect(again.status).toBe(404);
    expect(visibleText(await again.text())).toContain('This upload is not there any more');
  });
});
