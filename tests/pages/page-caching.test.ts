// What a browser may keep of the pages: nothing of a logged-in user's (Cache-Control: private,
// no-store), so that Back after logging out, or the next person at a shared computer, cannot
// bring their files or settings back from the cache. Pages for a visitor with no session, and
// the raw files (server/doors/raw/raw-file.ts decides theirs), are left as they were.
import { describe, expect, test } from '../helpers/fixtures';
import { apiUpload, getPage } from '../helpers/pages-fixtures';

let fileId: string;

test.beforeAll(async ({ app, alice }) => {
  fileId = (await apiUpload(app, alice.cookie, { filename: 'private-list.txt', type: 'text/plain', content: 'x' })).id;
});

describe('Cache-Control of the pages', () => {
  test.for([
    ['/files', 'the list of their files'],
    ['/settings', 'their settings'],
    ['/upload', 'the upload page'],
    ['/', 'the home page with their menu'],
    ['/f/<id>', 'their own file, with its owner settings'],
    ['/no/such/page', 'a not-found page with their menu'],
  ])(
    'when a logged-in user opens %s (%s), then the answer says "private, no-store"',
    async ([pathname], { app, alice }) => {
      const res = await getPage(app, pathname.replace('<id>', fileId), alice.cookie);
      expect([200, 404]).toContain(res.status);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
    },
  );

  test('when the page fetches its data with JavaScript (/files.data), then that answer says "private, no-store" too', async ({
    app,
    alice,
  }) => {
    const res = await getPage(app, '/files.data', alice.cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).not.toMatch(/^text\/html/);
    expect(await res.text()).toContain('private-list.txt');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
  });

  test.for(['/login', '/', '/f/<id>'])(
    'when a visitor with no session opens %s, then no Cache-Control is added',
    async (pathname, { app }) => {
      const res = await getPage(app, pathname.replace('<id>', fileId));
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBeNull();
    },
  );

  test("when the owner fetches the raw file, then its Cache-Control is the raw link's own, not the pages'", async ({
    app,
    alice,
  }) => {
    const asOwner = await getPage(app, `/f/${fileId}/raw`, alice.cookie);
    const asVisitor = await getPage(app, `/f/${fileId}/raw`);
    expect(asOwner.status).toBe(200);
    expect(asOwner.headers.get('cache-control')).toBe(asVisitor.headers.get('cache-control'));
  });
});
