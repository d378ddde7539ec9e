// Cross-site request forgery: every state-changing request another site could
// make a logged-in browser send — API and pages, login included — is refused with 403 and
// changes nothing. Scripts without Origin/Sec-Fetch-Site, and our own origin, pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, startApp, type TestApp } from '../helpers/app';
import { multipartBody, MULTIPART_TYPE } from '../helpers/multipart';
import {
  expectServerAnswers,
  rawRequest,
  snapshot,
  uploadSmall,
  type RawResponse,
  type StorageSnapshot,
} from '../helpers/hardening-http';

let app: TestApp;
let cookie: string;
let fileId: string;

beforeAll(async () => {
  app = await startApp();
  await app.createUser('target');
  cookie = await app.login('target');
  const uploaded = await uploadSmall(app.url, cookie, 'precious', 'precious.txt');
  expect(uploaded.status).toBe(201);
  fileId = uploaded.json.file!.id;
});
afterAll(() => app.close());

interface Attack {
  name: string;
  send(headers: Record<string, string>): Promise<RawResponse>;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM_TYPE = 'application/x-www-form-urlencoded';
const uploadBody = () =>
  multipartBody([{ name: 'file', filename: 'forged.txt', contentType: 'text/plain', content: 'forged' }]);

/** Every state-changing door, each sent with the victim's cookie (a browser would attach it). */
const attacks: Attack[] = [
  {
    name: 'POST /api/v1/auth/login',
    send: (headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/api/v1/auth/login',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ username: 'target', password: DEFAULT_PASSWORD }),
      }),
  },
  {
    name: 'POST /api/v1/files',
    send: (headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/api/v1/files',
        headers: { cookie, 'content-type': MULTIPART_TYPE, ...headers },
        body: uploadBody(),
      }),
  },
  {
    name: 'DELETE /api/v1/files/<id>',
    send: (headers) =>
      rawRequest(app.url, { method: 'DELETE', path: `/api/v1/files/${fileId}`, headers: { cookie, ...headers } }),
  },
  {
    name: 'POST /api/v1/auth/logout',
    send: (headers) =>
      rawRequest(app.url, { method: 'POST', path: '/api/v1/auth/logout', headers: { cookie, ...headers } }),
  },
  {
    name: 'POST /login',
    send: (headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/login',
        headers: { 'content-type': FORM_TYPE, ...headers },
        body: form({ username: 'target', password: DEFAULT_PASSWORD, redirectTo: '/files' }),
      }),
  },
  {
    name: 'POST /logout',
    send: (headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/logout',
        headers: { cookie, 'content-type': FORM_TYPE, ...headers },
        body: '',
      }),
  },
  {
    name: 'POST /upload',
    send: (headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/upload',
        headers: { cookie, 'content-type': MULTIPART_TYPE, ...headers },
        body: uploadBody(),
      }),
  },
  {
    name: 'POST /files/<id>/delete',
    send: (headers) =>
      rawRequest(app.url, {
        method: 'POST',
        path: `/files/${fileId}/delete`,
        headers: { cookie, 'content-type': FORM_TYPE, ...headers },
        body: '',
      }),
  },
  {
    name: 'POST /trpc/files.delete',
    send: (headers) =>
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

async function state(): Promise<{ storage: StorageSnapshot; sessions: Record<string, unknown>[] }> {
  return {
    storage: await snapshot(app),
    sessions: await app.rows('select id, user_id, expires_at from sessions order by id'),
  };
}

/** The victim's session still works and the file is still there, content included. */
async function expectVictimUnharmed(): Promise<void> {
  const listed = await fetch(`${app.url}/api/v1/files`, { headers: { cookie } });
  expect(listed.status).toBe(200);
  const { files } = (await listed.json()) as { files: Array<{ id: string }> };
  expect(files.map((file) => file.id)).toEqual([fileId]);
  const raw = await fetch(`${app.url}/f/${fileId}/raw`);
  expect(await raw.text()).toBe('precious');
}

describe('cross-site requests are refused and change nothing', () => {
  const cases = crossSiteHeaders.flatMap(([label, headers]) => attacks.map((attack) => ({ label, headers, attack })));
  it.each(cases)('when $attack.name arrives with $label, then 403 and nothing changed', async ({ headers, attack }) => {
    const before = await state();
    const res = await attack.send(headers);
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(await state()).toEqual({ ...before, storage: { ...before.storage, incomplete: [] } });
    await expectVictimUnharmed();
    await expectServerAnswers(app.url);
  });
});

describe('what a refused request answers', () => {
  it('when a page form is posted from another site, then 403 with an HTML page that says so and links home, echoing nothing', async () => {
    const res = await rawRequest(app.url, {
      method: 'POST',
      path: '/login?next=<script>alert(1)</script>',
      headers: { 'content-type': FORM_TYPE, origin: 'https://evil.example' },
      body: form({ username: '<b>target</b>', password: DEFAULT_PASSWORD }),
    });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
    expect(res.body).toMatch(/^<!DOCTYPE html>/);
    expect(res.body).toContain('<h1>Request refused</h1>');
    expect(res.body).toContain('sent from another website');
    expect(res.body).toContain('<a href="/">');
    expect(res.body).not.toMatch(/script|<b>|evil/);
  });

  it('when an API call comes from another site, then 403 with the JSON error', async () => {
    const res = await attacks[1].send({ origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual({ error: 'Cross-site request refused' });
  });
});

describe('requests from our own origin, and scripts that send neither header, pass', () => {
  it('when the Origin is our own (BASE_URL), then login 200, upload 201 and delete 200 (API and page)', async () => {
    const own = { origin: app.url, 'sec-fetch-site': 'same-origin' };
    const login = await attacks[0].send(own);
    expect(login.status).toBe(200);
    expect(String(login.headers['set-cookie'])).toMatch(/^token=/);

    const uploaded = await attacks[1].send(own);
    expect(uploaded.status).toBe(201);
    const id = (JSON.parse(uploaded.body) as { file: { id: string } }).file.id;
    const deleted = await rawRequest(app.url, {
      method: 'DELETE',
      path: `/api/v1/files/${id}`,
      headers: { cookie, ...own },
    });
    expect(deleted.status).toBe(200);

    const page = await attacks[6].send(own);
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
    await expectVictimUnharmed();
  });

  it('when neither Origin nor Sec-Fetch-Site is sent (curl), then login 200, upload 201, tRPC delete 200', async () => {
    const login = await attacks[0].send({});
    expect(login.status).toBe(200);
    const uploaded = await attacks[1].send({});
    expect(uploaded.status).toBe(201);
    const id = (JSON.parse(uploaded.body) as { file: { id: string } }).file.id;
    const deleted = await rawRequest(app.url, {
      method: 'POST',
      path: '/trpc/files.delete',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ id }),
    });
    expect(deleted.status).toBe(200);
    await expectVictimUnharmed();
  });

  it('when Sec-Fetch-Site is same-site or none without an Origin, then the request passes', async () => {
    for (const site of ['same-origin', 'same-site', 'none']) {
      const res = await attacks[1].send({ 'sec-fetch-site': site });
      expect(res.status, site).toBe(201);
      const id = (JSON.parse(res.body) as { file: { id: string } }).file.id;
      expect(
        (await rawRequest(app.url, { method: 'DELETE', path: `/api/v1/files/${id}`, headers: { cookie } })).status,
      ).toBe(200);
    }
    await expectVictimUnharmed();
  });
});

describe('no CORS for foreign origins', () => {
  it('when a foreign origin sends a preflight or reads any response, then no Access-Control-Allow-Origin header is ever sent', async () => {
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
    await expectVictimUnharmed();
  });

  it('when a tRPC mutation is tried over GET (which the guard lets through), then it is refused and nothing is deleted', async () => {
    const input = encodeURIComponent(JSON.stringify({ id: fileId }));
    const res = await rawRequest(app.url, {
      path: `/trpc/files.delete?input=${input}`,
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    await expectVictimUnharmed();
  });
});
