// A visitor's share page is drawn once and sent again while its file says the same (ADR 0051):
// each answer still carries its own CSP nonce, and every change the owner makes, a download
// counted, an expiry or a deletion shows on the very next look.
import { describe, expect } from 'vitest';
import { TestClock } from '../helpers/app';
import { request, test, type SharingApp, type Uploaded } from './support';

async function look(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers });
  return { status: res.status, html: res.body.toString('utf8'), headers: res.headers };
}

/** The nonces the page's inline scripts carry, and the one its Content-Security-Policy allows. */
function nonces(page: { html: string; headers: Record<string, unknown> }) {
  const inPage = new Set([...page.html.matchAll(/<script nonce="([^"]+)"/g)].map((match) => match[1]));
  const allowed = /'nonce-([^']+)'/.exec(String(page.headers['content-security-policy']))?.[1];
  return { inPage: [...inPage], allowed };
}

function patchFile(app: SharingApp, uploaded: Uploaded, body: Record<string, unknown>) {
  return fetch(`${app.url}/api/v1/files/${uploaded.file.id}`, {
    method: 'PATCH',
    headers: { cookie: app.cookie, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const clock = new TestClock();
test.override('appOptions', { clock });

describe('a visitor’s share page, drawn once', () => {
  test('when a visitor looks twice, then the same page comes back, each time with its own nonce, the one its CSP allows', async ({
    app,
  }) => {
    const uploaded = await app.upload('hello there', 'notes.txt', 'text/plain');
    const first = await look(uploaded.url);
    // A page drawn anew would carry the later moment in its data: a kept one is the same page.
    clock.advance(60_000);
    const second = await look(uploaded.url);
    expect([first.status, second.status]).toEqual([200, 200]);
    const [a, b] = [nonces(first), nonces(second)];
    expect(a.inPage).toEqual([a.allowed]);
    expect(b.inPage).toEqual([b.allowed]);
    expect(a.allowed).not.toBe(b.allowed);
    expect(second.html.replaceAll(b.allowed as string, 'N')).toBe(first.html.replaceAll(a.allowed as string, 'N'));
    expect(second.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(second.html).toContain('notes.txt');
  });

  test('when the owner renames the file, protects it, then deletes it, then the very next look shows each change', async ({
    app,
  }) => {
    const uploaded = await app.upload('content', 'before.txt', 'text/plain');
    expect((await look(uploaded.url)).html).toContain('before.txt');
    expect((await look(uploaded.url)).html).toContain('before.txt');

    expect((await patchFile(app, uploaded, { originalName: 'after.txt' })).status).toBe(200);
    const renamed = await look(uploaded.url);
    expect(renamed.html).toContain('after.txt');
    expect(renamed.html).not.toContain('before.txt');

    expect((await patchFile(app, uploaded, { password: 'open sesame' })).status).toBe(200);
    const locked = await look(uploaded.url);
    expect(locked.status).toBe(401);
    expect(locked.html).not.toContain('after.txt');

    expect((await patchFile(app, uploaded, { password: null })).status).toBe(200);
    expect((await look(uploaded.url)).html).toContain('after.txt');
    const deleted = await fetch(`${app.url}/api/v1/files/${uploaded.file.id}`, {
      method: 'DELETE',
      headers: { cookie: app.cookie },
    });
    expect(deleted.status).toBe(200);
    expect((await look(uploaded.url)).status).toBe(404);
  });

  test('when a limited link’s download is counted, then the next look shows one fewer left; when it is used up or expires, then 410 at once', async ({
    app,
  }) => {
    const limited = await app.upload('abc', 'limited.bin', 'application/octet-stream', { maxDownloads: '2' });
    expect((await look(limited.url)).html).toContain('2 downloads left');
    expect((await request(limited.rawUrl)).status).toBe(200);
    expect((await look(limited.url)).html).toContain('1 download left');
    expect((await request(limited.rawUrl)).status).toBe(200);
    expect((await look(limited.url)).status).toBe(410);

    const expiring = await app.upload('abc', 'expiring.bin', 'application/octet-stream', { expiresIn: '3600' });
    expect((await look(expiring.url)).status).toBe(200);
    expect((await look(expiring.url)).status).toBe(200);
    clock.advance(3601_000);
    expect((await look(expiring.url)).status).toBe(410);
  });

  test('when the owner (a cookie) looks after a visitor, then they get their own page with its settings, never the visitor’s', async ({
    app,
  }) => {
    const uploaded = await app.upload('mine', 'mine.txt', 'text/plain');
    await look(uploaded.url);
    const visitor = await look(uploaded.url);
    const owner = await look(uploaded.url, { cookie: app.cookie });
    expect(owner.status).toBe(200);
    expect(owner.html).toContain('name="maxDownloads"');
    expect(visitor.html).not.toContain('name="maxDownloads"');
  });
});
