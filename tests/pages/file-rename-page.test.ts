// The "Rename" form on the owner's page of a file, as a browser without JavaScript posts it:
// the page shows the new name, a bad one is named on the page and the file keeps its name.
import contentDisposition from 'content-disposition';
import { describe, expect, test } from '../helpers/fixtures';
import { alertsOf, getPage, postForm, visibleText } from '../helpers/pages-fixtures';

/** The page's heading: the file's name. */
const headingOf = (html: string) => visibleText(/<h1 class="file-name">[\s\S]*?<\/h1>/.exec(html)?.[0] ?? '').trim();

/** The value the rename form's field shows. */
function nameField(html: string): string | null {
  const form = /<form[^>]*aria-label="Rename"[\s\S]*?<\/form>/.exec(html)?.[0] ?? '';
  const value = /<input[^>]*name="originalName"[^>]*\bvalue="([^"]*)"/.exec(form)?.[1];
  return value === undefined
    ? null
    : value
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
}

describe("the owner's page of a file", () => {
  test('when the owner opens the page, then a Rename form shows the current name; a visitor sees no such form', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload('notes', 'notes.txt', 'text/plain');
    const html = await (await getPage(app, `/f/${file.id}`, alice.cookie)).text();
    expect(html).toContain('name="intent" value="rename"');
    expect(nameField(html)).toBe('notes.txt');
    const visitor = await (await getPage(app, `/f/${file.id}`)).text();
    expect(visitor).not.toContain('value="rename"');
    expect(nameField(visitor)).toBeNull();
  });

  test('when the owner posts a new name, then the page, the list and the download show it and the link stays', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload('the minutes', 'minutes.txt', 'text/plain');
    const res = await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'rename', originalName: 'Minutes <March> & "April".txt' },
      { cookie: alice.cookie },
    );
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(headingOf(html)).toBe('Minutes <March> & "April".txt');
    expect(visibleText(html)).toContain('File renamed.');
    expect(nameField(html)).toBe('Minutes <March> & "April".txt');
    expect(html).not.toContain('<March>');

    const list = await (await getPage(app, '/files', alice.cookie)).text();
    expect(visibleText(list)).toContain('Minutes <March> & "April".txt');
    expect(visibleText(list)).not.toContain('minutes.txt');
    const raw = await fetch(`${app.url}/f/${file.id}/raw?download=1`);
    expect(contentDisposition.parse(raw.headers.get('content-disposition') ?? '').parameters.filename).toBe(
      'Minutes <March> & "April".txt',
    );
    expect(await raw.text()).toBe('the minutes');
  });

  test('when the owner posts a blank name, then the page says so with status 400 and the file keeps its old name', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload('kept', 'kept.txt', 'text/plain');
    const res = await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'rename', originalName: '   ' },
      { cookie: alice.cookie },
    );
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(alertsOf(html)).toEqual(['Name must not be empty']);
    expect(headingOf(html)).toBe('kept.txt');
    const again = await (await getPage(app, `/f/${file.id}`, alice.cookie)).text();
    expect(headingOf(again)).toBe('kept.txt');
  });

  test('when another user posts the rename form, then the page refuses with 403 and the name stays', async ({
    app,
    alice,
    bob,
  }) => {
    const { file } = await alice.upload('mine', 'mine.txt', 'text/plain');
    const res = await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'rename', originalName: 'taken.txt' },
      { cookie: bob.cookie },
    );
    expect(res.status).toBe(403);
    expect(visibleText(await res.text())).toContain('You can only rename your own files.');
    const page = await (await getPage(app, `/f/${file.id}`, alice.cookie)).text();
    expect(headingOf(page)).toBe('mine.txt');
  });

  test('when someone signed out posts the rename form, then they are sent to log in and the name stays', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload('mine', 'signed-out.txt', 'text/plain');
    const res = await postForm(app, `/f/${file.id}`, { intent: 'rename', originalName: 'taken.txt' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^\/login\?redirectTo=/);
    const page = await (await getPage(app, `/f/${file.id}`, alice.cookie)).text();
    expect(headingOf(page)).toBe('signed-out.txt');
  });
});
