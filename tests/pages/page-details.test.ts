// What the pages say in the small places: the upload limit on the home page, the delete
// confirmation without JavaScript and its notice, what a recipient is told about a link's
// limits, and the PDF preview's name. Plain HTTP, as a browser without JavaScript.
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { apiUpload, getPage, postForm, titlesOf, visibleText } from '../helpers/pages-fixtures';

async function fileRow(app: TestApp, id: string) {
  const [row] = await app.rows('select id from files where id = ?', [id]);
  return row;
}

describe('the home page', () => {
  test('when anyone opens it with the default limit, then it says files can be up to 1 GiB, not "any size"', async ({
    app,
  }) => {
    const text = visibleText(await (await getPage(app, '/')).text());
    expect(text).toContain('Upload a file of up to 1 GiB');
    expect(text).not.toContain('any size');
  });

  test('when MAX_UPLOAD_BYTES is 5 MiB, then the home page says 5 MiB', async () => {
    const small = await startApp({ MAX_UPLOAD_BYTES: String(5 * 1024 * 1024) });
    try {
      expect(visibleText(await (await getPage(small, '/')).text())).toContain('Upload a file of up to 5 MiB');
    } finally {
      await small.close();
    }
  });
});

describe('deleting without JavaScript', () => {
  const NAME = '<b>report</b> & notes.txt';

  test('when the owner presses Delete on /files, then a confirmation page names the file (escaped) and nothing is deleted yet', async ({
    app,
    alice,
  }) => {
    const file = await apiUpload(app, alice.cookie, { filename: NAME, type: 'text/plain', content: 'x' });
    const list = await (await getPage(app, '/files', alice.cookie)).text();
    // The list's Delete button opens the confirmation page (a GET), not the delete itself.
    expect(list).toMatch(new RegExp(`<form method="get" action="/files/${file.id}/delete"`));

    const res = await getPage(app, `/files/${file.id}/delete`, alice.cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('&lt;b&gt;report&lt;/b&gt; &amp; notes.txt');
    expect(html).not.toContain('<b>report</b>');
    expect(visibleText(html)).toContain(`Delete “${NAME}”? Its share link will stop working.`);
    expect(titlesOf(html)).toEqual(['Delete a file · File sharing']);
    expect(html).toMatch(/<form method="post"[^>]*>[\s\S]*name="from" value="confirmation"/);
    expect(await fileRow(app, file.id)).toBeDefined();
  });

  test('when the owner confirms, then the file is gone and the list says "“name” was deleted." with the name escaped', async ({
    app,
    alice,
  }) => {
    const file = await apiUpload(app, alice.cookie, { filename: NAME, type: 'text/plain', content: 'x' });
    const res = await postForm(app, `/files/${file.id}/delete`, { from: 'confirmation' }, { cookie: alice.cookie });
    expect([302, 303]).toContain(res.status);
    const location = res.headers.get('location')!;
    expect(new URL(location, app.url).pathname).toBe('/files');
    expect(await fileRow(app, file.id)).toBeUndefined();

    const html = await (await getPage(app, location, alice.cookie)).text();
    const notice = /<p class="notice" role="status"[^>]*>([^<]*)<\/p>/.exec(html)?.[1];
    expect(notice).toBe('“&lt;b&gt;report&lt;/b&gt; &amp; notes.txt” was deleted.');
  });

  test('when a script posts the delete without the page, then it still deletes and goes back to /files exactly', async ({
    app,
    alice,
  }) => {
    const file = await apiUpload(app, alice.cookie, { filename: 'scripted.txt', type: 'text/plain', content: 'x' });
    const res = await postForm(app, `/files/${file.id}/delete`, {}, { cookie: alice.cookie });
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get('location')).toBe('/files');
    expect(await fileRow(app, file.id)).toBeUndefined();
  });

  test('when another user opens the confirmation page, then it is the 403 page and names nothing; an unknown file is the 404 page', async ({
    app,
    alice,
    bob,
  }) => {
    const file = await apiUpload(app, alice.cookie, { filename: 'private-name.txt', type: 'text/plain', content: 'x' });
    const res = await getPage(app, `/files/${file.id}/delete`, bob.cookie);
    expect(res.status).toBe(403);
    const text = visibleText(await res.text());
    expect(text).toContain('You can only delete your own files.');
    expect(text).not.toContain('private-name.txt');
    expect((await getPage(app, '/files/noSuchFile0000000000000/delete', alice.cookie)).status).toBe(404);
    expect(await fileRow(app, file.id)).toBeDefined();
  });

  test('when a visitor without a session opens the confirmation page, then they are sent to log in and back', async ({
    app,
    alice,
  }) => {
    const file = await apiUpload(app, alice.cookie, { filename: 'later.txt', type: 'text/plain', content: 'x' });
    const res = await getPage(app, `/files/${file.id}/delete`);
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get('location')).toBe(`/login?redirectTo=${encodeURIComponent(`/files/${file.id}/delete`)}`);
  });
});

describe('the share page for a recipient', () => {
  async function upload(alice: TestUser, fields: Record<string, string>) {
    const res = await alice.fetch('/api/v1/files', {
      method: 'POST',
      body: fileForm('x', 'limited.bin', 'application/octet-stream', 'file', fields),
    });
    expect(res.status).toBe(201);
    return (await res.json()).file as { id: string; expiresAt: string | null };
  }

  test('when the link has an expiry and a download limit, then the page says the date in words and how many downloads are left', async ({
    app,
    alice,
  }) => {
    const file = await upload(alice, { expiresAt: '2099-12-03T14:00:00Z', maxDownloads: '3' });
    await fetch(`${app.url}/f/${file.id}/raw`).then((res) => res.arrayBuffer());

    const text = visibleText(await (await getPage(app, `/f/${file.id}`)).text());
    expect(text).toContain('Expires on 3 December 2099, 14:00 UTC');
    expect(text).toContain('2 downloads left');
  });

  test('when one download is left, then it says "1 download left"; without an expiry no date is named', async ({
    app,
    alice,
  }) => {
    const file = await upload(alice, { maxDownloads: '1' });
    const text = visibleText(await (await getPage(app, `/f/${file.id}`)).text());
    expect(text).toContain('1 download left');
    expect(text).not.toContain('Expires on');
  });

  test('when the link has neither, then the page names no limit', async ({ app, alice }) => {
    const file = await upload(alice, {});
    const text = visibleText(await (await getPage(app, `/f/${file.id}`)).text());
    expect(text).not.toContain('Expires on');
    expect(text).not.toMatch(/downloads? left/);
  });
});

describe('the scripts of a page', () => {
  test("when a page streams its data to the browser, then every inline script carries the page's CSP nonce", async ({
    app,
    alice,
  }) => {
    const res = await getPage(app, '/files', alice.cookie);
    const nonce = /'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
    expect(nonce).toBeTruthy();
    const scripts = (await res.text()).match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(1);
    for (const script of scripts) expect(script).toContain(`nonce="${nonce}"`);
  });
});

describe('the PDF preview', () => {
  test('when a PDF is shared, then its preview frame is titled with the file name', async ({ app, alice }) => {
    const file = await apiUpload(app, alice.cookie, {
      filename: 'Annual report.pdf',
      type: 'application/pdf',
      content: '%PDF-1.4\n%%EOF\n',
    });
    const html = await (await getPage(app, `/f/${file.id}`)).text();
    expect(/<iframe[^>]*\btitle="([^"]*)"/.exec(html)?.[1]).toBe('Annual report.pdf');
  });
});
