// Text a person types (ADR 0059): a collection's title, a file request's title and message and a
// token's name are refused with 400 when they hold NUL, another control character or a bidi
// formatting character (a message keeps its line breaks and tabs), at every door: the API's JSON,
// a multipart body, tRPC and the pages' forms. A guest's name and note are cleaned instead, as a
// file's name is. Never a 500. Both backends.
import type { CollectionDto } from '../../server/services/collections';
import type { FileRequestDto, ReceivedFileDto } from '../../server/services/file-requests/owner';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { alertsOf, postForm } from '../helpers/pages-fixtures';
import { TUS, uploadMetadata } from '../helpers/tus';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** What no line of text keeps: NUL, other C0 and C1 controls, a line break, and the bidi characters. */
const NOT_IN_A_LINE: Array<[string, string]> = [
  ['NUL', 'a\u0000b'],
  ['BEL', 'a\u0007b'],
  ['a line feed', 'a\nb'],
  ['a tab', 'a\tb'],
  ['DEL', 'a\u007fb'],
  ['a C1 control', 'a\u0085b'],
  ['the line separator', 'a\u2028b'],
  ['a right-to-left override', 'evil\u202egpj.exe'],
  ['a left-to-right isolate', 'a\u2066b\u2069'],
  ['a right-to-left mark', 'a\u200fb'],
  ['a lone surrogate', 'a\ud800b'],
];
/** What a text of several lines does not keep either: all of the above but the line feed and the tab. */
const NOT_IN_LINES = NOT_IN_A_LINE.filter(([what]) => what !== 'a line feed' && what !== 'a tab');

function sendJson(user: TestUser, method: string, path: string, body: unknown): Promise<Response> {
  return user.fetch(path, { method, headers: JSON_HEADERS, body: JSON.stringify(body) });
}

/** A 400 with a JSON error naming `field`. */
async function expectRefused(res: Response, field: string, what: string): Promise<void> {
  const text = await res.text();
  expect(res.status, `${what}: ${text}`).toBe(400);
  expect(JSON.parse(text).error, what).toMatch(new RegExp(`^${field} must not contain control characters`));
}

describe('a collection’s title', () => {
  test('when a collection is made or changed with a title holding a control or bidi character, then 400 naming the title, and nothing is made or changed', async ({
    alice,
  }) => {
    const { file } = await alice.upload('one', 'one.txt', 'text/plain');
    const made = await sendJson(alice, 'POST', '/api/v1/collections', { title: 'Holiday', files: [{ id: file.id }] });
    expect(made.status).toBe(201);
    const { collection } = (await made.json()) as { collection: CollectionDto };

    for (const [what, title] of NOT_IN_A_LINE) {
      const files = [{ id: file.id }];
      await expectRefused(await sendJson(alice, 'POST', '/api/v1/collections', { title, files }), 'title', what);
      await expectRefused(
        await sendJson(alice, 'PATCH', `/api/v1/collections/${collection.id}`, { title, password: 'sesame-sesame' }),
        'title',
        what,
      );
    }
    const list = (await (await alice.fetch('/api/v1/collections')).json()) as { collections: CollectionDto[] };
    expect(list.collections.map((c) => [c.title, c.hasPassword])).toEqual([['Holiday', false]]);
  });

  test('when files are sent in one multipart body with such a title, then 400 naming the title, and none of the files is kept', async ({
    bob,
  }) => {
    const form = new FormData();
    form.append('title', 'evil\u202egpj.exe');
    form.append('file', new Blob(['a']), 'a.txt');
    form.append('file', new Blob(['b']), 'b.txt');
    await expectRefused(await bob.fetch('/api/v1/collections', { method: 'POST', body: form }), 'title', 'multipart');
    const list = (await (await bob.fetch('/api/v1/files')).json()) as { files: unknown[] };
    expect(list.files).toEqual([]);
  });

  test('when a title kept by an older version holds a right-to-left override, then the archive’s Content-Disposition does not carry it', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload('archived', 'archived.txt', 'text/plain');
    const made = await sendJson(alice, 'POST', '/api/v1/collections', { title: 'Report', files: [{ id: file.id }] });
    const { collection } = (await made.json()) as { collection: CollectionDto };
    await app.rows('update "collections" set "title" = ? where "id" = ?', ['Report\u202Efdp.exe\u0007', collection.id]);

    const res = await fetch(`${app.url}/c/${collection.id}/archive`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const disposition = res.headers.get('content-disposition') ?? '';
    expect(disposition).toBe(`attachment; filename="Reportfdp.exe.zip"; filename*=UTF-8''Reportfdp.exe.zip`);
    expect(disposition.toUpperCase()).not.toContain('%E2%80%AE');
  });
});

describe('a file request’s title and message', () => {
  test('when a request is made with such a title, or a message with a control or bidi character, then 400 naming it, and no request is made', async ({
    alice,
  }) => {
    for (const [what, title] of NOT_IN_A_LINE)
      await expectRefused(
        await sendJson(alice, 'POST', '/api/v1/requests', { title, password: 'letmein' }),
        'title',
        what,
      );
    for (const [what, message] of NOT_IN_LINES)
      await expectRefused(
        await sendJson(alice, 'POST', '/api/v1/requests', { title: 'Scans', message, password: 'letmein' }),
        'message',
        what,
      );
    const list = (await (await alice.fetch('/api/v1/requests')).json()) as { requests: FileRequestDto[] };
    expect(list.requests).toEqual([]);
  });

  test('when a message has several lines and tabs (a form sends "\\r\\n"), then it is kept with "\\n" line breaks', async ({
    bob,
  }) => {
    const res = await sendJson(bob, 'POST', '/api/v1/requests', {
      title: 'Receipts',
      message: 'Please send:\r\n\t- the PDF\r\n\t- the photos',
    });
    expect(res.status).toBe(201);
    const { request } = (await res.json()) as { request: FileRequestDto };
    expect(request.message).toBe('Please send:\n\t- the PDF\n\t- the photos');
  });

  test('when the tRPC door or the page’s form makes a request with a NUL or a bidi override, then 400 with the reason, never a 500', async ({
    app,
    alice,
  }) => {
    const viaTrpc = await sendJson(alice, 'POST', '/trpc/requests.create', { title: 'a\u0000b' });
    expect(viaTrpc.status).toBe(400);
    expect(JSON.stringify(await viaTrpc.json())).toContain('title must not contain control characters');

    const viaPage = await postForm(
      app,
      '/requests',
      { intent: 'create', title: 'Scans', message: 'first line\r\nsecond \u202eline' },
      { cookie: alice.cookie },
    );
    expect(viaPage.status).toBe(400);
    expect(alertsOf(await viaPage.text())).toEqual([
      'message must not contain control characters (line breaks and tabs aside) or bidirectional formatting characters',
    ]);
    const list = (await (await alice.fetch('/api/v1/requests')).json()) as { requests: FileRequestDto[] };
    expect(list.requests).toEqual([]);
  });
});

describe('a guest’s name and note', () => {
  const NAME_SENT = 'Ann\u0000 \u202eLee\n\u200f';
  const NAME_KEPT = 'Ann Lee';
  const NOTE_SENT = 'Here they are:\r\n\tscan\u0007 one\u2028\u202e\r\nthanks\u0000';
  const NOTE_KEPT = 'Here they are:\n\tscan one\nthanks';

  async function openRequest(user: TestUser): Promise<FileRequestDto> {
    const res = await sendJson(user, 'POST', '/api/v1/requests', { title: 'Send me files', requireName: true });
    expect(res.status).toBe(201);
    return ((await res.json()) as { request: FileRequestDto }).request;
  }

  async function receivedFiles(user: TestUser, id: string): Promise<ReceivedFileDto[]> {
    return ((await (await user.fetch(`/api/v1/requests/${id}`)).json()) as { files: ReceivedFileDto[] }).files;
  }

  test('when a guest’s form sends a name and a note with control and bidi characters, then they are kept without them (the note’s line breaks and tabs kept)', async ({
    app,
    alice,
  }) => {
    const request = await openRequest(alice);
    const form = new FormData();
    form.append('name', NAME_SENT);
    form.append('note', NOTE_SENT);
    form.append('file', new Blob(['scan']), 'scan.pdf');
    const res = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: form,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const [file] = await receivedFiles(alice, request.id);
    expect(file).toMatchObject({ guestName: NAME_KEPT, guestNote: NOTE_KEPT });
  });

  test('when a guest’s resumable upload carries them in its metadata, then they are kept the same way', async ({
    app,
    bob,
  }) => {
    const request = await openRequest(bob);
    const content = new TextEncoder().encode('resumed');
    const res = await fetch(`${app.url}/r/${request.id}/uploads`, {
      method: 'POST',
      headers: {
        ...TUS,
        'Upload-Length': String(content.length),
        'Upload-Metadata': uploadMetadata({ filename: 'big.bin', name: NAME_SENT, note: NOTE_SENT }),
        'Content-Type': 'application/offset+octet-stream',
      },
      body: content,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const [file] = await receivedFiles(bob, request.id);
    expect(file).toMatchObject({ guestName: NAME_KEPT, guestNote: NOTE_KEPT });
  });

  test('when a name is nothing but such characters and the request asks for one, then 400 asking for it', async ({
    app,
    alice,
  }) => {
    const request = await openRequest(alice);
    const form = new FormData();
    form.append('name', '\u200f\u0000\u202e\u2028');
    form.append('file', new Blob(['scan']), 'scan.pdf');
    const res = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: form,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toContain('leave your name');
  });
});

describe('a token’s name', () => {
  test('when a token is made with a name holding a control or bidi character, by the API or the settings page, then 400 naming it, and no token is made', async ({
    app,
    bob,
  }) => {
    for (const [what, name] of NOT_IN_A_LINE)
      await expectRefused(await sendJson(bob, 'POST', '/api/v1/tokens', { name }), 'name', what);
    const viaPage = await postForm(
      app,
      '/settings',
      { intent: 'create-token', name: 'deploy \u202ebot' },
      { cookie: bob.cookie },
    );
    expect(viaPage.status).toBe(400);
    expect(alertsOf(await viaPage.text()).join(' ')).toContain('must not contain control characters');
    const list = (await (await bob.fetch('/api/v1/tokens')).json()) as { tokens: unknown[] };
    expect(list.tokens).toEqual([]);
  });
});
