// The upload page's form without JavaScript (ADR 0038): several files chosen at once make a
// collection with the form's title and link options; one file stays a file.
import { describe, expect, test } from '../helpers/fixtures';
import { alertsOf, getPage, visibleText } from '../helpers/pages-fixtures';

/** A small limit, so that one file of a set can pass it while the whole form is not refused by its length. */
const LIMIT = 1024;
test.override('appEnv', { MAX_UPLOAD_BYTES: String(LIMIT) });

/** The upload form's body as a browser sends it: its fields in page order, then one part per chosen file. */
function uploadForm(fields: Record<string, string>, files: Array<[name: string, content: string]>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [name, content] of files) form.append('file', new Blob([content], { type: 'text/plain' }), name);
  return form;
}

describe('the upload form with several files', () => {
  test('when the upload page is shown, then its file input takes several files, after the link options and the title', async ({
    app,
    alice,
  }) => {
    const html = await (await getPage(app, '/upload', alice.cookie)).text();
    const input = /<input[^>]*type="file"[^>]*>/.exec(html)?.[0] ?? '';
    expect(input).toContain('name="file"');
    expect(input).toContain('multiple');
    expect(html.indexOf('name="title"')).toBeGreaterThan(0);
    expect(html.indexOf('name="title"')).toBeLessThan(html.indexOf('type="file"'));
  });

  test('when three files are posted with a title and link options, then each is stored, one collection holds them in order with those options, and the browser goes to its page', async ({
    app,
    alice,
  }) => {
    const res = await alice.fetch('/upload', {
      method: 'POST',
      body: uploadForm({ expiresIn: '86400', maxDownloads: '4', password: 'form secret', title: 'Minutes' }, [
        ['monday.txt', 'one'],
        ['tuesday.txt', 'two!'],
        ['monday.txt', 'again'],
      ]),
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(/^\/c\/[A-Za-z0-9_-]{22}$/);
    const id = location.slice(3);
    const [collection] = await app.rows(
      'select title, max_downloads, password_hash, expires_at from collections where id = ?',
      [id],
    );
    expect(collection).toMatchObject({ title: 'Minutes', max_downloads: 4 });
    expect(String(collection.password_hash)).toMatch(/^\$2/);
    expect(collection.expires_at).not.toBeNull();
    const files = await app.rows(
      'select f.original_name, f.size, f.max_downloads, f.password_hash, cf.path from collection_files cf join files f on f.id = cf.file_id where cf.collection_id = ? order by cf.position',
      [id],
    );
    expect(files.map((file) => [file.original_name, Number(file.size), file.path])).toEqual([
      ['monday.txt', 3, 'monday.txt'],
      ['tuesday.txt', 4, 'tuesday.txt'],
      ['monday.txt', 5, 'monday.txt'],
    ]);
    // No file's own link is looser than the collection's.
    for (const file of files) {
      expect(Number(file.max_downloads)).toBe(4);
      expect(String(file.password_hash)).toMatch(/^\$2/);
    }
    const page = await getPage(app, location, alice.cookie);
    expect(page.status).toBe(200);
    expect(visibleText(await page.text())).toContain('3 files, 12 bytes');
  });

  test('when one file is posted with a title, then it is a file as before, its page the browser goes to, and no collection is made', async ({
    app,
    alice,
  }) => {
    const before = await app.rows('select count(*) as n from collections', []);
    const res = await alice.fetch('/upload', {
      method: 'POST',
      body: uploadForm({ title: 'Alone' }, [['alone.txt', 'just me']]),
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^\/f\/[A-Za-z0-9_-]{22}$/);
    const after = await app.rows('select count(*) as n from collections', []);
    expect(Number(after[0].n)).toBe(Number(before[0].n));
  });

  test('when a title is refused after the files arrived, then the page says why with 400, and no file nor collection is kept', async ({
    app,
    alice,
  }) => {
    const filesBefore = await app.rows('select count(*) as n from files', []);
    const res = await alice.fetch('/upload', {
      method: 'POST',
      body: uploadForm({ title: 'x'.repeat(1000) }, [
        ['a.txt', 'a'],
        ['b.txt', 'b'],
      ]),
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(alertsOf(await res.text())[0]).toMatch(/title/i);
    const filesAfter = await app.rows('select count(*) as n from files', []);
    expect(Number(filesAfter[0].n)).toBe(Number(filesBefore[0].n));
  });

  test('when the second file passes the size limit, then the page answers 413 in words, and the first file is not kept', async ({
    app,
    alice,
  }) => {
    const filesBefore = await app.rows('select count(*) as n from files', []);
    const res = await alice.fetch('/upload', {
      method: 'POST',
      body: uploadForm({}, [
        ['small.txt', 'small'],
        ['large.txt', 'x'.repeat(LIMIT + 1)],
      ]),
      redirect: 'manual',
    });
    expect(res.status).toBe(413);
    expect(alertsOf(await res.text())[0]).toContain('up to 1 KiB');
    const filesAfter = await app.rows('select count(*) as n from files', []);
    expect(Number(filesAfter[0].n)).toBe(Number(filesBefore[0].n));
  });
});
