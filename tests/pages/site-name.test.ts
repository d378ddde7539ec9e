// The site's own name (SITE_NAME, ADR 0083): the header, every page's title, a share link's
// preview, the web app manifest and the name authenticator apps show; unset, "File sharing".
// A name with markup is text everywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { startApp, TEST_SECRET, type TestApp } from '../helpers/app';
import { apiUpload, getPage, titlesOf, visibleText } from '../helpers/pages-fixtures';

const NAME = 'Acme <Drop> & Co';
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
let app: TestApp;
let cookie: string;

beforeAll(async () => {
  app = await startApp({ SITE_NAME: `  ${NAME}  ` });
  await app.createUser('sam');
  cookie = await app.login('sam');
});
afterAll(() => app?.close());

describe('the site’s own name', () => {
  it('when SITE_NAME is set, then the header and every page’s title say it, escaped', async () => {
    for (const [path, title] of [
      ['/', NAME],
      ['/login', `Log in · ${NAME}`],
      ['/files', `My files · ${NAME}`],
      ['/no-such-page', `Not found · ${NAME}`],
    ] as const) {
      const html = await (await getPage(app, path, path === '/login' ? undefined : cookie)).text();
      expect(titlesOf(html), path).toEqual([escaped(title)]);
      expect(html).toContain('Acme &lt;Drop&gt; &amp; Co');
      expect(html).not.toContain('<Drop>');
      expect(visibleText(html).startsWith(NAME)).toBe(true);
    }
  });

  it('when a share link is previewed, then its preview names the site', async () => {
    const file = await apiUpload(app, cookie, { filename: 'notes.txt', type: 'text/plain', content: 'hello' });
    const html = await (await getPage(app, `/f/${file.id}`)).text();
    expect(html).toContain('<meta property="og:site_name" content="Acme &lt;Drop&gt; &amp; Co"/>');
  });

  it('when the manifest is fetched, then it is named after the site, as a file with its type and cache', async () => {
    const res = await fetch(`${app.url}/manifest.webmanifest`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const manifest = await res.json();
    expect(manifest).toMatchObject({ name: NAME, short_name: 'Files', start_url: '/files' });
  });

  it('when two-factor codes are set up, then the authenticator app is given the site’s name', async () => {
    const res = await fetch(`${app.url}/api/v1/me/2fa`, { method: 'POST', headers: { cookie } });
    expect(res.status).toBe(200);
    const { otpauthUri } = (await res.json()) as { otpauthUri: string };
    expect(decodeURIComponent(otpauthUri)).toContain(`issuer=${NAME}`);
  });

  it('when SITE_NAME is unset, blank, too long or holds a control character, then the default is used or start-up says what is wrong', () => {
    const base = { DATA_DIR: '/tmp/unused', SESSION_SECRET: TEST_SECRET };
    expect(loadConfig(base).siteName).toBe('File sharing');
    expect(loadConfig({ ...base, SITE_NAME: '   ' }).siteName).toBe('File sharing');
    expect(() => loadConfig({ ...base, SITE_NAME: 'x'.repeat(65) })).toThrow('SITE_NAME must be at most 64 characters');
    expect(() => loadConfig({ ...base, SITE_NAME: 'a\u0007b' })).toThrow('SITE_NAME must not hold control characters');
  });
});
