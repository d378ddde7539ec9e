// The share controls on the pages without JavaScript (ADR 0014): the upload form's link options,
// the list's expiry, downloads and lock, and the owner's settings form on the file's page.
import { afterAll, beforeAll } from 'vitest';
import { startApp, TestClock, type TestApp } from '../helpers/app';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { alertsOf, getPage, postForm, visibleText } from '../helpers/pages-fixtures';

/** The upload form's body as a browser sends it: its fields in page order, the file last. */
function uploadForm(fields: Record<string, string>, content = 'page upload', filename = 'page.txt') {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([content], { type: 'text/plain' }), filename);
  return form;
}

async function row(app: TestApp, id: string) {
  const [found] = await app.rows('select expires_at, max_downloads, downloads, password_hash from files where id = ?', [
    id,
  ]);
  return found;
}

/** The value a field of the page shows: an input's value attribute, a select's selected option, a checkbox's checked state. */
function fieldValue(html: string, name: string): string | boolean | null {
  const select = new RegExp(`<select[^>]*name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html);
  if (select) return /<option[^>]*value="([^"]*)"[^>]*selected=""/.exec(select[1])?.[1] ?? null;
  const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
  if (!input) return null;
  if (/type="checkbox"/.test(input)) return /\bchecked=""/.test(input);
  return /\bvalue="([^"]*)"/.exec(input)?.[1] ?? null;
}

function optionsOf(html: string, name: string): string[] {
  const select = new RegExp(`<select[^>]*name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? '';
  return [...select.matchAll(/<option[^>]*>([^<]*)<\/option>/g)].map((match) => match[1]);
}

describe('the upload page', () => {
  test('when the upload page is shown, then the link options (expiry presets, maximum downloads, password) come before the file input', async ({
    app,
    alice,
  }) => {
    const html = await (await getPage(app, '/upload', alice.cookie)).text();
    expect(optionsOf(html, 'expiresIn')).toEqual(['1 hour', '1 day', '7 days', '30 days', 'Never']);
    expect(html).toMatch(/<option value="never" selected="">Never<\/option>/);
    const fileInput = html.indexOf('name="file"');
    for (const name of ['expiresIn', 'maxDownloads', 'password']) {
      expect(html.indexOf(`name="${name}"`), name).toBeGreaterThan(0);
      expect(html.indexOf(`name="${name}"`), name).toBeLessThan(fileInput);
    }
  });

  test('when the form is posted with link options, then the file is stored with them and the browser goes to its page', async ({
    app,
    alice,
  }) => {
    const res = await fetch(`${app.url}/upload`, {
      method: 'POST',
      headers: { cookie: alice.cookie },
      body: uploadForm({ expiresIn: '86400', maxDownloads: '5', password: 'page secret' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    const id = res.headers.get('location')!.replace('/f/', '');
    const stored = await row(app, id);
    expect(Number(stored.expires_at) || Date.parse(String(stored.expires_at))).toBeGreaterThan(
      Date.now() + 86400_000 - 60_000,
    );
    expect(stored).toMatchObject({ max_downloads: 5, downloads: 0 });
    expect(String(stored.password_hash)).toMatch(/^\$2/);
  });

  test('when the form is posted with a bad option, then the page says what is wrong with status 400 and nothing is stored', async ({
    app,
    alice,
  }) => {
    const before = await app.storedFiles();
    const res = await fetch(`${app.url}/upload`, {
      method: 'POST',
      headers: { cookie: alice.cookie },
      body: uploadForm({ expiresIn: 'never', maxDownloads: '0', password: '' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(alertsOf(await res.text())).toEqual(['Maximum downloads must be at least 1']);
    expect(await app.storedFiles()).toEqual(before);
  });

  test('when the form is refused for a field, then the message names it by its label, never by its internal name', async ({
    app,
    alice,
  }) => {
    const refusals: Array<[Record<string, string>, string]> = [
      [{ maxDownloads: '2000000000' }, 'Maximum downloads must be at most 1000000000'],
      [{ maxDownloads: '2.5' }, 'Maximum downloads must be a whole number'],
      [{ password: 'é'.repeat(40) }, 'Password must be at most 72 bytes of UTF-8'],
    ];
    for (const [fields, message] of refusals) {
      const res = await fetch(`${app.url}/upload`, {
        method: 'POST',
        headers: { cookie: alice.cookie },
        body: uploadForm(fields),
        redirect: 'manual',
      });
      expect(res.status, message).toBe(400);
      const alerts = alertsOf(await res.text());
      expect(alerts).toEqual([message]);
      expect(alerts[0]).not.toMatch(/maxDownloads|expiresIn|password/);
    }
  });

  test('when a link option comes after the file part, then the message names the field by its label', async ({
    app,
    alice,
  }) => {
    const form = new FormData();
    form.append('file', new Blob(['late'], { type: 'text/plain' }), 'late.txt');
    form.append('password', 'too late');
    const res = await fetch(`${app.url}/upload`, {
      method: 'POST',
      headers: { cookie: alice.cookie },
      body: form,
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(alertsOf(await res.text())).toEqual(['The “Password” field must come before the file part']);
  });

  test('when the form is refused without JavaScript, then it comes back with the link options as typed, and the password is never sent back', async ({
    app,
    alice,
  }) => {
    const res = await fetch(`${app.url}/upload`, {
      method: 'POST',
      headers: { cookie: alice.cookie },
      body: uploadForm({ expiresIn: '3600', maxDownloads: '0', password: 'typed secret' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(fieldValue(html, 'expiresIn')).toBe('3600');
    expect(fieldValue(html, 'maxDownloads')).toBe('0');
    expect(fieldValue(html, 'password')).toBeNull();
    expect(html).not.toContain('typed secret');
    expect(visibleText(html)).toContain(
      'Choose the file again. Type the password again too: it is never sent back to the page.',
    );
  });

  test('when a refused form had markup in a field, then it comes back as text, never as markup', async ({
    app,
    alice,
  }) => {
    const res = await fetch(`${app.url}/upload`, {
      method: 'POST',
      headers: { cookie: alice.cookie },
      body: uploadForm({ maxDownloads: '"><script>alert(1)</script>' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).not.toContain('<script>alert(1)');
    expect(fieldValue(html, 'maxDownloads')).toBe('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  test('when the server forces an expiry, then the upload page offers only the allowed presets, with the default chosen', async () => {
    const forced = await startApp({ MAX_EXPIRY: '7d', DEFAULT_EXPIRY: '2d' });
    try {
      await forced.createUser('carol');
      const html = await (await getPage(forced, '/upload', await forced.login('carol'))).text();
      expect(optionsOf(html, 'expiresIn')).toEqual(['1 hour', '1 day', '2 days', '7 days']);
      expect(html).toMatch(/<option value="172800" selected="">2 days<\/option>/);
    } finally {
      await forced.close();
    }
  });
});

describe('the files list', () => {
  test('when files have an expiry, a limit and a password, then the list shows "expires in …", "downloads / limit" and a lock', async ({
    app,
    bob,
  }) => {
    const res = await fetch(`${app.url}/upload`, {
      method: 'POST',
      headers: { cookie: bob.cookie },
      body: uploadForm(
        { expiresIn: String(3 * 86400 + 3600), maxDownloads: '5', password: 'bob secret' },
        'x',
        'listed.txt',
      ),
      redirect: 'manual',
    });
    const id = res.headers.get('location')!.replace('/f/', '');
    await fetch(`${app.url}/f/${id}/raw`, { headers: { 'x-share-password': 'bob secret' } });
    await fetch(`${app.url}/f/${id}/raw`, { headers: { 'x-share-password': 'bob secret' } });
    const html = await (await getPage(app, '/files', bob.cookie)).text();
    const rowHtml = new RegExp(`<tr[^>]*data-file-id="${id}"[\\s\\S]*?</tr>`).exec(html)![0];
    expect(visibleText(rowHtml)).toContain('expires in 3 days');
    expect(visibleText(rowHtml)).toContain('2 / 5');
    expect(rowHtml).toContain('aria-label="Password-protected"');
  });
});

describe('the time a link has left', () => {
  // The service's clock, moved on by the test: "right away" is a few seconds after the upload.
  const clock = new TestClock();
  let timed: TestApp;
  let dana: string;
  beforeAll(async () => {
    timed = await startApp({}, { clock });
    await timed.createUser('dana');
    dana = await timed.login('dana');
  });
  afterAll(() => timed?.close());

  /** Uploads through the page's form with this expiry; the new file's id. */
  async function uploadExpiring(expiresIn: string, filename: string): Promise<string> {
    const res = await fetch(`${timed.url}/upload`, {
      method: 'POST',
      headers: { cookie: dana },
      body: uploadForm({ expiresIn }, 'x', filename),
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    return res.headers.get('location')!.replace('/f/', '');
  }

  async function expiryShown(id: string): Promise<{ list: string; page: string; keep: string }> {
    const listHtml = await (await getPage(timed, '/files', dana)).text();
    const rowHtml = new RegExp(`<tr[^>]*data-file-id="${id}"[\\s\\S]*?</tr>`).exec(listHtml)![0];
    const pageHtml = await (await getPage(timed, `/f/${id}`, dana)).text();
    return {
      list: visibleText(/<td class="expires">[\s\S]*?<\/td>/.exec(rowHtml)![0]),
      page: visibleText(/<dd class="expiry">[\s\S]*?<\/dd>/.exec(pageHtml)![0]),
      keep: optionsOf(pageHtml, 'expiresIn')[0],
    };
  }

  test('when a file was just uploaded with a 1-day expiry, then the list, its page and the "keep" choice say "in 1 day", not "in 23 hours"', async () => {
    const id = await uploadExpiring('86400', 'one-day.txt');
    clock.advance(5_000);
    expect(await expiryShown(id)).toEqual({
      list: 'expires in 1 day',
      page: 'expires in 1 day',
      keep: 'Keep (expires in 1 day)',
    });
  });

  test('when a file was just uploaded with a 1-hour or a 7-day expiry, then it reads "in 1 hour" and "in 7 days"', async () => {
    const hour = await uploadExpiring('3600', 'one-hour.txt');
    const week = await uploadExpiring(String(7 * 86400), 'one-week.txt');
    clock.advance(5_000);
    expect((await expiryShown(hour)).list).toBe('expires in 1 hour');
    expect((await expiryShown(week)).list).toBe('expires in 7 days');
  });

  test('when time passes, then the time left is rounded to the nearest unit: 12 h 40 min reads "13 hours", 50 s "1 minute", 20 s "less than a minute"', async () => {
    const id = await uploadExpiring('86400', 'rounding.txt');
    clock.advance(11 * 3600_000 + 20 * 60_000);
    expect((await expiryShown(id)).list).toBe('expires in 13 hours');
    clock.advance(12 * 3600_000 + 39 * 60_000 + 10_000);
    expect((await expiryShown(id)).list).toBe('expires in 1 minute');
    clock.advance(30_000);
    expect((await expiryShown(id)).list).toBe('expires in less than a minute');
  });
});

describe("the owner's view of a file", () => {
  async function aliceFile(alice: TestUser, fields: Record<string, string> = {}) {
    const res = await alice.fetch('/api/v1/files', {
      method: 'POST',
      body: uploadForm(fields),
    });
    return (await res.json()).file as { id: string };
  }

  test('when the owner opens the file, then its settings are shown with a form; a visitor sees neither', async ({
    app,
    alice,
  }) => {
    const file = await aliceFile(alice, { maxDownloads: '4' });
    const html = await (await getPage(app, `/f/${file.id}`, alice.cookie)).text();
    expect(visibleText(html)).toContain('0 / 4');
    expect(html).toContain('name="intent" value="settings"');
    const visitor = await (await getPage(app, `/f/${file.id}`)).text();
    expect(visitor).not.toContain('value="settings"');
  });

  test('when the owner posts the settings form, then they change and the page says so; a blank expiry and password are kept', async ({
    app,
    alice,
  }) => {
    const file = await aliceFile(alice, { expiresIn: '3600', password: 'first one' });
    const before = await row(app, file.id);
    const res = await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'settings', expiresIn: '', maxDownloads: '9', password: '' },
      { cookie: alice.cookie },
    );
    expect(res.status).toBe(200);
    expect(visibleText(await res.text())).toContain('Settings saved.');
    const after = await row(app, file.id);
    expect(after).toMatchObject({
      max_downloads: 9,
      expires_at: before.expires_at,
      password_hash: before.password_hash,
    });

    await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'settings', expiresIn: 'never', maxDownloads: '', removePassword: '1' },
      { cookie: alice.cookie },
    );
    expect(await row(app, file.id)).toMatchObject({ expires_at: null, max_downloads: null, password_hash: null });
  });

  test('when the owner posts a bad value, then the page says what is wrong with status 400 and nothing changes', async ({
    app,
    alice,
  }) => {
    const file = await aliceFile(alice);
    const res = await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'settings', maxDownloads: '-1', password: 'ab' },
      { cookie: alice.cookie },
    );
    expect(res.status).toBe(400);
    expect(alertsOf(await res.text())).toEqual(['Maximum downloads must be at least 1']);
    expect(await row(app, file.id)).toMatchObject({ max_downloads: null, password_hash: null });
  });

  test('when the settings form is refused without JavaScript, then it comes back with what was typed, the password aside', async ({
    app,
    alice,
  }) => {
    const file = await aliceFile(alice, { password: 'first one' });
    const fields = {
      intent: 'settings',
      expiresIn: '86400',
      maxDownloads: '-1',
      password: 'typed secret',
      removePassword: '1',
    };
    const res = await postForm(app, `/f/${file.id}`, fields, { cookie: alice.cookie });
    expect(res.status).toBe(400);
    const html = await res.text();
    const form = /<form[^>]*aria-label="Link settings"[\s\S]*?<\/form>/.exec(html)![0];
    expect(fieldValue(form, 'expiresIn')).toBe('86400');
    expect(fieldValue(form, 'maxDownloads')).toBe('-1');
    expect(fieldValue(form, 'removePassword')).toBe(true);
    expect(fieldValue(form, 'password')).toBeNull();
    expect(html).not.toContain('typed secret');
    expect(visibleText(form)).toContain('Type the new password again: it is never sent back to the page.');

    // A limit emptied on purpose comes back empty, not as the current one.
    await postForm(app, `/f/${file.id}`, { intent: 'settings', maxDownloads: '7' }, { cookie: alice.cookie });
    const emptied = await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'settings', expiresIn: 'soon', maxDownloads: '' },
      { cookie: alice.cookie },
    );
    expect(emptied.status).toBe(400);
    const again = await emptied.text();
    expect(fieldValue(again, 'maxDownloads')).toBe('');
    expect(visibleText(again)).not.toContain('Type the new password again');
  });

  test('when the owner sets a limit not above the downloads so far, then the message names the field by its label and counts in the right number', async ({
    app,
    alice,
  }) => {
    const file = await aliceFile(alice);
    await (await fetch(`${app.url}/f/${file.id}/raw`)).arrayBuffer();
    const res = await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'settings', maxDownloads: '1' },
      { cookie: alice.cookie },
    );
    expect(res.status).toBe(400);
    expect(alertsOf(await res.text())).toEqual(['Maximum downloads must be more than the 1 download so far']);
    await (await fetch(`${app.url}/f/${file.id}/raw`)).arrayBuffer();
    const twice = await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'settings', maxDownloads: '2' },
      { cookie: alice.cookie },
    );
    expect(alertsOf(await twice.text())).toEqual(['Maximum downloads must be more than the 2 downloads so far']);
  });

  test('when the owner sets a password too long, then the message names the password field, not "password"', async ({
    app,
    alice,
  }) => {
    const file = await aliceFile(alice);
    const res = await postForm(
      app,
      `/f/${file.id}`,
      { intent: 'settings', maxDownloads: '', password: 'x'.repeat(73) },
      { cookie: alice.cookie },
    );
    expect(res.status).toBe(400);
    expect(alertsOf(await res.text())).toEqual(['Password must be at most 72 bytes of UTF-8']);
  });

  test('when another user posts the settings form, then 403 and nothing changes; without a session it asks to log in', async ({
    app,
    alice,
    bob,
  }) => {
    const file = await aliceFile(alice);
    const res = await postForm(app, `/f/${file.id}`, { intent: 'settings', maxDownloads: '1' }, { cookie: bob.cookie });
    expect(res.status).toBe(403);
    const anonymous = await postForm(app, `/f/${file.id}`, { intent: 'settings', maxDownloads: '1' });
    expect([302, 303]).toContain(anonymous.status);
    expect(anonymous.headers.get('location')).toBe(`/login?redirectTo=${encodeURIComponent(`/f/${file.id}`)}`);
    expect((await row(app, file.id)).max_downloads).toBeNull();
  });
});
