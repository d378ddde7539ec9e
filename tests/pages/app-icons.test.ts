// The app's icons and web app manifest (public/): served with their types and a day's cache, and
// named by every page's head, so a browser tab, an iOS home screen and an installed app show them.
import sharp from 'sharp';
import { describe, expect, test } from '../helpers/fixtures';

describe('the app icons', () => {
  test('when /favicon.svg is fetched, then it is the SVG icon, cached for a day and revalidated by its ETag', async ({
    app,
  }) => {
    const res = await fetch(`${app.url}/favicon.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(await res.text()).toMatch(/^<svg [^>]*viewBox="0 0 64 64"/);
    // As a browser revalidates (fetch would add `Cache-Control: no-cache` to a conditional request otherwise).
    const again = await fetch(`${app.url}/favicon.svg`, {
      headers: { 'if-none-match': res.headers.get('etag') ?? '', 'cache-control': 'max-age=0' },
    });
    expect(again.status).toBe(304);
  });

  test('when the manifest is fetched, then it names the app and its 192 and 512 px PNG icons, each served at that size', async ({
    app,
  }) => {
    const res = await fetch(`${app.url}/manifest.webmanifest`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const manifest = (await res.json()) as { name: string; icons: { src: string; sizes: string; type: string }[] };
    expect(manifest.name).toBe('File sharing');
    const pngs = manifest.icons.filter((icon) => icon.type === 'image/png');
    expect(pngs.map((icon) => icon.sizes)).toEqual(['192x192', '512x512']);
    for (const icon of [...pngs, { src: '/apple-touch-icon.png', sizes: '180x180' }]) {
      const png = await fetch(`${app.url}${icon.src}`);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      const { width, height, format } = await sharp(Buffer.from(await png.arrayBuffer())).metadata();
      expect(`${width}x${height}`, icon.src).toBe(icon.sizes);
      expect(format).toBe('png');
    }
  });

  test('when a page is opened, then its head links the SVG icon, the iOS icon and the manifest', async ({ app }) => {
    const html = await (await fetch(`${app.url}/login`)).text();
    expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>');
    expect(html).toContain('<link rel="apple-touch-icon" href="/apple-touch-icon.png"/>');
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest"/>');
  });

  test('when a file that is not in public/ is asked for, then the not-found page answers, not a folder listing', async ({
    app,
  }) => {
    expect((await fetch(`${app.url}/build/`)).status).toBe(404);
    expect((await fetch(`${app.url}/.env`)).status).toBe(404);
  });
});
