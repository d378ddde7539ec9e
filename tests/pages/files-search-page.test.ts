// The search form of "My files" without JavaScript: a GET form (search, type, order) whose
// answer is the narrowed, ordered list, and whose page links keep the search.
import { sampleOf } from '../helpers/file-samples';
import { describe, expect, test } from '../helpers/fixtures';
import { getPage, visibleText } from '../helpers/pages-fixtures';

/** The names a page lists, in order. */
function namesOf(html: string): string[] {
  return [...html.matchAll(/<td class="name"><a [^>]*>([\s\S]*?)<\/a>/g)].map((match) => visibleText(match[1]));
}

/** The href of the link whose text is `text`, or undefined. */
function linkTo(html: string, text: string): string | undefined {
  const match = [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi)].find(
    (m) => visibleText(m[2]) === text,
  );
  return match?.[1].replace(/&amp;/g, '&');
}

describe('the search form of My files', () => {
  test.beforeAll(async ({ alice, bob }) => {
    // JPEG bytes: a file's type is read from them (ADR 0064).
    const jpeg = sampleOf('image/jpeg', 32);
    for (let i = 0; i < 105; i++) await alice.upload(jpeg, `trip-${String(i).padStart(3, '0')}.jpg`, 'image/jpeg');
    await alice.upload('notes', 'trip notes.txt', 'text/plain');
    await bob.upload(jpeg, 'trip-bob.jpg', 'image/jpeg');
  }, 60_000);

  test('when the page is shown, then it has a GET form with a search box, a type select and a sort select', async ({
    app,
    alice,
  }) => {
    const html = await (await getPage(app, '/files', alice.cookie)).text();
    const form = /<form[^>]*role="search"[^>]*>[\s\S]*?<\/form>/.exec(html)?.[0] ?? '';
    expect(form).toMatch(/method="get"/);
    expect(form).toMatch(/action="\/files"/);
    expect(form).toContain('name="q"');
    expect(form).toContain('name="type"');
    expect(form).toContain('name="sort"');
  });

  test('when alice searches with a type and an order, then the page lists her matching files in it, and its next page keeps them', async ({
    app,
    alice,
  }) => {
    const first = await (await getPage(app, '/files?q=TRIP&type=images&sort=name', alice.cookie)).text();
    const firstNames = namesOf(first);
    expect(firstNames).toHaveLength(100);
    expect(firstNames[0]).toBe('trip-000.jpg');
    expect(firstNames).not.toContain('trip notes.txt');
    expect(firstNames).not.toContain('trip-bob.jpg');
    // The form shows the search it made.
    expect(first).toMatch(/<input[^>]*name="q"[^>]*value="TRIP"/);
    expect(first).toMatch(/<option value="images" selected="">/);
    expect(first).toMatch(/<option value="name" selected="">/);

    const next = linkTo(first, 'Next page');
    expect(next).toMatch(/^\/files\?q=TRIP&type=images&sort=name&cursor=/);
    const second = await (await getPage(app, next!, alice.cookie)).text();
    expect(namesOf(second)).toEqual(['trip-100.jpg', 'trip-101.jpg', 'trip-102.jpg', 'trip-103.jpg', 'trip-104.jpg']);
    expect(linkTo(second, 'First page')).toBe('/files?q=TRIP&type=images&sort=name');
  });

  test('when nothing matches, then the page says so and links to every file', async ({ app, alice }) => {
    const res = await getPage(app, '/files?q=no+such+name', alice.cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(visibleText(html)).toContain('No files match.');
    expect(linkTo(html, 'Show all your files')).toBe('/files');
  });

  test('when the address names an unknown type, then a 400 page names the reason', async ({ app, alice }) => {
    const res = await getPage(app, '/files?type=pictures', alice.cookie);
    expect(res.status).toBe(400);
    expect(visibleText(await res.text())).toContain('type must be one of images, video, audio, documents, code, other');
  });

  test('when bob picks Code, then the page lists his source files, sent as a browser types them, and not his prose', async ({
    app,
    bob,
  }) => {
    await bob.upload('export const trip = 1;\n', 'trip.ts', 'video/mp2t');
    await bob.upload('# Trip\n', 'trip.md', 'text/markdown');
    const html = await (await getPage(app, '/files?type=code', bob.cookie)).text();
    expect(html).toMatch(/<option value="code" selected="">Code<\/option>/);
    expect(namesOf(html)).toEqual(['trip.ts']);
    expect(namesOf(await (await getPage(app, '/files?type=documents', bob.cookie)).text())).toEqual(['trip.md']);
  });
});
