// Cross-site request forgery: every state-changing request another site could
// make a logged-in browser send — API and pages, login included — is refused with 403 and
// changes nothing. Scripts without Origin/Sec-Fetch-Site, and our own origin, pass.
import { DEFAULT_PASSWORD, type TestApp } from '../helpers/app';
import { test as base, describe, expect } from '../helpers/fixtures';
import { multipartBody, MULTIPART_TYPE } from '../helpers/multipart';
import { expectServerAnswers, snapshot, uploadSmall, type StorageSnapshot } from '../helpers/hardening-http';
import { rawRequest, type RawResponse } from '../helpers/raw-http';

/** The user another site tries to act as: logged in (their cookie), with one file. */
interface Victim {
  app: TestApp;
  username: string;
  cookie: string;
  fileId: string;
}

const test = base.extend('victim', { scope: 'file' }, async ({ app, alice }): Promise<Victim> => {
  const uploaded = await uploadSmall(app.url, alice.cookie, 'precious', 'precious.txt');
  expect(uploaded.status).toBe(201);
  return { app, username: alice.username, cookie: alice.cookie, fileId: uploaded.json.file!.id };
});

interface Attack {
  name: string;
  send(victim: Victim, headers: Record<string, string>): Promise<RawResponse>;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM_TYPE = 'application/x-www-form-urlencoded';
const uploadBody = () =>
  multipartBody([{ name: 'file', filename: 'forged.txt', contentType: 'text/plain', content: 'forged' }]);

/** Every state-changing door, each sent with the victim's cookie (a browser would attach it). */
const attacks: Attack[] = [
  {
    name: 'POST /api/v1/auth/login',
    send: ({ app, username }, headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/api/v1/auth/login',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ username, password: DEFAULT_PASSWORD }),
      }),
  },
  {
    name: 'POST /api/v1/files',
    send: ({ app, cookie }, headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/api/v1/files',
        headers: { cookie, 'content-type': MULTIPART_TYPE, ...headers },
        body: uploadBody(),
      }),
  },
  {
    name: 'DELETE /api/v1/files/<id>',
    send: ({ app, cookie, fileId }, headers) =>
      rawRequest(app.url, { method: 'DELETE', path: `/api/v1/files/${fileId}`, headers: { cookie, ...headers } }),
  },
  {
    name: 'POST /api/v1/auth/logout',
    send: ({ app, cookie }, headers) =>
      rawRequest(app.url, { method: 'POST', path: '/api/v1/auth/logout', headers: { cookie, ...headers } }),
  },
  {
    name: 'POST /login',
    send: ({ app, username }, headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/login',
        headers: { 'content-type': FORM_TYPE, ...headers },
        body: form({ username, password: DEFAULT_PASSWORD, redirectTo: '/files' }),
      }),
  },
  {
    name: 'POST /logout',
    send: ({ app, cookie }, headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/logout',
        headers: { cookie, 'content-type': FORM_TYPE, ...headers },
        body: '',
      }),
  },
  {
    name: 'POST /upload',
    send: ({ app, cookie }, headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/upload',
        headers: { cookie, 'content-type': MULTIPART_TYPE, ...headers },
        body: uploadBody(),
      }),
  },
  {
    name: 'POST /files/<id>/delete',
    send: ({ app, cookie, fileId }, headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: `/files/${fileId}/delete`,
        headers: { cookie, 'content-type': FORM_TYPE, ...headers },
        body: '',
      }),
  },
  {
    name: 'POST /trpc/files.delete',
    send: ({ app, cookie, fileId }, headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/trpc/files.delete',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ id: fileId }),
      }),
  },
];

const crossSiteHeaders: Array<[string, Record<string, string>]> = [
  ['Origin: https://evil.example', { origin: 'https://evil.example' }],
  ['no Origin but Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
  ['Origin: null', { origin: 'null' }],
];

async function state(app: TestApp): Promise<{ storage: StorageSnapshot; sessions: Record<string, unknown>[] }> {
  return {
    storage: await snapshot(app),
    sessions: await app.rows('select id, user_id, expires_at from sessions order by id'),
  };
}

/** The victim's session still works and the file is still there, content included. */
async function expectVictimUnharmed({ app, cookie, fileId }: Victim): Promise<void> {
  const listed = await fetch(`${app.url}/api/v1/files`, { headers: { cookie } });
  expect(listed.status).toBe(200);
  const { files } = (await listed.json()) as { files: Array<{ id: string }> };
  expect(files.map((file) => file.id)).toEqual([fileId]);
  const raw = await fetch(`${app.url}/f/${fileId}/raw`);
  expect(await raw.text()).toBe('precious');
}

describe('cross-site requests are refused and change nothing', () => {
  const cases = crossSiteHeaders.flatMap(([label, headers]) => attacks.map((attack) => ({ label, headers, attack })));
  test.for(cases)(
    'when $attack.name arrives with $label, then 403 and nothing changed',
    async ({ headers, attack }, { victim }) => {
      const { app } = victim;
      const before = await state(app);
      const res = await attack.send(victim, headers);
      expect(res.status).toBe(403);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(await state(app)).toEqual({ ...before, storage: { ...before.storage, incomplete: [] } });
      await expectVictimUnharmed(victim);
      await expectServerAnswers(app.url);
    },
  );
});

describe('what a refused request answers', () => {
  test('when a page form is posted from another site, then 403 with an HTML page that says so and links home, echoing nothing', async ({
    app,
  }) => {
    const res = await rawRequest(app.url, {
      method: 'POST',
      path: '/login?next=<script>alert(1)</script>',
      headers: { 'content-type': FORM_TYPE, origin: 'https://evil.example' },
      body: form({ username: '<b>target</b>', password: DEFAULT_PASSWORD }),
    });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
    expect(res.text).toMatch(/^<!DOCTYPE html>/);
    expect(res.text).toContain('<h1>Request refused</h1>');
    expect(res.text).toContain('sent from another website');
    expect(res.text).toContain('<a href="/">');
    expect(res.text).not.toMatch(/script|<b>|evil/);
  });

  test('when an API call comes from another site, then 403 with the JSON error', async ({ victim }) => {
    const res = await attacks[1].send(victim, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toEqual({ error: 'Cross-site request refused' });
  });
});

describe('requests from our own origin, and scripts that send neither header, pass', () => {
  test('when the Origin is our own (BASE_URL), then login 200, upload 201 and delete 200 (API and page)', async ({
    victim,
  }) => {
    const { app, cookie } = victim;
    const own = { origin: app.url, 'sec-fetch-site': 'same-origin' };
    const login = await attacks[0].send(victim, own);
    expect(login.status).toBe(200);
    expect(String(login.headers['set-cookie'])).toMatch(/^token=/);

    const uploaded = await attacks[1].send(victim, own);
    expect(uploaded.status).toBe(201);
    const id = (JSON.parse(uploaded.text) as { file: { id: string } }).file.id;
    const deleted = await rawRequest(app.url, {
      method: 'DELETE',
      path: `/api/v1/files/${id}`,
      headers: { cookie, ...own },
    });
    expect(deleted.status).toBe(200);

    const page = await attacks[6].send(victim, own);
    expect(page.status).toBe(302);
    const pageId = String(page.headers.location).replace('/f/', '');
    const pageDelete = await rawRequest(app.url, {
      method: 'POST',
      path: `/files/${pageId}/delete`,
      headers: { cookie, 'content-type': FORM_TYPE, ...own },
      body: '',
    });
    expect(pageDelete.status).toBe(302);
    expect(pageDelete.headers.location).toBe('/files');
    await expectVictimUnharmed(victim);
  });

  test('when neither Origin nor Sec-Fetch-Site is sent (curl), then login 200, upload 201, tRPC delete 200', async ({
    victim,
  }) => {
    const { app, cookie } = victim;
    const login = await attacks[0].send(victim, {});
    expect(login.status).toBe(200);
    const uploaded = await attacks[1].send(victim, {});
    expect(uploaded.status).toBe(201);
    const id = (JSON.parse(uploaded.text) as { file: { id: string } }).file.id;
    const deleted = await rawRequest(app.url, {
      method: 'POST',
      path: '/trpc/files.delete',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ id }),
    });
    expect(deleted.status).toBe(200);
    await expectVictimUnharmed(victim);
  });

  test('when Sec-Fetch-Site is same-site or none without an Origin, then the request passes', async ({ victim }) => {
    const { app, cookie } = victim;
    for (const site of ['same-origin', 'same-site', 'none']) {
      const res = await attacks[1].send(victim, { 'sec-fetch-site': site });
      expect(res.status, site).toBe(201);
      const id = (JSON.parse(res.text) as { file: { id: string } }).file.id;
      expect(
        (await rawRequest(app.url, { method: 'DELETE', path: `/api/v1/files/${id}`, headers: { cookie } })).status,
      ).toBe(200);
    }
    await expectVictimUnharmed(victim);
  });
});

describe('no CORS for foreign origins', () => {
  test('when a foreign origin sends a preflight or reads any response, then no Access-Control-Allow-Origin header is ever sent', async ({
    victim,
  }) => {
    const { app, cookie, fileId } = victim;
    const evil = { origin: 'https://evil.example' };
    const responses: Array<[string, RawResponse]> = [];
    for (const path of [
      '/api/v1/files',
      `/api/v1/files/${fileId}`,
      '/api/v1/auth/login',
      '/trpc/files.delete',
      '/upload',
      '/login',
      `/f/${fileId}/raw`,
      '/healthz',
    ]) {
      responses.push([
        `OPTIONS ${path}`,
        await rawRequest(app.url, {
          method: 'OPTIONS',
          path,
          headers: {
            ...evil,
            'access-control-request-method': 'DELETE',
            'access-control-request-headers': 'content-type',
          },
        }),
      ]);
      responses.push([`GET ${path}`, await rawRequest(app.url, { path, headers: { ...evil, cookie } })]);
    }
    for (const [label, res] of responses) {
      expect(res.status, label).not.toBe(500);
      expect(res.headers['access-control-allow-origin'], label).toBeUndefined();
      expect(res.headers['access-control-allow-credentials'], label).toBeUndefined();
    }
    await expectVictimUnharmed(victim);
  });

  test('when a tRPC mutation is tried over GET (which the guard lets through), then it is refused and nothing is deleted', async ({
    victim,
  }) => {
    const { app, cookie, fileId } = victim;
    const input = encodeURIComponent(JSON.stringify({ id: fileId }));
    const res = await rawRequest(app.url, {
      path: `/trpc/files.delete?input=${input}`,
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    await expectVictimUnharmed(victim);
  });
});
