// The settings page's API tokens without JavaScript (issue 15): created with a form and shown
// once, listed by name and first characters, revoked with a button; the ShareX uploader it
// offers is valid JSON that uploads for real with its own headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app';
import { getPage, postForm, visibleText } from '../helpers/pages-fixtures';

let app: TestApp;
let cookie: string;

beforeAll(async () => {
  app = await startApp();
  await app.createUser('settler');
  cookie = await app.login('settler');
});
afterAll(() => app?.close());

async function createWithForm(name: string): Promise<string> {
  const res = await postForm(app, '/settings', { intent: 'create-token', name, expiresInDays: '30' }, { cookie });
  expect(res.status).toBe(201);
  const html = await res.text();
  const token = /value="(fsk_[A-Za-z0-9_-]{43})"/.exec(html)?.[1];
  expect(token).toBeDefined();
  expect(visibleText(html)).toContain('Copy it now: it is not shown again.');
  return token!;
}

describe('the settings page', () => {
  it('when a visitor without a session opens it, then they are sent to log in', async () => {
    const res = await getPage(app, '/settings');
    expect(res.headers.get('location')).toBe('/login?redirectTo=%2Fsettings');
  });

  it('when a token is created with the form, then it is shown once, works, and the list later shows only its name and start', async () => {
    const token = await createWithForm('curl on the NAS');
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const later = await (await getPage(app, '/settings', cookie)).text();
    expect(later).not.toContain(token);
    expect(visibleText(later)).toContain('curl on the NAS');
    expect(visibleText(later)).toContain(`${token.slice(0, 10)}…`);
  });

  it('when a token is revoked with its button, then the page says so and the token stops working', async () => {
    const token = await createWithForm('short-lived');
    const [{ id }] = await app.rows('select id from api_tokens where name = ?', ['short-lived']);
    const res = await postForm(app, '/settings', { intent: 'revoke-token', id: String(id) }, { cookie });
    expect(res.status).toBe(200);
    expect(visibleText(await res.text())).toContain('The token was revoked');
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('when the form has no name, then the page says so with status 400 and no token is made', async () => {
    const res = await postForm(app, '/settings', { intent: 'create-token', name: ' ', expiresInDays: '' }, { cookie });
    expect(res.status).toBe(400);
    expect(visibleText(await res.text())).toContain('name is required');
  });

  it('when the ShareX config is downloaded, then it is valid JSON whose request, headers and URL path make a real upload', async () => {
    const token = await createWithForm('ShareX');
    const res = await postForm(app, '/settings/sharex', { token }, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="filesharing.sxcu"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const config = JSON.parse(await res.text());
    expect(config).toMatchObject({ RequestMethod: 'POST', Body: 'MultipartFormData', RequestURL: `${app.url}/api/v1/files`, URL: '{json:url}' });
    // Making the file is not a use of the token.
    const [unused] = await app.rows('select last_used_at from api_tokens where name = ?', ['ShareX']);
    expect(unused.last_used_at).toBeNull();

    // What ShareX does with it: a multipart POST with its headers, the file under FileFormName.
    const form = new FormData();
    form.append(config.FileFormName, new Blob(['a screenshot'], { type: 'image/png' }), 'Screenshot.png');
    const upload = await fetch(config.RequestURL, { method: config.RequestMethod, headers: config.Headers, body: form });
    expect(upload.status).toBe(201);
    const answer = await upload.json();
    const jsonPath = /^\{json:(\w+)\}$/.exec(config.URL)![1];
    expect(answer[jsonPath]).toBe(`${app.url}/f/${answer.file.id}`);
    expect((await fetch(answer[jsonPath])).status).toBe(200);
  });

  it("when the ShareX config is asked for with a token that is not the user's, then 400 and no file", async () => {
    await app.createUser('stranger');
    const strangerCookie = await app.login('stranger');
    const token = await createWithForm('mine only');
    const res = await postForm(app, '/settings/sharex', { token }, { cookie: strangerCookie });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(await res.text()).toContain('not one of your valid API tokens');
  });
});
