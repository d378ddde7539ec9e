// An upload refused before its body has arrived (too large by its Content-Length, a malformed
// head): the client is still sending when the answer goes out. Closing at once resets the
// connection under the client, which then often fails its next write (EPIPE) without ever
// reading the answer. The server reads and drops the rest for a while first (lingering close).
import net from 'node:net';
import { LINGER_MS } from '../../server/http/lingering-close';
import { startApp, type TestApp } from '../helpers/app';
import { describe, expect, registeredUser, test } from '../helpers/fixtures';
import { expectUnchanged, fieldPart, filePart, rawMultipart, snapshot } from '../helpers/hardening-http';
import { rawRequest } from '../helpers/raw-http';

const MAX_UPLOAD_BYTES = 1_000_000;
const PIECE = 64 * 1024;

test.override('appEnv', { MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) });

/** Posts `body` in 64 KiB pieces, 2 ms apart, to the end: its answer ("status body"), or the client's error. */
async function sendInPieces(app: TestApp, cookie: string, body: Buffer): Promise<string> {
  const splitAt = Array.from({ length: Math.ceil(body.length / PIECE) }, (_, i) => i * PIECE);
  try {
    const res = await rawRequest(app.url, {
      method: 'POST',
      path: '/api/v1/files',
      headers: { cookie, 'content-type': 'multipart/form-data; boundary=XX' },
      body,
      splitAt,
    });
    return `${res.status} ${res.text}`;
  } catch (error) {
    return `error ${(error as NodeJS.ErrnoException).code}`;
  }
}

describe('answers to uploads refused while they are still being sent', () => {
  test('when 20 uploads declaring more than MAX_UPLOAD_BYTES are refused while their bodies stream in, then every client reads the 413 JSON answer', {
    timeout: 60_000,
  }, async ({ app, alice }) => {
    const answers: string[] = [];
    const tooLarge = Buffer.alloc(5 * MAX_UPLOAD_BYTES, 'a');
    for (let i = 0; i < 20; i++) answers.push(await sendInPieces(app, alice.cookie, tooLarge));
    expect(answers).toEqual(Array(20).fill('413 {"error":"File too large"}'));
    expect(await app.rows('select count(*) as n from files')).toEqual([{ n: 0 }]);
  });

  test('when 20 malformed multipart bodies are refused at their first part while more is on its way, then every client reads the 400 JSON answer', {
    timeout: 60_000,
  }, async ({ app, alice }) => {
    const malformed = Buffer.from('--XX\r\nbroken part header\r\n\r\nxx\r\n--XX--');
    const answers: string[] = [];
    const body = Buffer.concat([malformed, Buffer.alloc(MAX_UPLOAD_BYTES / 2, 'a')]);
    for (let i = 0; i < 20; i++) answers.push(await sendInPieces(app, alice.cookie, body));
    expect(answers).toEqual(Array(20).fill('400 {"error":"Malformed multipart body"}'));
  });

  test('when a refused client goes on sending without end, then the server closes the connection after a bounded time', {
    timeout: 60_000,
  }, async ({ app, alice }) => {
    const url = new URL(app.url);
    // Half-open, as a client that goes on sending after our side has closed.
    const socket = net.connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /api/v1/files HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${alice.cookie}\r\n` +
        `Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: ${1024 * MAX_UPLOAD_BYTES}\r\n\r\n`,
    );
    const started = Date.now();
    let stillOpen = true;
    void closed.then(() => (stillOpen = false));
    while (stillOpen && Date.now() - started < 4 * LINGER_MS) {
      socket.write(Buffer.alloc(PIECE, 'a'));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(stillOpen, 'the server still reads after four times its lingering time').toBe(false);
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toMatch(/\r\nConnection: close\r\n/i);
    expect(received.endsWith('{"error":"File too large"}')).toBe(true);
  });
});

/** Posts `body` in 64 KiB pieces, `gapMs` apart, until the answer comes: the answer, and how much had been sent by then. */
async function sendUntilAnswered(
  baseUrl: string,
  headers: Record<string, string>,
  body: Buffer,
  gapMs: number,
): Promise<{ answer: string; sentWhenAnswered: number }> {
  const splitAt = Array.from({ length: Math.ceil(body.length / PIECE) }, (_, i) => i * PIECE);
  const res = await rawRequest(baseUrl, {
    method: 'POST',
    path: '/api/v1/files',
    headers,
    body,
    splitAt,
    gapMs,
    stopWhenAnswered: true,
    timeoutMs: 30_000,
  });
  return { answer: `${res.status} ${res.text}`, sentWhenAnswered: res.sentWhenAnswered ?? body.length };
}

describe('uploads refused part-way through their bodies', () => {
  const multipart = (cookie: string, parts: Parameters<typeof rawMultipart>[1]) => ({
    headers: { cookie, 'content-type': 'multipart/form-data; boundary=XX' },
    body: rawMultipart('XX', parts),
  });

  test('when an upload passes the size limit part-way, then its 413 comes while the rest is still being sent, and nothing is kept', {
    timeout: 60_000,
  }, async ({ app, alice }) => {
    const before = await snapshot(app);
    // Under the limit plus the framing allowance, so not refused by its Content-Length.
    const { headers, body } = multipart(alice.cookie, [filePart('big.bin', Buffer.alloc(2 * MAX_UPLOAD_BYTES, 'a'))]);
    const { answer, sentWhenAnswered } = await sendUntilAnswered(app.url, headers, body, 20);
    expect(answer).toBe('413 {"error":"File too large"}');
    expect(sentWhenAnswered).toBeLessThan(body.length * 0.8);
    await expectUnchanged(app, before);
  });

  test('when an upload passes its quota part-way, then its 413 comes long before the end of the body, and nothing is kept', {
    timeout: 60_000,
  }, async () => {
    const quotaApp = await startApp({ DEFAULT_QUOTA_BYTES: String(256 * 1024) });
    try {
      const quoted = await registeredUser(quotaApp, 'quoted');
      const before = await snapshot(quotaApp);
      const body = rawMultipart('XX', [filePart('big.bin', Buffer.alloc(8 * 1024 * 1024, 'a'))]);
      const headers = { cookie: quoted.cookie, 'content-type': 'multipart/form-data; boundary=XX' };
      const { answer, sentWhenAnswered } = await sendUntilAnswered(quotaApp.url, headers, body, 5);
      expect(answer).toBe('413 {"error":"Storage quota exceeded: 256 KiB of your 256 KiB is free"}');
      expect(sentWhenAnswered).toBeLessThan(body.length / 2);
      await expectUnchanged(quotaApp, before);
    } finally {
      await quotaApp.close();
    }
  });

  test('when an upload’s share settings are refused, then the 400 comes before its file has been sent', {
    timeout: 60_000,
  }, async ({ app, alice }) => {
    const before = await snapshot(app);
    const { headers, body } = multipart(alice.cookie, [
      fieldPart('maxDownloads', 'lots'),
      filePart('any.bin', Buffer.alloc(MAX_UPLOAD_BYTES / 2, 'a')),
    ]);
    const { answer, sentWhenAnswered } = await sendUntilAnswered(app.url, headers, body, 20);
    expect(answer).toMatch(/^400 \{"error":".*maxDownloads/);
    expect(sentWhenAnswered).toBeLessThan(body.length / 2);
    await expectUnchanged(app, before);
  });
});
