// My files as a table or a gallery (ADR 0046), without JavaScript: the view switch (a POST form)
// stores the choice for the next logins, `?view=` shows the other view for one address without
// storing it, and every link of the list keeps it. Images show their thumbnail in both views,
// to their owner even behind a password or a download limit; other files the icon of their kind.
import { describe, expect, registeredUser, test as base } from '../helpers/fixtures';
import { getPage, makePng, postForm, visibleText } from '../helpers/pages-fixtures';

const test = base
  .extend('carol', { scope: 'file' }, ({ app }) => registeredUser(app, 'carol'))
  .extend('dave', { scope: 'file' }, ({ app }) => registeredUser(app, 'dave'))
  .extend('erin', { scope: 'file' }, ({ app }) => registeredUser(app, 'erin'));

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="80" height="40"><rect width="80" height="40" fill="teal"/></svg>';
const HTML_NAME = '<img src=x onerror=alert(1)>&<b>.txt';

/** The gallery's cards by file id: the HTML of each. */
function cardsOf(html: string): Map<string, string> {
  return new Map(
    [...html.matchAll(/<li class="file-card" data-file-id="([^"]+)">([\s\S]*?)<\/li>/g)].map((m) => [m[1], m[2]]),
  );
}

/** The table's rows by file id: the HTML of each. */
function rowsOf(html: string): Map<string, string> {
  return new Map([...html.matchAll(/<tr data-file-id="([^"]+)">([\s\S]*?)<\/tr>/g)].map((m) => [m[1], m[2]]));
}

/** Which view a page of the list shows, and which button of the switch is pressed. */
function viewOf(html: string): { gallery: boolean; table: boolean; pressed: string | undefined } {
  const pressed = /<button[^>]*name="view" value="(\w+)" aria-pressed="true"/.exec(html)?.[1];
  return { gallery: html.includes('<ul class="file-gallery"'), table: html.includes('<table class="files"'), pressed };
}

/** The href of the link whose text is `text`, or undefined. */
function linkTo(html: string, text: string): string | undefined {
  const match = [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi)].find(
    (m) => visibleText(m[2]) === text,
  );
  return match?.[1].replace(/&amp;/g, '&');
}

const fileListViewOf = async (fetcher: (path: string) => Promise<Response>) =>
  ((await (await fetcher('/api/v1/me')).json()) as { fileListView: string }).fileListView;

describe('My files as a gallery', () => {
  const ids: Record<string, string> = {};

  test.beforeAll(async ({ alice, carol, dave }) => {
    ids.photo = (await alice.upload(makePng(200, 100), 'photo.png', 'image/png')).file.id;
    ids.drawing = (await alice.upload(SVG, 'drawing.svg', 'image/svg+xml')).file.id;
    ids.report = (await alice.upload('%PDF-1.4\n%%EOF\n', 'report.pdf', 'application/pdf')).file.id;
    ids.html = (await alice.upload('hi', HTML_NAME, 'text/plain')).file.id;
    ids.secret = (
      await alice.upload(makePng(90, 90), 'secret.png', 'image/png', { password: 'open sesame 42' })
    ).file.id;
    ids.counted = (await alice.upload(makePng(90, 90), 'counted.png', 'image/png', { maxDownloads: '2' })).file.id;
    await carol.upload('notes', 'notes.txt', 'text/plain');
    for (let i = 0; i < 101; i++) await dave.upload(`${i}`, `item-${String(i).padStart(3, '0')}.txt`, 'text/plain');
  }, 60_000);

  test('when a user chooses the gallery with the switch, then it is stored: the list comes back with its search, and after a new login /files is a gallery', async ({
    app,
    carol,
  }) => {
    const before = await (await getPage(app, '/files', carol.cookie)).text();
    expect(viewOf(before)).toEqual({ gallery: false, table: true, pressed: 'table' });
    // The switch is a POST form to this page, carrying the search it was shown with.
    const form = /<form[^>]*class="view-switch"[^>]*>[\s\S]*?<\/form>/.exec(before)?.[0] ?? '';
    expect(form).toMatch(/method="post"/);
    expect(form).toMatch(/action="\/files\?index"/);

    const res = await postForm(
      app,
      '/files?index',
      { view: 'gallery', q: 'notes', sort: 'name' },
      { cookie: carol.cookie },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/files?q=notes&sort=name');

    const again = await app.login(carol.username);
    const after = await (await getPage(app, '/files', again)).text();
    expect(viewOf(after)).toEqual({ gallery: true, table: false, pressed: 'gallery' });
    expect(visibleText(after)).toContain('notes.txt');

    const back = await postForm(app, '/files?index', { view: 'table' }, { cookie: again });
    expect(back.headers.get('location')).toBe('/files');
    expect(viewOf(await (await getPage(app, '/files', again)).text()).table).toBe(true);
  });

  test('when the address says ?view=gallery or ?view=table, then the page shows that view and nothing is stored', async ({
    app,
    alice,
  }) => {
    const gallery = await (await getPage(app, '/files?view=gallery', alice.cookie)).text();
    expect(viewOf(gallery)).toEqual({ gallery: true, table: false, pressed: 'gallery' });
    expect(await fileListViewOf(alice.fetch)).toBe('table');
    expect(viewOf(await (await getPage(app, '/files', alice.cookie)).text()).table).toBe(true);

    await alice.fetch('/api/v1/me', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileListView: 'gallery' }),
    });
    try {
      expect(viewOf(await (await getPage(app, '/files?view=table', alice.cookie)).text()).table).toBe(true);
      expect(await fileListViewOf(alice.fetch)).toBe('gallery');
      // A view that is none is no choice: the stored one shows.
      const unknown = await getPage(app, '/files?view=mosaic', alice.cookie);
      expect(unknown.status).toBe(200);
      expect(viewOf(await unknown.text()).gallery).toBe(true);
    } finally {
      await alice.fetch('/api/v1/me', {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fileListView: 'table' }),
      });
    }
  });

  test('when a search in the gallery has more than a page, then its next page, the first page and the search form keep the view', async ({
    app,
    dave,
  }) => {
    const first = await (await getPage(app, '/files?view=gallery&q=item&type=documents&sort=name', dave.cookie)).text();
    expect(cardsOf(first).size).toBe(100);
    const search = /<form[^>]*role="search"[^>]*>[\s\S]*?<\/form>/.exec(first)?.[0] ?? '';
    expect(search).toMatch(/<input type="hidden" name="view" value="gallery"/);
    const switchForm = /<form[^>]*class="view-switch"[^>]*>[\s\S]*?<\/form>/.exec(first)?.[0] ?? '';
    expect(switchForm).toMatch(/name="q" value="item"/);
    expect(switchForm).toMatch(/name="type" value="documents"/);
    expect(switchForm).toMatch(/name="sort" value="name"/);

    const next = linkTo(first, 'Next page');
    expect(next).toMatch(/^\/files\?q=item&type=documents&sort=name&view=gallery&cursor=/);
    const second = await (await getPage(app, next!, dave.cookie)).text();
    expect(viewOf(second).gallery).toBe(true);
    expect([...cardsOf(second).values()].map(visibleText).join(' ')).toContain('item-100.txt');
    expect(linkTo(second, 'First page')).toBe('/files?q=item&type=documents&sort=name&view=gallery');

    const none = await (await getPage(app, '/files?view=gallery&q=nothing-like-it', dave.cookie)).text();
    expect(visibleText(none)).toContain('No files match.');
    expect(linkTo(none, 'Show all your files')).toBe('/files?view=gallery');
  });

  test('when the gallery shows images, an SVG and a PDF, then the images have lazy thumbnails of a fixed size, the PDF the icon of a document, and each card links to its file', async ({
    app,
    alice,
  }) => {
    const html = await (await getPage(app, '/files?view=gallery', alice.cookie)).text();
    const cards = cardsOf(html);
    for (const id of [ids.photo, ids.drawing]) {
      const img = /<img[^>]*>/.exec(cards.get(id) ?? '')?.[0] ?? '';
      expect(img).toContain(`src="/f/${id}/thumbnail"`);
      expect(img).toContain('loading="lazy"');
      expect(img).toContain('alt=""');
      expect(img).toMatch(/width="\d+"/);
      expect(img).toMatch(/height="\d+"/);
      const thumbnail = await alice.fetch(`/f/${id}/thumbnail`);
      expect(thumbnail.status).toBe(200);
      expect(thumbnail.headers.get('content-type')).toBe('image/webp');
      await thumbnail.arrayBuffer();
    }
    const report = cards.get(ids.report) ?? '';
    expect(report).not.toContain('<img');
    expect(report).toMatch(/<svg[^>]*aria-hidden="true"/);
    expect(report).toContain('data-kind="document"');
    expect(report).toContain(`href="/f/${ids.report}"`);
    expect(visibleText(report)).toMatch(/^report\.pdf \d+ bytes · /);

    // The table shows the same small pictures in a column of their own.
    const table = rowsOf(await (await getPage(app, '/files?view=table', alice.cookie)).text());
    expect(table.get(ids.photo)).toMatch(new RegExp(`<td class="thumb"><img[^>]*src="/f/${ids.photo}/thumbnail"`));
    expect(table.get(ids.report)).toMatch(/<td class="thumb"><span class="file-type-icon" data-kind="document"/);
  });

  test('when a name holds HTML, then both views show it as text', async ({ app, alice }) => {
    for (const view of ['gallery', 'table']) {
      const html = await (await getPage(app, `/files?view=${view}`, alice.cookie)).text();
      expect(html).not.toContain('<img src=x');
      expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&amp;&lt;b&gt;.txt');
      expect(visibleText(html)).toContain(HTML_NAME);
    }
  });

  test('when an image is password-protected or counts downloads, then its owner sees its thumbnail on the list; a stranger gets none, and no download is used', async ({
    app,
    alice,
    bob,
  }) => {
    const cards = cardsOf(await (await getPage(app, '/files?view=gallery', alice.cookie)).text());
    for (const id of [ids.secret, ids.counted]) {
      expect(cards.get(id)).toContain(`src="/f/${id}/thumbnail"`);
      const owner = await alice.fetch(`/f/${id}/thumbnail`);
      expect(owner.status).toBe(200);
      expect(owner.headers.get('content-type')).toBe('image/webp');
      expect(owner.headers.get('cache-control')).toBe('private');
      await owner.arrayBuffer();
    }
    const locked = await bob.fetch(`/f/${ids.secret}/thumbnail`);
    expect(locked.status).toBe(401);
    expect(locked.headers.get('content-type')).not.toBe('image/webp');
    await locked.arrayBuffer();
    const anonymous = await fetch(`${app.url}/f/${ids.secret}/thumbnail`);
    expect(anonymous.status).toBe(401);
    await anonymous.arrayBuffer();
    const counted = await bob.fetch(`/f/${ids.counted}/thumbnail`);
    expect(counted.status).toBe(404);
    expect(counted.headers.get('content-type')).not.toBe('image/webp');
    await counted.arrayBuffer();
    expect(await app.rows('select downloads from files where id = ?', [ids.counted])).toEqual([{ downloads: 0 }]);
  });

  test('when a user has no files, then both views say "No files yet" with the upload link', async ({ app, erin }) => {
    for (const view of ['gallery', 'table']) {
      const html = await (await getPage(app, `/files?view=${view}`, erin.cookie)).text();
      expect(visibleText(html)).toContain('No files yet: Upload your first file');
      expect(linkTo(html, 'Upload your first file')).toBe('/upload');
      expect(viewOf(html)).toMatchObject({ gallery: false, table: false, pressed: view });
    }
  });

  test('when the switch is sent with a view that is none, or from another site, then nothing is stored', async ({
    app,
    erin,
  }) => {
    const bad = await postForm(app, '/files?index', { view: 'mosaic' }, { cookie: erin.cookie });
    expect(bad.status).toBe(400);
    expect(visibleText(await bad.text())).toContain('Choose the table or the gallery.');
    const crossSite = await postForm(
      app,
      '/files?index',
      { view: 'gallery' },
      { cookie: erin.cookie, headers: { origin: 'https://elsewhere.example' } },
    );
    expect(crossSite.status).toBe(403);
    await crossSite.arrayBuffer();
    expect(await fileListViewOf(erin.fetch)).toBe('table');

    const signedOut = await postForm(app, '/files?index', { view: 'gallery' });
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get('location')).toMatch(/^\/login\?redirectTo=/);
  });
});
