// Views are not downloads (ADR 0066): the share page counts a view and its own preview
// (/f/<id>/preview) counts nothing, under the raw link's share controls; downloads count what
// leaves as a download, and only those reach the file.downloaded webhook.
import { describe, expect } from 'vitest';
import { fileForm, TestClock } from '../helpers/app';
import { sampleOf } from '../helpers/file-samples';
import { visibleText } from '../helpers/pages-fixtures';
import { startReceiver } from '../webhooks/receiver';
import { request, type SharingApp, test, type Uploaded } from './support';

const clock = new TestClock();
test.override('appEnv', { WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_RETRY_BASE_MS: '50' });
test.override('appOptions', { clock });

const VIDEO = sampleOf('video/webm', 64 * 1024);

/** The file object the owner gets from the API. */
async function ownerView(app: SharingApp, id: string): Promise<{ views: number; downloads: number }> {
  const res = await fetch(`${app.url}/api/v1/files/${id}`, { headers: { cookie: app.cookie } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { file: { views: number; downloads: number } }).file;
}

/** An endpoint of the owner's for file.downloaded; its id. */
async function addWebhook(app: SharingApp, url: string): Promise<string> {
  const res = await fetch(`${app.url}/api/v1/webhooks`, {
    method: 'POST',
    headers: { cookie: app.cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['file.downloaded'] }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { webhook: { id: string } }).webhook.id;
}

async function removeWebhook(app: SharingApp, id: string): Promise<void> {
  if (id === '') return;
  const res = await fetch(`${app.url}/api/v1/webhooks/${id}`, { method: 'DELETE', headers: { cookie: app.cookie } });
  expect(res.status).toBe(200);
}

async function downloadEvents(app: SharingApp, id: string): Promise<number> {
  const rows = await app.rows('select data from webhook_deliveries where type = ?', ['file.downloaded']);
  return rows.filter((row) => JSON.parse(String(row.data)).fileId === id).length;
}

/** The addresses the share page's own preview elements (img, video, audio, iframe) load. */
function previewSources(html: string): string[] {
  const section = /<section class="preview"[^>]*>([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
  return [...section.matchAll(/<(?:img|video|audio|iframe) src="([^"]+)"/g)].map((match) => match[1]);
}

/**
 * Opens a share page as a browser does: the page, then what its preview elements load. A player
 * asks ranges, the first and then further in as it seeks; an image or a frame the whole of it.
 * Resolves with the page's HTML and every preview answer's status.
 */
async function openAsBrowser(app: SharingApp, uploaded: Uploaded, cookie?: string) {
  const headers: Record<string, string> = cookie ? { cookie } : {};
  const page = await request(uploaded.url, { headers });
  expect(page.status).toBe(200);
  const html = page.body.toString('utf8');
  const statuses: number[] = [];
  for (const source of previewSources(html)) {
    const address = new URL(source, app.url).href;
    const media = uploaded.file.mimeType.startsWith('video/') || uploaded.file.mimeType.startsWith('audio/');
    for (const range of media ? ['bytes=0-', 'bytes=40000-', 'bytes=1000-1999'] : [undefined]) {
      const res = await request(address, { headers: range ? { ...headers, range } : headers });
      statuses.push(res.status);
    }
  }
  return { html, statuses };
}

describe('views and downloads', () => {
  test('when a visitor opens the share page of an image, a video, a PDF and a text file on links without a limit, and the browser loads their previews, then each counts 1 view and 0 downloads and no file.downloaded is delivered', async ({
    app,
  }) => {
    const receiver = await startReceiver();
    let webhookId = '';
    try {
      webhookId = await addWebhook(app, receiver.url);
      const files = [
        await app.upload(sampleOf('image/png', 2048), 'photo.png', 'image/png'),
        await app.upload(VIDEO, 'clip.webm', 'video/webm'),
        await app.upload(sampleOf('application/pdf', 4096), 'paper.pdf', 'application/pdf'),
        await app.upload('line one\nline two\n', 'notes.txt', 'text/plain'),
      ];
      for (const uploaded of files) {
        const { html, statuses } = await openAsBrowser(app, uploaded);
        const media = !uploaded.file.mimeType.startsWith('text/');
        // The page's own elements load the preview address, never the raw link.
        expect(previewSources(html)).toEqual(media ? [`/f/${uploaded.file.id}/preview`] : []);
        if (uploaded.file.mimeType === 'video/webm') expect(statuses).toEqual([206, 206, 206]);
        else if (media) expect(statuses).toEqual([200]);
        else expect(html).toContain('line two');
      }
      for (const { file } of files) {
        await expect.poll(() => ownerView(app, file.id)).toMatchObject({ views: 1, downloads: 0 });
        expect(await downloadEvents(app, file.id)).toBe(0);
      }
      // The list says the same.
      const list = await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie: app.cookie } })).json();
      for (const { file } of files)
        expect(list.files.find((f: { id: string }) => f.id === file.id)).toMatchObject({ views: 1, downloads: 0 });

      // A download of one of them is delivered, and it is the only delivery.
      expect((await request(files[0].rawUrl)).status).toBe(200);
      const [delivery] = await receiver.waitFor(1, 'file.downloaded');
      expect(delivery.json.data).toMatchObject({ fileId: files[0].file.id, downloads: 1, first: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(1);
    } finally {
      await removeWebhook(app, webhookId);
      await receiver.close();
    }
  });

  test("when the Download button's link or the raw link is fetched, then downloads becomes 1 and file.downloaded is delivered, and views stay as the page's loads", async ({
    app,
  }) => {
    const receiver = await startReceiver();
    let webhookId = '';
    try {
      webhookId = await addWebhook(app, receiver.url);
      const byButton = await app.upload(sampleOf('image/png', 2048), 'button.png', 'image/png');
      const byRawLink = await app.upload(VIDEO, 'raw.webm', 'video/webm');

      const { html } = await openAsBrowser(app, byButton);
      const button = /<a class="button share-download" href="([^"]+)"/.exec(html)?.[1];
      expect(button).toBe(`/f/${byButton.file.id}/raw?download=1`);
      const downloaded = await request(new URL(button as string, app.url).href);
      expect(downloaded.status).toBe(200);
      expect(downloaded.headers['content-disposition']).toMatch(/^attachment;/);
      // The raw link opened on its own, as curl or a chat app's player does, page unseen.
      expect((await request(byRawLink.rawUrl, { headers: { range: 'bytes=0-' } })).status).toBe(206);

      await expect.poll(() => ownerView(app, byButton.file.id)).toMatchObject({ views: 1, downloads: 1 });
      await expect.poll(() => ownerView(app, byRawLink.file.id)).toMatchObject({ views: 0, downloads: 1 });
      const deliveries = await receiver.waitFor(2, 'file.downloaded');
      expect(deliveries.map((entry) => entry.json.data.fileId).sort()).toEqual(
        [byButton.file.id, byRawLink.file.id].sort(),
      );
    } finally {
      await removeWebhook(app, webhookId);
      await receiver.close();
    }
  });

  test("when a page is loaded three times by visitors (the later ones sent from the kept drawing), once as HEAD and twice by its owner, then it counts 3 views; a password's page counts none until it is opened", async ({
    app,
  }) => {
    const uploaded = await app.upload(sampleOf('image/png', 2048), 'kept.png', 'image/png');
    for (let i = 0; i < 3; i++) expect((await request(uploaded.url)).status).toBe(200);
    expect((await request(uploaded.url, { method: 'HEAD' })).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await request(uploaded.url, { headers: { cookie: app.cookie } })).status).toBe(200);
    await expect.poll(() => ownerView(app, uploaded.file.id)).toMatchObject({ views: 3, downloads: 0 });

    const locked = await app.upload('secret text', 'locked.txt', 'text/plain', { password: 'pony pony' });
    expect((await request(locked.url)).status).toBe(401);
    const unlocked = await postUnlock(locked.url, 'pony pony');
    expect(unlocked.status).toBe(303);
    const grant = (unlocked.headers.getSetCookie()[0] ?? '').split(';')[0];
    expect((await request(locked.url, { headers: { cookie: grant } })).status).toBe(200);
    await expect.poll(() => ownerView(app, locked.file.id)).toMatchObject({ views: 1, downloads: 0 });
  });
});

describe("the owner's pages", () => {
  test("when the owner looks at My files (table and gallery) and at the file's page, then views and downloads read apart, each noun in the right number", async ({
    app,
  }) => {
    const once = await app.upload(sampleOf('image/png', 2048), 'once.png', 'image/png');
    const limited = await app.upload('limited text', 'limited.txt', 'text/plain', { maxDownloads: '5' });
    await openAsBrowser(app, once);
    expect((await request(once.rawUrl)).status).toBe(200);
    for (let i = 0; i < 2; i++) await openAsBrowser(app, limited);
    await expect.poll(() => ownerView(app, once.file.id)).toMatchObject({ views: 1, downloads: 1 });
    await expect.poll(() => ownerView(app, limited.file.id)).toMatchObject({ views: 2, downloads: 0 });

    const asOwner = async (path: string) =>
      (await request(`${app.url}${path}`, { headers: { cookie: app.cookie } })).body.toString('utf8');
    const table = await asOwner('/files?view=table');
    expect(table).toContain('<th scope="col">Views ·<br/>downloads</th>');
    const cell = (id: string) =>
      visibleText(
        new RegExp(`<tr data-file-id="${id}">[\\s\\S]*?<td class="downloads">([\\s\\S]*?)</td>`).exec(table)?.[1] ?? '',
      )
        .replace(/\s+/g, ' ')
        .trim();
    // The nouns are there for the narrow layout, which has no column headers.
    expect(cell(once.file.id)).toBe('1 view · 1 download');
    expect(cell(limited.file.id)).toBe('2 views · 0 / 5 downloads');

    const gallery = await asOwner('/files?view=gallery');
    const card = (id: string) =>
      visibleText(new RegExp(`<li class="file-card" data-file-id="${id}">([\\s\\S]*?)</li>`).exec(gallery)?.[1] ?? '');
    expect(card(once.file.id)).toContain('1 view · 1 download');
    expect(card(limited.file.id)).toContain('2 views · 0 / 5 downloads');

    const page = await asOwner(`/f/${limited.file.id}`);
    expect(page).toContain('<dt>Views</dt><dd class="views">2</dd>');
    expect(page).toContain('<dt>Downloads</dt><dd class="downloads">0 / 5</dd>');
    // A visitor's page names no counts.
    expect(visibleText((await request(limited.url)).body.toString('utf8'))).not.toMatch(/\d+ views?\b/);
  });
});

/** The share page's password form, posted as a browser without JavaScript does. */
function postUnlock(pageUrl: string, password: string) {
  return fetch(pageUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ intent: 'unlock', password }),
    redirect: 'manual',
  });
}

describe('the preview address under the share controls', () => {
  test('when a video with a download limit of 1 is previewed many times, ranges included, then it is still downloadable once: the owner sees it without counting, a visitor gets no preview', async ({
    app,
  }) => {
    const uploaded = await app.upload(VIDEO, 'once.webm', 'video/webm', { maxDownloads: '1' });
    const preview = `${app.url}/f/${uploaded.file.id}/preview`;
    // The owner's page shows the player; its ranges count nothing.
    const owner = await openAsBrowser(app, uploaded, app.cookie);
    expect(owner.statuses).toEqual([206, 206, 206]);
    // A visitor's page shows no preview, and the preview address gives them nothing, however asked.
    const visitor = await openAsBrowser(app, uploaded);
    expect(previewSources(visitor.html)).toEqual([]);
    expect(visitor.html).toContain(
      'No preview: this link allows 1 more download, and gives the file only as a download.',
    );
    for (const headers of [{}, { range: 'bytes=0-' }, { range: 'bytes=100-' }] as Record<string, string>[]) {
      const res = await request(`${preview}?download`, { headers });
      expect(res.status).toBe(404);
      expect(res.body.includes(VIDEO.subarray(0, 16))).toBe(false);
    }
    expect(await app.rows('select downloads from files where id = ?', [uploaded.file.id])).toEqual([{ downloads: 0 }]);

    const download = await request(uploaded.rawUrl);
    expect(download.status).toBe(200);
    expect(download.body.equals(VIDEO)).toBe(true);
    expect((await request(uploaded.rawUrl)).status).toBe(410);
    // Used up: the preview is gone too, for the owner as well, and the download's claim continues none.
    const claim = (download.headers['set-cookie'] ?? [])[0]?.split(';')[0] ?? '';
    expect(claim).toMatch(/^claim_/);
    for (const cookie of [app.cookie, claim, `${app.cookie}; ${claim}`]) {
      const res = await request(preview, { headers: { cookie, range: 'bytes=100-' } });
      expect(res.status).toBe(410);
      expect(res.body.toString()).toContain('This link has reached its download limit.');
    }
    expect(await app.rows('select downloads from files where id = ?', [uploaded.file.id])).toEqual([{ downloads: 1 }]);
  });

  test('when a link has expired, asks for a password, or its owner is disabled, then its preview refuses as its raw link does (410, 401, 404) and gives no bytes', async ({
    app,
  }) => {
    const preview = (uploaded: Uploaded) => `${app.url}/f/${uploaded.file.id}/preview`;
    const png = sampleOf('image/png', 2048);

    const expiring = await app.upload(png, 'brief.png', 'image/png', { expiresIn: '60' });
    expect((await request(preview(expiring))).status).toBe(200);
    clock.advance(2 * 60_000);
    for (const target of [preview(expiring), expiring.rawUrl]) {
      const res = await request(target, { headers: { cookie: app.cookie } });
      expect(res.status).toBe(410);
      expect(res.body.toString()).toContain('This link has expired.');
    }

    const locked = await app.upload(png, 'locked.png', 'image/png', { password: 'pony pony' });
    for (const target of [preview(locked), locked.rawUrl]) {
      const res = await request(target);
      expect(res.status).toBe(401);
      expect(res.body.includes(png.subarray(0, 16))).toBe(false);
      expect((await request(target, { headers: { 'x-share-password': 'wrong one' } })).status).toBe(401);
    }
    expect((await request(preview(locked), { headers: { 'x-share-password': 'pony pony' } })).body.equals(png)).toBe(
      true,
    );
    const unlocked = await postUnlock(locked.url, 'pony pony');
    const grant = (unlocked.headers.getSetCookie()[0] ?? '').split(';')[0];
    const { html, statuses } = await openAsBrowser(app, locked, grant);
    expect(previewSources(html)).toEqual([`/f/${locked.file.id}/preview`]);
    expect(statuses).toEqual([200]);

    const quietId = await app.createUser('quiet');
    const quietCookie = await app.login('quiet');
    const res = await fetch(`${app.url}/api/v1/files`, {
      method: 'POST',
      headers: { cookie: quietCookie },
      body: fileForm(png, 'quiet.png', 'image/png'),
    });
    const quiet = ((await res.json()) as { file: { id: string } }).file;
    const quietPreview = `${app.url}/f/${quiet.id}/preview`;
    expect((await request(quietPreview)).status).toBe(200);
    const disabledAt = app.config.database.dialect === 'sqlite' ? Date.now() : new Date();
    await app.rows('update users set disabled_at = ? where id = ?', [disabledAt, quietId]);
    for (const target of [quietPreview, `${app.url}/f/${quiet.id}/raw`])
      expect((await request(target)).status).toBe(404);

    const rows = await app.rows('select downloads from files where id in (?, ?, ?)', [
      expiring.file.id,
      locked.file.id,
      quiet.id,
    ]);
    expect(rows.map((row) => Number(row.downloads))).toEqual([0, 0, 0]);
  });

  test('when a preview is answered, then it is inline with the file’s type, nosniff and the inline CSP, sets no claim, and ?download changes nothing; text, SVG, HTML and archives have no preview address', async ({
    app,
  }) => {
    const cases: Array<[Buffer, string, string]> = [
      [sampleOf('image/png', 2048), 'photo.png', 'image/png'],
      [VIDEO, 'clip.webm', 'video/webm'],
      [sampleOf('audio/ogg', 2048), 'song.ogg', 'audio/ogg'],
      [sampleOf('application/pdf', 2048), 'paper.pdf', 'application/pdf'],
    ];
    for (const [content, name, type] of cases) {
      const uploaded = await app.upload(content, name, type);
      for (const suffix of ['', '?download=1']) {
        const res = await request(`${app.url}/f/${uploaded.file.id}/preview${suffix}`, {
          headers: { range: 'bytes=0-' },
        });
        expect(res.status).toBe(206);
        expect(res.body.equals(content)).toBe(true);
        expect(res.headers['content-type']).toBe(type);
        expect(res.headers['content-disposition']).toMatch(/^inline;/);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['content-security-policy']).toContain("default-src 'none'");
        expect(res.headers['content-security-policy']).not.toContain('script-src');
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      const head = await request(`${app.url}/f/${uploaded.file.id}/preview`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(String(content.length));
    }
    const others: Array<[string | Buffer, string, string]> = [
      ['plain text', 'notes.txt', 'text/plain'],
      ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'drawing.svg', 'image/svg+xml'],
      ['<!doctype html><script>alert(1)</script>', 'page.html', 'text/html'],
      [sampleOf('application/zip', 256), 'bundle.zip', 'application/zip'],
    ];
    for (const [content, name, type] of others) {
      const uploaded = await app.upload(content, name, type);
      for (const cookie of [undefined, app.cookie]) {
        const res = await request(`${app.url}/f/${uploaded.file.id}/preview`, { headers: cookie ? { cookie } : {} });
        expect(res.status).toBe(404);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.body.toString()).not.toContain('alert(1)');
      }
    }
    expect((await request(`${app.url}/f/${'x'.repeat(22)}/preview`)).status).toBe(404);
    const post = await request(`${app.url}/f/${'x'.repeat(22)}/preview`, {
      method: 'POST',
      headers: { cookie: app.cookie },
    });
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
  });
});
