// The admin console's pages without JavaScript (ADR 0083): /admin lists every account with what
// it stores, searched, sorted and a page at a time; its forms change an account and say so; a
// deletion asks first on a page that names what goes. To anyone but an admin each page is the
// not-found page, and a form posted there changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserSchema } from '../../server/db/entities/user.entity';
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { alertsOf, getPage, postForm, visibleText } from '../helpers/pages-fixtures';

let app: TestApp;
let admin: string;
let plain: string;

beforeAll(async () => {
  app = await startApp();
  for (const name of ['ada', 'bert', 'cleo']) await app.createUser(name);
  await app.orm.em.fork().nativeUpdate(UserSchema, { usernameKey: 'ada' }, { isAdmin: true });
  [admin, plain] = await Promise.all([app.login('ada'), app.login('bert')]);
  const upload = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie: plain },
    body: fileForm('seventeen bytes!!', 'notes.txt', 'text/plain'),
  });
  expect(upload.status).toBe(201);
});
afterAll(() => app?.close());

const statusText = (html: string) => /<p role="status"[^>]*>([^<]*)<\/p>/.exec(html)?.[1] ?? null;

describe('the admin console without JavaScript', () => {
  it('when someone who is not an admin opens or posts to a console page, then it is the not-found page and nothing changes', async () => {
    for (const cookie of [undefined, plain]) {
      for (const path of [
        '/admin',
        '/admin?sort=bytes',
        '/admin/users/cleo/delete',
        '/admin/storage',
        '/admin/settings',
      ]) {
        const res = await getPage(app, path, cookie);
        expect(res.status, path).toBe(404);
        expect(visibleText(await res.text())).toContain('Page not found');
      }
      const posted = await postForm(app, '/admin?index', { intent: 'disable', username: 'cleo' }, { cookie });
      expect(posted.status).toBe(404);
      const deleted = await postForm(app, '/admin/users/cleo/delete', {}, { cookie });
      expect(deleted.status).toBe(404);
    }
    const rows = await app.rows('select username from users where disabled_at is null order by username_key');
    expect(rows.map((row) => row.username)).toEqual(['ada', 'bert', 'cleo']);
    const header = await (await getPage(app, '/files', plain)).text();
    expect(header).not.toContain('href="/admin"');
  });

  it('when an admin opens /admin, then the header leads there and the table shows each account with its files, bytes and state', async () => {
    const res = await getPage(app, '/admin', admin);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('href="/admin"');
    const text = visibleText(html);
    expect(text).toContain('3 accounts in all.');
    expect(html).toMatch(/<tr data-username="ada">[\s\S]*?admin<\/span>/);
    expect(html).toMatch(/<tr data-username="bert">[\s\S]*?1 file[\s\S]*?17 bytes/);
    expect(html.indexOf('data-username="ada"')).toBeLessThan(html.indexOf('data-username="bert"'));

    const sorted = await (await getPage(app, '/admin?sort=bytes&order=desc', admin)).text();
    expect(sorted.indexOf('data-username="bert"')).toBeLessThan(sorted.indexOf('data-username="ada"'));
    const searched = visibleText(await (await getPage(app, '/admin?q=CLE', admin)).text());
    expect(searched).toContain('1 account match “CLE”.');
    const bad = await getPage(app, '/admin?sort=size', admin);
    expect(bad.status).toBe(400);
    expect(visibleText(await bad.text())).toContain('sort is one of username, created, lastSignIn, files, bytes');
  });

  it('when an admin opens the storage and the settings, then they show the totals, the largest user and the variables, secrets hidden', async () => {
    const storage = visibleText(await (await getPage(app, '/admin/storage', admin)).text());
    expect(storage).toContain('17 bytes in 1 file');
    expect(storage).toContain('a folder on this machine');
    expect(storage).toMatch(/free of/);
    const settings = await (await getPage(app, '/admin/settings', admin)).text();
    expect(visibleText(settings)).toContain('SESSION_SECRET (set, hidden)');
    expect(visibleText(settings)).toContain('MAX_UPLOAD_BYTES not set: the default');
    expect(settings).not.toContain(app.env.SESSION_SECRET);
  });

  it('when an admin uses a row’s forms, then each change is said and shows in the table; their own account and a bad quota are refused with a message', async () => {
    const said = async (fields: Record<string, string>, status = 200) => {
      const res = await postForm(app, '/admin?index', fields, { cookie: admin });
      expect(res.status, JSON.stringify(fields)).toBe(status);
      return res.text();
    };
    expect(statusText(await said({ intent: 'set-quota', username: 'cleo', quota: '2GB' }))).toBe(
      'The quota of cleo is now 2GB.',
    );
    expect(statusText(await said({ intent: 'disable', username: 'cleo' }))).toBe('cleo is disabled.');
    expect(statusText(await said({ intent: 'admin-on', username: 'cleo' }))).toBe('cleo is an admin.');
    expect(statusText(await said({ intent: 'sign-out', username: 'bert' }))).toBe('bert: 1 session ended.');
    expect((await getPage(app, '/files', plain)).status).toBe(302);
    const table = await (await getPage(app, '/admin?q=cleo', admin)).text();
    expect(table).toMatch(/<tr data-username="cleo">[\s\S]*?admin<\/span>[\s\S]*?disabled<\/span>[\s\S]*?2 GB/);

    expect(alertsOf(await said({ intent: 'disable', username: 'ada' }, 409))).toContain(
      'You cannot disable your own account here: another admin can',
    );
    expect(alertsOf(await said({ intent: 'set-quota', username: 'cleo', quota: 'lots' }, 400))[0]).toMatch(
      /^Quota must be a size/,
    );
    expect((await said({ intent: 'explode', username: 'cleo' }, 400)).length).toBeGreaterThan(0);
  });

  it('when an admin creates a user from the form, then it can log in; a taken name is said and nothing is made', async () => {
    const made = await postForm(
      app,
      '/admin?index',
      { intent: 'create', newUsername: 'dora', password: 'a perfectly fine password' },
      { cookie: admin },
    );
    expect(statusText(await made.text())).toBe('dora was created.');
    expect(await app.login('dora', 'a perfectly fine password')).toMatch(/^token=/);
    const taken = await postForm(
      app,
      '/admin?index',
      { intent: 'create', newUsername: 'DORA', password: 'a perfectly fine password' },
      { cookie: admin },
    );
    expect(taken.status).toBe(409);
    expect(alertsOf(await taken.text())).toContain('Username is already taken');
  });

  it('when an admin deletes a user, then the page first names what goes, and its button deletes and says so', async () => {
    const ask = await getPage(app, '/admin/users/bert/delete', admin);
    expect(ask.status).toBe(200);
    const question = visibleText(await ask.text());
    expect(question).toContain('Delete bert?');
    expect(question).toContain('with 1 file (17 bytes)');
    const done = await postForm(app, '/admin/users/bert/delete', {}, { cookie: admin });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/admin?deleted=bert');
    const list = await (await getPage(app, '/admin?deleted=bert', admin)).text();
    expect(statusText(list)).toBe('bert was deleted, with everything they stored.');
    expect(list).not.toContain('data-username="bert"');
    expect(statusText(await (await getPage(app, '/admin?deleted=ada', admin)).text())).toBeNull();
    expect(await app.rows('select id from users where username_key = ?', ['bert'])).toEqual([]);
    expect((await getPage(app, '/admin/users/bert/delete', admin)).status).toBe(404);
    const self = await postForm(app, '/admin/users/ada/delete', {}, { cookie: admin });
    expect(self.status).toBe(409);
  });
});
