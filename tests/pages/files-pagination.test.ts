// /files a page at a time (ADR 0008, "Pages of files"): 100 files per page, newest first, on
// the API's keyset cursor, with plain "Older files" / "Newest files" links. Plain HTTP, as a
// browser without JavaScript pages through it.
import type { TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';
import { apiUpload, getPage, menuOf, SIGNED_IN_MENU, titlesOf, visibleText } from '../helpers/pages-fixtures';

/** Alice's 250 files, newest first, as the API lists them whole. */
let aliceIds: string[];
let bobOld: { id: string };
let bobNew: { id: string };

/** Uploads `count` small files, a few at a time (the two shared cores keep this to seconds). */
async function uploadMany(app: TestApp, cookie: string, prefix: string, count: number) {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}.png`);
  for (let i = 0; i < names.length; i += 10) {
    await Promise.all(
      names
        .slice(i, i + 10)
        .map((filename) => apiUpload(app, cookie, { filename, type: 'image/png', content: filename })),
    );
  }
}

async function wholeList(app: TestApp, cookie: string): Promise<string[]> {
  const res = await fetch(`${app.url}/api/v1/files`, { headers: { cookie } });
  return ((await res.json()).files as { id: string }[]).map((file) => file.id);
}

/** The files a page shows, in order, by their rows' ids. */
function rowIds(html: string): string[] {
  return [...html.matchAll(/<tr[^>]*\bdata-file-id="([^"]+)"/g)].map((match) => match[1]);
}

/** The href of the link whose text is `text`, or undefined. */
function linkTo(html: string, text: string): string | undefined {
  const match = [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi)].find(
    (m) => visibleText(m[2]) === text,
  );
  return match?.[1].replace(/&amp;/g, '&');
}

async function page(app: TestApp, path: string, cookie: string) {
  const res = await getPage(app, path, cookie);
  return { status: res.status, type: res.headers.get('content-type'), html: await res.text() };
}

test.beforeAll(async ({ app, alice, bob }) => {
  // Bob's files on either side of Alice's in time: one older than any of hers, one newer.
  bobOld = await apiUpload(app, bob.cookie, { filename: 'bob-old.txt', type: 'text/plain', content: 'old' });
  await new Promise((resolve) => setTimeout(resolve, 5));
  await uploadMany(app, alice.cookie, 'shot', 250);
  await new Promise((resolve) => setTimeout(resolve, 5));
  bobNew = await apiUpload(app, bob.cookie, { filename: 'bob-new.txt', type: 'text/plain', content: 'new' });
  aliceIds = await wholeList(app, alice.cookie);
}, 60_000);

describe('GET /files, a page at a time', () => {
  test('when a user has 250 files, then /files shows the 100 newest, newest first, says there are 250, and links to the older ones', async ({
    app,
    alice,
  }) => {
    expect(aliceIds).toHaveLength(250);
    const { status, html } = await page(app, '/files', alice.cookie);
    expect(status).toBe(200);
    expect(rowIds(html)).toEqual(aliceIds.slice(0, 100));
    const text = visibleText(html);
    expect(text).toContain('Showing your 100 newest files of 250.');
    expect(text).toContain('by 250 files');
    expect(linkTo(html, 'Older files')).toMatch(/^\/files\?cursor=[A-Za-z0-9_-]+$/);
    // The first page has no link to itself.
    expect(linkTo(html, 'Newest files')).toBeUndefined();
  });

  test('when the "Older files" links are followed, then every file shows exactly once, in order; later pages link back to the newest, and the last has no "Older files"', async ({
    app,
    alice,
  }) => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let next: string | undefined = '/files';
    while (next) {
      const { status, html }: { status: number; html: string } = await page(app, next, alice.cookie);
      expect(status).toBe(200);
      const ids = rowIds(html);
      seen.push(...ids);
      sizes.push(ids.length);
      if (next !== '/files') {
        expect(linkTo(html, 'Newest files')).toBe('/files');
        expect(visibleText(html)).toContain(`Showing ${ids.length} older files of your 250.`);
      }
      next = linkTo(html, 'Older files');
      expect(sizes.length).toBeLessThan(5);
    }
    expect(sizes).toEqual([100, 100, 50]);
    expect(seen).toEqual(aliceIds);
    expect(new Set(seen).size).toBe(250);
  });

  test.for([
    ['not base64 at all', '%%%'],
    ['not one of ours', 'not-a-cursor'],
    ['cut short', 'MTc2'],
    ['far too long', 'A'.repeat(300)],
  ])(
    'when the cursor is %s, then a 400 page says in words that the page is gone and links to the newest files',
    async ([, cursor], { app, alice }) => {
      const { status, type, html } = await page(app, `/files?cursor=${cursor}`, alice.cookie);
      expect(status).toBe(400);
      expect(type).toMatch(/^text\/html/);
      const text = visibleText(html);
      expect(text).toContain('This page of your files does not exist any more.');
      expect(text).not.toContain('Invalid cursor');
      expect(linkTo(html, 'Go to your newest files')).toBe('/files');
      expect(rowIds(html)).toEqual([]);
      // Still the signed-in header, and the title names the error, not "My files".
      expect(menuOf(html)).toEqual({ ...SIGNED_IN_MENU, goToMyFiles: false });
      expect(titlesOf(html)).toEqual(['Bad request · File sharing']);
    },
  );

  test("when another user opens /files with a cursor from Alice's listing, then they see none of her files, only their own older than that point", async ({
    app,
    alice,
    bob,
  }) => {
    const first = await page(app, '/files', alice.cookie);
    const foreign = linkTo(first.html, 'Older files');
    expect(foreign).toBeDefined();
    const { status, html } = await page(app, foreign as string, bob.cookie);
    expect(status).toBe(200);
    // The cursor is only a point in time: the list it moves through is always the caller's.
    expect(rowIds(html)).toEqual([bobOld.id]);
    expect(rowIds(html).filter((id) => aliceIds.includes(id))).toEqual([]);
    expect(visibleText(html)).not.toContain('shot-');
    expect(rowIds(html)).not.toContain(bobNew.id);
    expect(linkTo(html, 'Newest files')).toBe('/files');
    expect(linkTo(html, 'Older files')).toBeUndefined();
  });
});

describe('the empty states', () => {
  test('when a user has no files, then the page still says "No files yet" with the upload link, and offers no other pages', async ({
    app,
  }) => {
    await app.createUser('carol');
    const carol = await app.login('carol');
    const { status, html } = await page(app, '/files', carol);
    expect(status).toBe(200);
    const text = visibleText(html);
    expect(text).toContain('No files yet');
    expect(linkTo(html, 'Upload your first file')).toBe('/upload');
    expect(linkTo(html, 'Older files')).toBeUndefined();
    expect(linkTo(html, 'Newest files')).toBeUndefined();
    expect(text).not.toContain('Showing');
  });

  test('when a later page has no files left (deleted since), then it says there are no older files, not "No files yet", and links to the newest', async ({
    app,
  }) => {
    await app.createUser('dan');
    const dan = await app.login('dan');
    await uploadMany(app, dan, 'dan', 101);
    const ids = await wholeList(app, dan);
    const older = linkTo((await page(app, '/files', dan)).html, 'Older files') as string;
    expect(rowIds((await page(app, older, dan)).html)).toEqual([ids[100]]);
    // The oldest file, alone on the second page, is deleted (in another tab, say).
    expect(
      (await fetch(`${app.url}/api/v1/files/${ids[100]}`, { method: 'DELETE', headers: { cookie: dan } })).status,
    ).toBe(200);

    const { status, html } = await page(app, older, dan);
    expect(status).toBe(200);
    expect(rowIds(html)).toEqual([]);
    const text = visibleText(html);
    expect(text).toContain('No older files.');
    expect(text).not.toContain('No files yet');
    expect(text).toContain('by 100 files');
    expect(linkTo(html, 'Newest files')).toBe('/files');
    expect(linkTo(html, 'Older files')).toBeUndefined();
  });
});
