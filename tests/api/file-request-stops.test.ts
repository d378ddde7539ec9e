// A file request that stops taking files, closed by its owner (on the API or its page) or past
// its expiry, stops the guests' uploads under way into it (ADR 0048): a resumable upload is
// refused (410) at its next step and its bytes, row and place go, reopened or not; a form's file
// still streaming is refused before it is committed. Both backends.
import type { FileRequestDto } from '../../server/services/file-requests/owner';
import { TestClock, type TestApp } from '../helpers/app';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { BOUNDARY, MULTIPART_TYPE, partHead, poll } from '../helpers/multipart';
import { postForm } from '../helpers/pages-fixtures';
import { openRequest } from '../helpers/raw-http';
import { OFFSET_OCTET_STREAM, TUS, uploadMetadata } from '../helpers/tus';

const clock = new TestClock();
// The expiry sweep every 100 ms: what the housekeeping removes goes within the test.
test.override('appOptions', { clock, expirySweepEveryMs: 100 });

const CLOSED = 'This file request is closed: it takes no more files.';
const EXPIRED = 'This file request has expired: it takes no more files.';
const STOPPED = 'This upload was stopped when its file request was closed: send the file again.';

async function createRequest(user: TestUser, body: Record<string, unknown>): Promise<FileRequestDto> {
  const res = await user.fetch('/api/v1/requests', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { request: FileRequestDto }).request;
}

async function setClosed(user: TestUser, requestId: string, closed: boolean): Promise<void> {
  const res = await user.fetch(`/api/v1/requests/${requestId}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ closed }),
  });
  expect(res.status).toBe(200);
}

/** The two ways an owner closes a request: the API, and the Close button of the page /requests. */
const CLOSINGS = {
  'the API': (_app: TestApp, user: TestUser, requestId: string) => setClosed(user, requestId, true),
  'the page': async (app: TestApp, user: TestUser, requestId: string) => {
    const res = await postForm(app, '/requests', { intent: 'close', id: requestId }, { cookie: user.cookie });
    expect(res.status).toBe(303);
  },
};

/** A guest's tus creation (no account); the upload's address. */
async function guestCreates(app: TestApp, requestId: string, length: number, filename: string): Promise<string> {
  const res = await fetch(`${app.url}/r/${requestId}/uploads`, {
    method: 'POST',
    headers: { ...TUS, 'Upload-Length': String(length), 'Upload-Metadata': uploadMetadata({ filename }) },
  });
  expect(res.status, await res.text()).toBe(201);
  // Relative: resolved against the address asked, as a tus client does.
  return new URL(res.headers.get('location') as string, res.url).href;
}

/** A guest's PATCH of `body` at `offset`: the status and the JSON error, if any. */
async function guestPatches(
  location: string,
  offset: number,
  body: Uint8Array,
): Promise<{ status: number; error?: string }> {
  const res = await fetch(location, {
    method: 'PATCH',
    headers: { ...TUS, 'Upload-Offset': String(offset), 'Content-Type': OFFSET_OCTET_STREAM },
    body: body as BodyInit,
  });
  const text = await res.text();
  return { status: res.status, ...(text ? (JSON.parse(text) as { error: string }) : {}) };
}

/** A request's unfinished uploads, places and files named `name`: what stays of an upload. */
async function leftOf(app: TestApp, requestId: string, name: string) {
  return {
    uploads: await app.rows('select id from resumable_uploads where request_id = ? and finished_at is null', [
      requestId,
    ]),
    places: await app.rows('select id from file_request_uploads where request_id = ?', [requestId]),
    files: await app.rows('select id from files where original_name = ?', [name]),
  };
}
const NOTHING_LEFT = { uploads: [], places: [], files: [] };

// The app and its user are made before the first test, which then pays only for itself.
test.beforeAll(async ({ app, alice }) => {
  expect(app.url && alice.cookie).toBeTruthy();
});

describe('a guest’s resumable upload when its request stops', () => {
  for (const [way, close] of Object.entries(CLOSINGS)) {
    test(`when the owner closes a request on ${way} while a guest’s resumable upload is half sent, then the next PATCH is refused (410), the upload’s bytes, row and place are gone, no file arrives, and reopening does not bring it back`, async ({
      app,
      alice,
    }) => {
      const request = await createRequest(alice, { title: `Closed on ${way}`, maxFiles: 1 });
      const name = `closed-on-${way}.bin`;
      const before = await app.partialContent();
      const location = await guestCreates(app, request.id, 2000, name);
      expect(await guestPatches(location, 0, new Uint8Array(1000))).toEqual({ status: 204 });
      expect((await app.partialContent()).length).toBeGreaterThan(before.length);

      await close(app, alice, request.id);
      // Nothing was writing to it: it went with the closing, bytes and all.
      expect(await leftOf(app, request.id, name)).toEqual(NOTHING_LEFT);
      expect(await app.partialContent()).toEqual(before);
      expect(await guestPatches(location, 1000, new Uint8Array(1000))).toEqual({ status: 410, error: CLOSED });
      expect((await fetch(location, { method: 'HEAD', headers: TUS })).status).toBe(410);

      // Reopened, the request takes files again, and the one place is free; the upload stays gone.
      await setClosed(alice, request.id, false);
      expect((await guestPatches(location, 1000, new Uint8Array(1000))).status).toBe(404);
      const again = await guestCreates(app, request.id, 10, 'again.bin');
      expect(await guestPatches(again, 0, new Uint8Array(10))).toMatchObject({ status: 200 });
      expect(await leftOf(app, request.id, name)).toEqual(NOTHING_LEFT);
      expect(await app.partialContent()).toEqual(before);
    });
  }

  for (const reopened of [false, true]) {
    const then = reopened ? 'closes and reopens a request' : 'closes a request';
    test(`when the owner ${then} while a guest’s PATCH is still sending, then that PATCH is refused (410) at its end and nothing of the upload stays`, async ({
      app,
      alice,
    }) => {
      const request = await createRequest(alice, { title: `Mid-PATCH ${then}` });
      const name = `mid-patch-${reopened}.bin`;
      const [partialBefore, storedBefore] = [await app.partialContent(), await app.storedFiles()];
      const length = 4_000_000;
      const location = await guestCreates(app, request.id, length, name);
      // Written bit by bit, as a slow connection sends it.
      const patch = openRequest(location, {
        method: 'PATCH',
        headers: {
          ...TUS,
          'upload-offset': '0',
          'content-type': OFFSET_OCTET_STREAM,
          'content-length': String(length),
        },
      });
      patch.request.write(new Uint8Array(length / 2).fill(1));
      // The PATCH holds the upload: its bytes are being written.
      expect(
        await poll(
          async () =>
            (await app.rows('select lock_token from resumable_uploads where request_id = ?', [request.id]))[0]
              ?.lock_token != null,
        ),
      ).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));

      await setClosed(alice, request.id, true);
      if (reopened) await setClosed(alice, request.id, false);
      patch.request.end(new Uint8Array(length / 2).fill(2));
      const { status, text } = await patch.answer;
      expect(status).toBe(410);
      expect(JSON.parse(text)).toEqual({ error: reopened ? STOPPED : CLOSED });
      expect(await leftOf(app, request.id, name)).toEqual(NOTHING_LEFT);
      expect(await app.partialContent()).toEqual(partialBefore);
      expect(await app.storedFiles()).toEqual(storedBefore);
    });
  }

  test('when a request expires while a guest’s resumable upload is half sent, then the next PATCH is refused (410) and the housekeeping removes the upload’s bytes, row and place', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Expiring', expiresIn: 60 });
    const name = 'expired.bin';
    const before = await app.partialContent();
    const location = await guestCreates(app, request.id, 2000, name);
    expect(await guestPatches(location, 0, new Uint8Array(1000))).toEqual({ status: 204 });

    clock.advance(61_000);
    expect(await guestPatches(location, 1000, new Uint8Array(1000))).toEqual({ status: 410, error: EXPIRED });
    expect(
      await poll(
        async () =>
          (await app.rows('select id from resumable_uploads where request_id = ?', [request.id])).length === 0,
      ),
    ).toBe(true);
    expect(await leftOf(app, request.id, name)).toEqual(NOTHING_LEFT);
    expect(await app.partialContent()).toEqual(before);
  });
});

describe('a guest’s form file when its request stops', () => {
  test('when a request is closed or expires while a guest’s file is streaming in, then the guest is told (410), and no file, bytes or place stay', async ({
    app,
    alice,
  }) => {
    const stops = {
      closed: { error: CLOSED, stop: (requestId: string) => setClosed(alice, requestId, true) },
      expired: {
        error: EXPIRED,
        stop: async () => {
          clock.advance(61_000);
        },
      },
    };
    for (const [how, { error, stop }] of Object.entries(stops)) {
      for (const limits of [{}, { maxBytes: 50_000_000 }]) {
        const request = await createRequest(alice, { title: `Form ${how}`, expiresIn: 60, ...limits });
        const name = `form-${how}.bin`;
        const before = await app.storedFiles();
        const post = openRequest(`${app.url}/r/${request.id}`, {
          method: 'POST',
          headers: { 'content-type': MULTIPART_TYPE, accept: 'application/json', 'transfer-encoding': 'chunked' },
        });
        post.request.write(partHead({ name: 'file', filename: name, contentType: 'application/octet-stream' }));
        post.request.write(Buffer.alloc(2_000_000, 1));
        // The upload has taken its place in the request: the guest is sending.
        expect(
          await poll(
            async () =>
              (await app.rows('select id from file_request_uploads where request_id = ?', [request.id])).length === 1,
          ),
        ).toBe(true);
        await stop(request.id);
        post.request.write(Buffer.alloc(2_000_000, 2));
        post.request.end(`\r\n--${BOUNDARY}--\r\n`);
        const answer = await post.answer;
        expect(answer.status, `${how} ${JSON.stringify(limits)}`).toBe(410);
        expect(JSON.parse(answer.text)).toEqual({ error });
        expect(await leftOf(app, request.id, name)).toEqual(NOTHING_LEFT);
        expect(await app.storedFiles()).toEqual(before);
      }
    }
  });
});
