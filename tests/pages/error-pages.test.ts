// The error pages that follow a form posted without JavaScript: the status, a message in words
// for a person, and — as on any page — the header of the user who is logged in, with "Go to my
// files". (An action's error used to reach only the root's error boundary, which Remix renders
// without running the root loader: the page then showed "Log in" to a logged-in user.)
import { describe, expect, test } from '../helpers/fixtures';
import {
  apiUpload,
  getPage,
  menuOf,
  postForm,
  SIGNED_IN_MENU,
  SIGNED_OUT_MENU,
  titlesOf,
  visibleText,
} from '../helpers/pages-fixtures';

describe('error pages after a form, logged in', () => {
  test('when the owner-settings form of the share page is posted for someone else\'s file, then 403 "You can only change the link settings of your own files." under the logged-in header', async ({
    app,
    alice,
    bob,
  }) => {
    const file = await apiUpload(app, alice.cookie, {
      filename: 'alice-settings.txt',
      type: 'text/plain',
      content: 'x',
    });
    const res = await postForm(app, `/f/${file.id}`, { intent: 'settings', maxDownloads: '1' }, { cookie: bob.cookie });
    expect(res.status).toBe(403);
    const html = await res.text();
    const text = visibleText(html);
    expect(text).toContain('Not allowed');
    expect(text).toContain('You can only change the link settings of your own files.');
    expect(text).not.toContain('Forbidden');
    expect(menuOf(html)).toEqual(SIGNED_IN_MENU);
    expect(titlesOf(html)).toEqual(['Not allowed · File sharing']);
    const [row] = await app.rows('select max_downloads from files where id = ?', [file.id]);
    expect(row.max_downloads).toBeNull();
  });

  test('when the share page is posted with an unknown form, then 400 "Unknown form." under the logged-in header', async ({
    app,
    alice,
  }) => {
    const file = await apiUpload(app, alice.cookie, { filename: 'alice-form.txt', type: 'text/plain', content: 'x' });
    const res = await postForm(app, `/f/${file.id}`, { intent: 'make-me-owner' }, { cookie: alice.cookie });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(visibleText(html)).toContain('Unknown form.');
    expect(menuOf(html)).toEqual(SIGNED_IN_MENU);
    expect(titlesOf(html)).toEqual(['Bad request · File sharing']);
  });

  test('when the share page of a file that does not exist is posted, then 404 under the logged-in header', async ({
    app,
    alice,
  }) => {
    const res = await postForm(
      app,
      '/f/noSuchFile0000000000000',
      { intent: 'settings', maxDownloads: '1' },
      { cookie: alice.cookie },
    );
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(visibleText(html)).toContain('Not found');
    expect(menuOf(html)).toEqual(SIGNED_IN_MENU);
    expect(titlesOf(html)).toEqual(['Not found · File sharing']);
  });

  test('when a form is posted to an address that does not exist, then 404 under the logged-in header', async ({
    app,
    alice,
  }) => {
    const res = await postForm(app, '/no/such/page', { anything: '1' }, { cookie: alice.cookie });
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(visibleText(html)).toContain('Page not found.');
    expect(menuOf(html)).toEqual(SIGNED_IN_MENU);
  });
});

describe('a page posted without its form', () => {
  // What a script (or a mistaken curl) sends: no body at all, or JSON. formData() fails on both.
  const notAForm: Array<[string, RequestInit]> = [
    ['no body', {}],
    ['a JSON body', { headers: { 'content-type': 'application/json' }, body: '{"username":"alice"}' }],
  ];
  for (const [what, init] of notAForm) {
    test(`when /login, the share page and /settings are posted with ${what}, then each is a 400 page saying the form was missing, not a 500`, async ({
      app,
      alice,
    }) => {
      const file = await apiUpload(app, alice.cookie, {
        filename: `no-form-${what}.txt`,
        type: 'text/plain',
        content: 'x',
      });
      for (const [path, cookie] of [
        ['/login', undefined],
        [`/f/${file.id}`, undefined],
        [`/f/${file.id}`, alice.cookie],
        ['/settings', alice.cookie],
      ] as const) {
        const res = await fetch(`${app.url}${path}`, {
          method: 'POST',
          redirect: 'manual',
          ...init,
          headers: { ...(init.headers as object), ...(cookie ? { cookie } : {}) },
        });
        expect(res.status, path).toBe(400);
        const html = await res.text();
        expect(visibleText(html), path).toContain('This request did not carry the form. Send it again from the page.');
        expect(titlesOf(html), path).toEqual(['Bad request · File sharing']);
      }
    });
  }

  test('when the ShareX download is posted without its form, then 400 and no file', async ({ app, alice }) => {
    const res = await fetch(`${app.url}/settings/sharex`, { method: 'POST', headers: { cookie: alice.cookie } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-disposition')).toBeNull();
  });
});

describe('a request that a page does not take', () => {
  test('when a form is posted to a page that has none (/) or OPTIONS is sent to a page (/, /files), then 405 with a page saying the request was the wrong kind, not that the server failed', async ({
    app,
    alice,
  }) => {
    const asked: Array<[string, string, string | undefined]> = [
      ['POST', '/', undefined],
      ['OPTIONS', '/files', alice.cookie],
      ['OPTIONS', '/', undefined],
    ];
    for (const [method, path, cookie] of asked) {
      const res = await fetch(`${app.url}${path}`, {
        method,
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
        body: method === 'POST' ? 'anything=1' : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('content-type'), `${method} ${path}`).toMatch(/^text\/html/);
      const html = await res.text();
      const text = visibleText(html);
      expect(text, `${method} ${path}`).toContain(
        'This address does not take that request: it is a page to open, not one to send a form to.',
      );
      expect(text, `${method} ${path}`).not.toContain('Something went wrong');
      expect(titlesOf(html), `${method} ${path}`).toEqual(['Wrong kind of request · File sharing']);
    }
  });
});

describe('error pages, the other cases unchanged', () => {
  test('when a logged-in user opens an address that does not exist, then 404 under the logged-in header', async ({
    app,
    alice,
  }) => {
    const html = await (await getPage(app, '/no/such/page', alice.cookie)).text();
    expect(menuOf(html)).toEqual(SIGNED_IN_MENU);
    expect(titlesOf(html)).toEqual(['Not found · File sharing']);
  });

  test('when a visitor posts the share page of a file that does not exist, then 404 with "Log in" and no "Go to my files"', async ({
    app,
  }) => {
    const res = await postForm(app, '/f/noSuchFile0000000000000', { intent: 'unlock', password: 'x' });
    expect(res.status).toBe(404);
    expect(menuOf(await res.text())).toEqual(SIGNED_OUT_MENU);
  });

  test('when a link has expired, then its page is 410 "Link gone" with that title', async ({ app, alice }) => {
    const file = await apiUpload(app, alice.cookie, { filename: 'brief.txt', type: 'text/plain', content: 'x' });
    await app.rows('update files set expires_at = ? where id = ?', [Date.now() - 1000, file.id]);
    const res = await getPage(app, `/f/${file.id}`);
    expect(res.status).toBe(410);
    expect(titlesOf(await res.text())).toEqual(['Link gone · File sharing']);
  });
});
