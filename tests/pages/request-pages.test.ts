// File requests' pages (ADR 0048) as a browser without JavaScript sees them: the guest's page
// /r/<id> (what is asked, what it still takes, the form of several files, the answer listing
// what this guest sent), its 410 and password pages, and the owner's /requests with what
// arrived (guests' names and notes as text) and the link from My files.
import type { FileRequestDto } from '../../server/services/file-requests/owner';
import { describe, expect, registeredUser, test, type TestUser } from '../helpers/fixtures';
import { alertsOf, getPage, postForm, visibleText } from '../helpers/pages-fixtures';

async function createRequest(user: TestUser, body: Record<string, unknown>): Promise<FileRequestDto> {
  const res = await user.fetch('/api/v1/requests', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`request not made: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { request: FileRequestDto }).request;
}

/** The guest's form as a browser posts it: the name and note before the files. */
function guestForm(fields: Record<string, string>, files: Array<{ name: string; content: string }>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append('file', new Blob([file.content]), file.name);
  return form;
}

describe('the guest’s page', () => {
  test('when a guest opens a request, then they see its title, message and what it still takes, and nothing of its owner', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, {
      title: 'Holiday photos',
      message: 'Send yours <b>here</b>',
      maxFiles: 5,
      maxBytes: 2 * 1024 ** 3,
    });
    const res = await getPage(app, `/r/${request.id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const text = visibleText(html);
    expect(text).toContain('Holiday photos');
    expect(text).toContain('Send yours <b>here</b>');
    expect(html).not.toContain('<b>here</b>');
    expect(text).toContain('Up to 5 more files, 2 GiB in all.');
    expect(text).not.toContain(alice.username);
    expect(html.toLowerCase()).toContain('enctype="multipart/form-data"');
  });

  test('when a request’s limit was set as 2 GB through the API, then the guest reads what is left in GB, and after a file, rounded down', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Raw footage', maxBytes: 2_000_000_000 });
    expect(visibleText(await (await getPage(app, `/r/${request.id}`)).text())).toContain(
      'Any number of files, 2 GB in all.',
    );
    const sent = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      body: guestForm({}, [{ name: 'clip.txt', content: 'a few bytes' }]),
    });
    expect(sent.status).toBe(201);
    await sent.text();
    expect(visibleText(await (await getPage(app, `/r/${request.id}`)).text())).toContain(
      'Any number of files, 1.9 GB in all.',
    );
  });

  test('when a guest sends two files with the form, then the answer lists those two and not what others sent, and a hostile name stays text for the owner', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Reports' });
    const other = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      body: guestForm({ name: 'Dave' }, [{ name: 'daves.txt', content: 'dave' }]),
    });
    expect(other.status).toBe(201);
    await other.text();

    const res = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      body: guestForm({ name: '<script>alert(1)</script>Eve', note: '<img src=x onerror=alert(2)>' }, [
        { name: 'one.txt', content: 'first' },
        { name: 'two.txt', content: 'second' },
      ]),
    });
    expect(res.status).toBe(201);
    const text = visibleText(await res.text());
    expect(text).toContain('Thank you: 2 files sent.');
    expect(text).toContain('one.txt (5 bytes)');
    expect(text).toContain('two.txt (6 bytes)');
    expect(text).not.toContain('daves.txt');

    const page = await getPage(app, '/requests', alice.cookie);
    const html = await page.text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('<img src=x');
    expect(visibleText(html)).toContain('from <script>alert(1)</script>Eve');
    expect(visibleText(html)).toContain('<img src=x onerror=alert(2)>');
  });

  test('when a request is closed, expired or full, then its page answers 410 and says which', async ({
    app,
    alice,
  }) => {
    const closed = await createRequest(alice, { title: 'Closed one' });
    await alice.fetch(`/api/v1/requests/${closed.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ closed: true }),
    });
    const res = await getPage(app, `/r/${closed.id}`);
    expect(res.status).toBe(410);
    expect(visibleText(await res.text())).toContain('This file request is closed');

    const full = await createRequest(alice, { title: 'One file', maxFiles: 1 });
    const sent = await fetch(`${app.url}/r/${full.id}`, {
      method: 'POST',
      body: guestForm({}, [{ name: 'a', content: 'a' }]),
    });
    expect(sent.status).toBe(201);
    const again = await fetch(`${app.url}/r/${full.id}`, {
      method: 'POST',
      body: guestForm({}, [{ name: 'b', content: 'b' }]),
    });
    expect(again.status).toBe(410);
    expect(visibleText(await again.text())).toContain('This file request is full');
    expect((await getPage(app, `/r/${full.id}`)).status).toBe(410);
    expect((await getPage(app, '/r/AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
  });

  test('when a guest opens a request without JavaScript, then its form offers to choose files and promises no dropping or pasting', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Scans' });
    const html = await (await getPage(app, `/r/${request.id}`)).text();
    const form = /<form[^>]*enctype="multipart\/form-data"[^>]*>([\s\S]*?)<\/form>/i.exec(html)?.[1] ?? '';
    expect(form).toMatch(/<input[^>]*type="file"[^>]*name="file"/);
    expect(visibleText(form).toLowerCase()).not.toMatch(/drop|paste/);
  });

  test('when a guest’s file is larger than the room left in the request, then the page says nothing was sent and why, and offers to try again, not to send more', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Small things', maxBytes: 10 });
    const res = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      body: guestForm({ name: 'Ida' }, [{ name: 'big.txt', content: 'far more than ten bytes' }]),
    });
    expect(res.status).toBe(413);
    const html = await res.text();
    expect(alertsOf(html)).toEqual([
      'No file was sent. This file is larger than the room left in this file request. Choose the files again to try again.',
    ]);
    expect(visibleText(html)).not.toContain('Send more files');
    // The form is there to try again.
    expect(html).toMatch(/<input[^>]*type="file"[^>]*name="file"/);
  });

  test('when a request has a password, then its page asks for it first, refuses a wrong one, and opens with the right one', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Protected scans', password: 'letmein' });
    const locked = await getPage(app, `/r/${request.id}`);
    expect(locked.status).toBe(401);
    const lockedText = visibleText(await locked.text());
    expect(lockedText).toContain('Password-protected file request');
    expect(lockedText).not.toContain('Protected scans');

    const wrong = await postForm(app, `/r/${request.id}`, { intent: 'unlock', password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(alertsOf(await wrong.text()).length).toBe(1);

    const right = await postForm(app, `/r/${request.id}`, { intent: 'unlock', password: 'letmein' });
    expect(right.status).toBe(303);
    const cookie = right.headers.getSetCookie()[0];
    expect(cookie).toContain(`Path=/r/${request.id}`);
    const opened = await getPage(app, `/r/${request.id}`, cookie.split(';')[0]);
    expect(opened.status).toBe(200);
    expect(visibleText(await opened.text())).toContain('Protected scans');
    const sent = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      headers: { cookie: cookie.split(';')[0] },
      body: guestForm({}, [{ name: 'scan.pdf', content: 'pdf' }]),
    });
    expect(sent.status).toBe(201);
  });
});

describe('the owner’s page', () => {
  test('when the owner makes a request with the form, closes and deletes it, then the page shows each step, and My files tells of new files', async ({
    app,
    bob,
  }) => {
    const made = await postForm(
      app,
      '/requests',
      { intent: 'create', title: 'Signed contracts', message: 'PDF please', maxFiles: '3', expiresIn: '86400' },
      { cookie: bob.cookie },
    );
    expect(made.status).toBe(303);
    const [request] = ((await (await bob.fetch('/api/v1/requests')).json()) as { requests: FileRequestDto[] }).requests;
    expect(request).toMatchObject({ title: 'Signed contracts', message: 'PDF please', maxFiles: 3 });

    const sent = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      body: guestForm({ name: 'Frank' }, [
        { name: 'a.pdf', content: 'a' },
        { name: 'b.pdf', content: 'b' },
      ]),
    });
    expect(sent.status).toBe(201);
    expect(visibleText(await (await getPage(app, '/files', bob.cookie)).text())).toContain('File requests · 2 new');
    const list = visibleText(await (await getPage(app, '/requests', bob.cookie)).text());
    expect(list).toContain('Signed contracts');
    expect(list).toContain('2 new');
    expect(list).toContain('a.pdf');
    // Seen once the page was opened.
    expect(visibleText(await (await getPage(app, '/files', bob.cookie)).text())).not.toContain('new');

    const closed = await postForm(app, '/requests', { intent: 'close', id: request.id }, { cookie: bob.cookie });
    expect(closed.status).toBe(303);
    expect(visibleText(await (await getPage(app, '/requests', bob.cookie)).text())).toContain('Closed');
    const deleted = await postForm(app, '/requests', { intent: 'delete', id: request.id }, { cookie: bob.cookie });
    expect(deleted.status).toBe(303);
    expect(visibleText(await (await getPage(app, '/requests', bob.cookie)).text())).toContain('No file requests yet.');
  });

  test('when guests sent files through a request, then My files shows under each who sent it and for which request, and the note, all as text', async ({
    app,
  }) => {
    const owner = await registeredUser(app, 'olga');
    const request = await createRequest(owner, { title: 'Tax <i>papers</i>' });
    for (const [fields, name] of [
      [{ name: 'Carol <script>alert(1)</script>', note: 'Scans of the <b>receipts</b>' }, 'receipts.pdf'],
      [{}, 'anonymous.txt'],
    ] as const) {
      const sent = await fetch(`${app.url}/r/${request.id}`, {
        method: 'POST',
        body: guestForm(fields, [{ name, content: name }]),
      });
      expect(sent.status).toBe(201);
      await sent.text();
    }
    await owner.upload('mine', 'mine.txt', 'text/plain');
    for (const view of ['table', 'gallery']) {
      const html = await (await getPage(app, `/files?view=${view}`, owner.cookie)).text();
      const text = visibleText(html);
      expect(text, view).toContain('from Carol <script>alert(1)</script>, for “Tax <i>papers</i>”');
      expect(text, view).toContain('Scans of the <b>receipts</b>');
      expect(text, view).toContain('for “Tax <i>papers</i>”');
      expect(html, view).not.toContain('<script>alert(1)');
      expect(html, view).not.toContain('<b>receipts');
      expect(html, view).not.toContain('<i>papers');
      // One line for each of the two received files, none for her own.
      expect(text.match(/for “Tax <i>papers<\/i>”/g), view).toHaveLength(2);
    }
  });

  test.for([
    ['50 MB', 50_000_000],
    ['1.5GiB', 1.5 * 1024 ** 3],
    ['750 kB', 750_000],
  ] as const)(
    'when the owner types %s as the byte limit, then the row holds %d bytes and both pages show it back as typed',
    async ([typed, bytes], { app, bob }) => {
      const title = `Scans up to ${typed}`;
      const made = await postForm(
        app,
        '/requests',
        { intent: 'create', title, maxSize: typed },
        { cookie: bob.cookie },
      );
      expect(made.status).toBe(303);
      const [row] = await app.rows('select id, max_bytes from file_requests where title = ?', [title]);
      expect(Number(row.max_bytes)).toBe(bytes);
      const shown = typed.replace(/(\d)([A-Za-z])/, '$1 $2');
      const owner = visibleText(await (await getPage(app, '/requests', bob.cookie)).text());
      expect(owner).toContain(`${title} Open Link 0 files received (0 bytes) ; at most ${shown} in all`);
      const guest = visibleText(await (await getPage(app, `/r/${row.id}`)).text());
      expect(guest).toContain(`Any number of files, ${shown} in all.`);
    },
  );

  test('when the byte limit typed is not a size, then the form says what it takes and no request is made', async ({
    app,
    bob,
  }) => {
    for (const typed of ['lots', '0', '5 XB', '-1MB']) {
      const title = `Not a size: ${typed}`;
      const res = await postForm(app, '/requests', { intent: 'create', title, maxSize: typed }, { cookie: bob.cookie });
      expect(res.status, typed).toBe(400);
      expect(alertsOf(await res.text())).toEqual(['Most data in all must be a size such as 500 MB or 2 GiB.']);
      expect(await app.rows('select id from file_requests where title = ?', [title])).toEqual([]);
    }
  });

  test('when the form has no title, then it comes back with the reason', async ({ app, bob }) => {
    const res = await postForm(app, '/requests', { intent: 'create', title: '' }, { cookie: bob.cookie });
    expect(res.status).toBe(400);
    expect(alertsOf(await res.text())).toEqual(['Title is required']);
  });
});
