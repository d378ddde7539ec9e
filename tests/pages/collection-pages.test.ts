// A collection's page, /c/<id> (ADR 0038), as a browser without JavaScript sees it: the title,
// count and size, "Download all", the files as a tree of folders with their own links and
// thumbnails, the link preview tags, and the password form that opens the page and its archive.
import { describe, expect, registeredUser, test, type TestUser } from '../helpers/fixtures';
import { alertsOf, getPage, makePng, postForm, visibleText } from '../helpers/pages-fixtures';

interface Collection {
  id: string;
  title: string;
}

async function makeCollection(user: TestUser, body: Record<string, unknown>): Promise<Collection> {
  const res = await user.fetch('/api/v1/collections', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`collection not made: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { collection: Collection }).collection;
}

/** The content of a <meta property|name="…"> tag, entities as they are in the HTML. */
function metaContent(html: string, key: string): string | null {
  const tag = new RegExp(`<meta[^>]*(?:property|name)="${key}"[^>]*>`).exec(html)?.[0];
  return tag ? (/content="([^"]*)"/.exec(tag)?.[1] ?? null) : null;
}

/** A grant cookie from a Set-Cookie header, as `name=value` for a Cookie header. */
function cookiePair(setCookie: string): string {
  return setCookie.split(';')[0];
}

describe('the collection page', () => {
  test('when a visitor opens a collection, then the page shows its title, count and size, "Download all", and its files as folders, each with its size, type and own link', async ({
    app,
    alice,
  }) => {
    const beach = await alice.upload(makePng(), 'beach.png', 'image/png');
    const dunes = await alice.upload(makePng(8, 8), 'dunes.png', 'image/png');
    const notes = await alice.upload('remember the hats', 'notes.txt', 'text/plain');
    const collection = await makeCollection(alice, {
      title: 'Holiday',
      files: [
        { id: notes.file.id, path: 'notes.txt' },
        { id: beach.file.id, path: 'photos/2026/beach.png' },
        { id: dunes.file.id, path: 'photos/dunes.png' },
      ],
    });
    const res = await getPage(app, `/c/${collection.id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const total = beach.file.size + dunes.file.size + notes.file.size;
    expect(/<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1]).toBe('Holiday');
    expect(visibleText(html)).toContain('3 files, ');
    expect(html).toContain(`href="/c/${collection.id}/archive"`);
    expect(visibleText(html)).toContain('Download all');
    // photos > 2026 > beach.png, and photos > dunes.png: nested open <details>, in the collection's order.
    const tree = /<section[^>]*aria-label="Files"[^>]*>([\s\S]*)<\/section>/.exec(html)?.[1] ?? '';
    // (A name's extension is a box of its own: the names are read as a reader sees them.)
    const named = tree.replace(/<\/?span\b[^>]*>/g, '');
    expect(named).toMatch(
      /<details open="">\s*<summary>[\s\S]*?photos<\/summary>[\s\S]*<details open="">\s*<summary>[\s\S]*?2026<\/summary>[\s\S]*beach\.png[\s\S]*<\/details>[\s\S]*dunes\.png/,
    );
    expect(named.indexOf('notes.txt')).toBeLessThan(named.indexOf('photos'));
    for (const { file } of [beach, dunes, notes]) expect(tree).toContain(`href="/f/${file.id}"`);
    expect(visibleText(tree)).toContain('17 bytes');
    expect(visibleText(tree)).toContain('text/plain');
    expect(visibleText(tree)).toContain('image/png');
    // Link previews name the collection and what it holds.
    expect(metaContent(html, 'og:title')).toBe('Holiday');
    expect(metaContent(html, 'og:description')).toMatch(/^3 files, \d/);
    expect(metaContent(html, 'og:description')).toContain(total < 1024 ? `${total} bytes` : 'KB');
  });

  test('when a file is an inline-safe image whose own link has no limit and no password, then it has a lazy thumbnail (a small WebP of it); otherwise none', async ({
    app,
    alice,
  }) => {
    const open = await alice.upload(makePng(), 'open.png', 'image/png');
    const limited = await alice.upload(makePng(), 'limited.png', 'image/png', { maxDownloads: '3' });
    const locked = await alice.upload(makePng(), 'locked.png', 'image/png', { password: 'pw of the file' });
    const svg = await alice.upload('<svg xmlns="http://www.w3.org/2000/svg"/>', 'drawing.svg', 'image/svg+xml');
    const collection = await makeCollection(alice, {
      title: 'Thumbnails',
      files: [open, limited, locked, svg].map(({ file }) => ({ id: file.id })),
    });
    const html = await (await getPage(app, `/c/${collection.id}`)).text();
    // In the page's main part: the header has the site's icon.
    const images = [...html.slice(html.indexOf('<main')).matchAll(/<img[^>]*>/g)].map((match) => match[0]);
    expect(images).toHaveLength(1);
    expect(images[0]).toContain(`src="/f/${open.file.id}/thumbnail"`);
    expect(images[0]).toContain('loading="lazy"');
    const thumbnail = await fetch(`${app.url}/f/${open.file.id}/thumbnail`);
    expect(thumbnail.status).toBe(200);
    expect(thumbnail.headers.get('content-type')).toBe('image/webp');
    // Looking used up nothing: the limited file still has all its downloads.
    const [row] = await app.rows('select downloads from files where id = ?', [limited.file.id]);
    expect(Number(row.downloads)).toBe(0);
  });

  test('when the title and a path hold markup, then the page shows them as text', async ({ app, alice }) => {
    const file = await alice.upload('x', 'x.txt', 'text/plain');
    const collection = await makeCollection(alice, {
      title: '<script>alert("title")</script>',
      files: [{ id: file.file.id, path: '<svg onload=alert(1)>/<img src=x onerror=alert(2)>.txt' }],
    });
    const html = await (await getPage(app, `/c/${collection.id}`)).text();
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<svg onload');
    expect(html).toContain('&lt;svg onload=alert(1)&gt;</summary>');
    expect(visibleText(html)).toContain('<script>alert("title")</script>');
    expect(visibleText(html)).toContain('<img src=x onerror=alert(2)>.txt');
  });

  test('when the id is unknown or malformed, then the not-found page answers 404', async ({ app }) => {
    for (const path of ['/c/AAAAAAAAAAAAAAAAAAAAAA', '/c/not-an-id']) {
      const res = await getPage(app, path);
      expect(res.status, path).toBe(404);
      expect(visibleText(await res.text()), path).toContain('This collection does not exist, or it was deleted.');
    }
  });

  test('when the collection has used up its downloads, then its page answers 410 with the message', async ({
    app,
    alice,
  }) => {
    const file = await alice.upload('once', 'once.txt', 'text/plain');
    const collection = await makeCollection(alice, { title: 'Once', maxDownloads: 1, files: [{ id: file.file.id }] });
    const before = await getPage(app, `/c/${collection.id}`);
    expect(visibleText(await before.text())).toContain('1 download left');
    const archive = await fetch(`${app.url}/c/${collection.id}/archive`);
    expect(archive.status).toBe(200);
    await archive.arrayBuffer();
    const res = await getPage(app, `/c/${collection.id}`);
    expect(res.status).toBe(410);
    expect(visibleText(await res.text())).toMatch(/download limit|used up|no more downloads/i);
  });
});

describe('a disabled account', () => {
  test('when its owner is disabled, then the collection page and its archive answer 404; enabled again, both open', async ({
    app,
  }) => {
    const carol = await registeredUser(app, 'carol');
    const file = await carol.upload('off with the account', 'off.txt', 'text/plain');
    const collection = await makeCollection(carol, { title: 'Off', files: [{ id: file.file.id }] });
    const disable = (disabled: boolean) =>
      app.rows('update users set disabled_at = ? where id = ?', [
        disabled ? (app.config.database.dialect === 'sqlite' ? Date.now() : new Date()) : null,
        carol.id,
      ]);
    await disable(true);
    expect((await getPage(app, `/c/${collection.id}`)).status).toBe(404);
    expect((await getPage(app, `/c/${collection.id}/archive`)).status).toBe(404);
    await disable(false);
    expect((await getPage(app, `/c/${collection.id}`)).status).toBe(200);
    expect((await getPage(app, `/c/${collection.id}/archive`)).status).toBe(200);
  });
});

describe('a password-protected collection', () => {
  test('when a visitor opens it, then 401 with a password form and nothing of the collection', async ({
    app,
    alice,
  }) => {
    const file = await alice.upload('secret plans', 'plans.txt', 'text/plain');
    const collection = await makeCollection(alice, {
      title: 'Hidden title',
      password: 'open sesame',
      files: [{ id: file.file.id, path: 'secret/plans.txt' }],
    });
    const res = await getPage(app, `/c/${collection.id}`);
    expect(res.status).toBe(401);
    const html = await res.text();
    expect(html).toMatch(/<form[^>]*method="post"/);
    expect(html).toContain('name="password"');
    expect(html).not.toContain('Hidden title');
    expect(html).not.toContain('plans.txt');
    expect(metaContent(html, 'og:title')).toBe('Password-protected collection');
  });

  test('when the visitor sends the right password, then a grant cookie for the whole site opens the page and its archive', async ({
    app,
    alice,
  }) => {
    const file = await alice.upload('secret plans', 'plans.txt', 'text/plain');
    const collection = await makeCollection(alice, {
      title: 'Plans',
      password: 'open sesame',
      files: [{ id: file.file.id, path: 'secret/plans.txt' }],
    });
    const unlocked = await postForm(app, `/c/${collection.id}`, { intent: 'unlock', password: 'open sesame' });
    expect(unlocked.status).toBe(303);
    expect(unlocked.headers.get('location')).toBe(`/c/${collection.id}`);
    const setCookie = unlocked.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(new RegExp(`^collection_${collection.id}=`));
    // Its files' own pages are under /f/: the grant opens them too (ADR 0067).
    expect(setCookie).toMatch(/; Path=\/(;|$)/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');

    const page = await getPage(app, `/c/${collection.id}`, cookiePair(setCookie));
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    const html = await page.text();
    expect(/<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1]).toBe('Plans');
    expect(html).toContain(`href="/f/${file.file.id}"`);
    // Unlocked in this browser, the tags still name nothing: a snapshot of the page may travel.
    expect(metaContent(html, 'og:title')).toBe('Password-protected collection');

    const archive = await getPage(app, `/c/${collection.id}/archive`, cookiePair(setCookie));
    expect(archive.status).toBe(200);
    expect(
      Buffer.from(await archive.arrayBuffer())
        .subarray(0, 2)
        .toString('latin1'),
    ).toBe('PK');
  });

  test('when a password is sent for an unknown collection, then the not-found page answers 404', async ({ app }) => {
    const res = await postForm(app, '/c/AAAAAAAAAAAAAAAAAAAAAA', { intent: 'unlock', password: 'anything' });
    expect(res.status).toBe(404);
    expect(visibleText(await res.text())).toContain('This collection does not exist, or it was deleted.');
  });

  test('when the visitor sends a wrong password, then 401 with the message and the form again; after five, 429 with Retry-After even for the right one', async ({
    app,
    alice,
  }) => {
    const file = await alice.upload('secret plans', 'plans.txt', 'text/plain');
    const collection = await makeCollection(alice, {
      title: 'Guarded',
      password: 'open sesame',
      files: [{ id: file.file.id }],
    });
    const wrong = await postForm(app, `/c/${collection.id}`, { intent: 'unlock', password: 'guess' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const html = await wrong.text();
    expect(alertsOf(html)).toEqual(['Wrong password.']);
    expect(html).toContain('name="password"');
    expect(html).not.toContain('Guarded');
    for (let i = 0; i < 4; i += 1) await postForm(app, `/c/${collection.id}`, { intent: 'unlock', password: 'guess' });
    const throttled = await postForm(app, `/c/${collection.id}`, { intent: 'unlock', password: 'open sesame' });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(alertsOf(await throttled.text())[0]).toMatch(/too many/i);
  });

  test('when the owner, logged in, opens it, then the page shows without asking', async ({ app, alice, bob }) => {
    const file = await alice.upload('secret plans', 'plans.txt', 'text/plain');
    const collection = await makeCollection(alice, {
      title: 'Mine',
      password: 'open sesame',
      files: [{ id: file.file.id }],
    });
    const own = await getPage(app, `/c/${collection.id}`, alice.cookie);
    expect(own.status).toBe(200);
    expect(/<h1[^>]*>([^<]*)<\/h1>/.exec(await own.text())?.[1]).toBe('Mine');
    // Another user is a visitor like any other.
    expect((await getPage(app, `/c/${collection.id}`, bob.cookie)).status).toBe(401);
  });

  test('when the grant of one collection is sent for another, then it opens nothing', async ({ app, alice }) => {
    const file = await alice.upload('a', 'a.txt', 'text/plain');
    const first = await makeCollection(alice, { title: 'First', password: 'one pass', files: [{ id: file.file.id }] });
    const second = await makeCollection(alice, {
      title: 'Second',
      password: 'one pass',
      files: [{ id: file.file.id }],
    });
    const unlocked = await postForm(app, `/c/${first.id}`, { intent: 'unlock', password: 'one pass' });
    const grant = cookiePair(unlocked.headers.get('set-cookie') ?? '').split('=')[1];
    const res = await getPage(app, `/c/${second.id}`, `collection_${second.id}=${grant}`);
    expect(res.status).toBe(401);
  });
});

describe('the files page', () => {
  test('when a user has collections, then her files page lists them (title, count, size, link), and no one else sees them', async ({
    app,
    alice,
    bob,
  }) => {
    const file = await alice.upload('listed', 'listed.txt', 'text/plain');
    const collection = await makeCollection(alice, {
      title: 'Listed <b>here</b>',
      password: 'listed pass',
      files: [{ id: file.file.id }],
    });
    const html = await (await getPage(app, '/files', alice.cookie)).text();
    const section = /<section[^>]*class="collections"[^>]*>([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
    expect(section).toContain(`href="/c/${collection.id}"`);
    expect(visibleText(section)).toContain('Listed <b>here</b>');
    expect(visibleText(section)).toContain('1 file, 6 bytes');
    expect(section).toContain('aria-label="Password-protected"');
    const bobs = await (await getPage(app, '/files', bob.cookie)).text();
    expect(bobs).not.toContain(collection.id);
  });
});
