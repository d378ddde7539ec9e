// A dependency outage under a running server (ADR 0030): with its PostgreSQL stopped, or its S3
// server gone, every door answers 503 with Retry-After and the same words (JSON on the API and
// tus, the error page on pages, plain text on raw links), and the log holds one line when the
// outage starts and one when it ends, with the count of requests refused meanwhile, never a
// stack trace per request. The PostgreSQL cluster and the S3 server are this file's own (the
// run's shared ones are never stopped), so it runs once, in the sqlite-disk project.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { startPostgres, startS3, type RunningBackend, type RunningPostgres } from '../helpers/backends';
import { clientFor } from '../helpers/buckets';
import { poll } from '../helpers/multipart';
import { registerUserCli, startServerProcess, type ServerProcess } from '../helpers/process';
import { onPostgresS3 } from '../helpers/test-backend';
import { tusClient } from '../helpers/tus';

const PASSWORD = 'correct horse battery';
const DATABASE_DOWN = 'The database is unavailable. Try again in 10 seconds.';
const STORAGE_DOWN = 'Storage is unavailable. Try again in 10 seconds.';

interface LogLine {
  level: number;
  msg: string;
  dependency?: string;
  refused?: number;
  err?: { stack?: string };
  [key: string]: unknown;
}

function logLines(server: ServerProcess): LogLine[] {
  return server.stdoutLines().map((line) => JSON.parse(line) as LogLine);
}

/**
 * Lines at warn level or above: an outage's own, and anything else that went wrong with a
 * request. knex's own warning as the pool loses its idle connections (one per connection, not
 * per request) is left out.
 */
function problemLines(server: ServerProcess): LogLine[] {
  return logLines(server).filter((line) => line.level >= 40 && line.library !== 'knex');
}

async function startWithUser(env: Record<string, string>): Promise<{ server: ServerProcess; cookie: string }> {
  const made = await registerUserCli(['keeper', '--password-stdin'], { env, input: `${PASSWORD}\n` });
  expect(made.code, made.stderr).toBe(0);
  const server = await startServerProcess(env);
  const login = await fetch(`${server.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'keeper', password: PASSWORD }),
  });
  expect(login.status).toBe(200);
  return { server, cookie: login.headers.getSetCookie()[0].split(';')[0] };
}

async function upload(server: ServerProcess, cookie: string, content: string, name: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), name);
  return fetch(`${server.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
}

async function expectRefused(res: Response, label: string, contentType: RegExp, words: string): Promise<string> {
  const body = await res.text();
  expect(res.status, `${label}: ${body}`).toBe(503);
  expect(res.headers.get('retry-after'), label).toMatch(/^[1-9][0-9]*$/);
  expect(res.headers.get('content-type'), label).toMatch(contentType);
  expect(body, label).toContain(words);
  expect(body, label).not.toMatch(/ECONNREFUSED|\bat .*\.[jt]s|stack/i);
  return body;
}

describe.skipIf(onPostgresS3)('the database stops under a running server', () => {
  let postgres: RunningPostgres;
  let server: ServerProcess | undefined;
  let stopped = false;

  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterEach(() => server?.kill());
  afterAll(async () => {
    // Started again if a failed test left it stopped, so that it can be stopped and removed.
    if (stopped) postgres.startServer();
    await postgres?.stop();
  });

  it('when PostgreSQL is stopped, then every door answers 503 with Retry-After and its words, logged once; and once it is back, one end line counts the requests refused', {
    timeout: 90_000,
  }, async () => {
    const env = {
      DATA_DIR: tempDir('fs-outage-'),
      DATABASE_URL: `${postgres.url}/postgres`,
      SESSION_SECRET: TEST_SECRET,
      LOG_LEVEL: 'info',
    };
    const started = await startWithUser(env);
    server = started.server;
    const { cookie } = started;
    const stored = await upload(server, cookie, 'shared before the outage', 'notes.txt');
    expect(stored.status).toBe(201);
    const { file } = (await stored.json()) as { file: { id: string } };
    const tus = tusClient(server.url, cookie);
    const created = await tus.create(10);
    expect(created.status).toBe(201);
    // Its Location names BASE_URL, which a server on port 0 cannot know: the same path on the real port.
    const tusLocation = server.url + created.headers.get('location')!;

    postgres.stopServer();
    stopped = true;
    const json = /^application\/json/;
    const html = /^text\/html/;
    const text = /^text\/plain/;
    const refusals: Array<[string, () => Promise<Response>, RegExp, string]> = [
      [
        'API list',
        () => fetch(`${server!.url}/api/v1/files`, { headers: { cookie } }),
        json,
        `{"error":"${DATABASE_DOWN}"}`,
      ],
      [
        'API upload',
        () => upload(server!, cookie, 'during the outage', 'late.txt'),
        json,
        `{"error":"${DATABASE_DOWN}"}`,
      ],
      [
        'API login',
        () =>
          fetch(`${server!.url}/api/v1/auth/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ username: 'keeper', password: PASSWORD }),
          }),
        json,
        `{"error":"${DATABASE_DOWN}"}`,
      ],
      ['tus HEAD', () => tus.head(tusLocation), json, ''],
      [
        'tRPC',
        () =>
          fetch(`${server!.url}/trpc/files.delete`, {
            method: 'POST',
            headers: { cookie, 'content-type': 'application/json' },
            body: JSON.stringify({ id: file.id }),
          }),
        json,
        DATABASE_DOWN,
      ],
      ['share page', () => fetch(`${server!.url}/f/${file.id}`), html, DATABASE_DOWN],
      ['files page, signed in', () => fetch(`${server!.url}/files`, { headers: { cookie } }), html, DATABASE_DOWN],
      ['raw link', () => fetch(`${server!.url}/f/${file.id}/raw`), text, DATABASE_DOWN],
      ['raw link, as a download', () => fetch(`${server!.url}/f/${file.id}/raw?download`), text, DATABASE_DOWN],
    ];
    for (const [label, send, contentType, words] of refusals) {
      const res = await send();
      if (label === 'tus HEAD') {
        // A HEAD answer has no body: its status and headers say it.
        expect(res.status, label).toBe(503);
        expect(res.headers.get('retry-after'), label).toMatch(/^[1-9][0-9]*$/);
        continue;
      }
      const body = await expectRefused(res, label, contentType, words);
      if (label === 'share page') expect(body).toContain('Temporarily unavailable');
    }

    const duringOutage = problemLines(server);
    expect(duringOutage.map((line) => [line.dependency, line.msg])).toEqual([
      ['database', expect.stringMatching(/^database unavailable/)],
    ]);
    expect(server.stdoutLines().join('\n')).not.toContain('"stack"');

    postgres.startServer();
    stopped = false;
    expect(await poll(() => problemLines(server!).length > 1, 20_000), 'an end line once PostgreSQL is back').toBe(
      true,
    );
    const [, ended] = problemLines(server);
    expect(ended).toMatchObject({
      dependency: 'database',
      refused: refusals.length,
      msg: expect.stringMatching(/^database available again/),
    });
    expect((await fetch(`${server.url}/api/v1/files`, { headers: { cookie } })).status).toBe(200);
    expect(problemLines(server)).toHaveLength(2);
  });
});

describe.skipIf(onPostgresS3)('the S3 server goes away under a running server', () => {
  let s3: RunningBackend;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    s3 = await startS3();
  });
  afterEach(() => server?.kill());

  it('when the bucket cannot be reached, then a download is 503 plain text with Retry-After, an upload (multipart or tus) 503 JSON, /healthz says storage unavailable, and the outage is logged once', {
    timeout: 60_000,
  }, async () => {
    const client = clientFor(s3.url);
    await client.send(new CreateBucketCommand({ Bucket: 'outage' }));
    client.destroy();
    const bucket = {
      S3_BUCKET: 'outage',
      S3_ENDPOINT: s3.url,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    };
    const started = await startWithUser({
      DATA_DIR: tempDir('fs-outage-'),
      SESSION_SECRET: TEST_SECRET,
      LOG_LEVEL: 'info',
      ...bucket,
    });
    server = started.server;
    const stored = await upload(server, started.cookie, 'kept in the bucket', 'notes.txt');
    expect(stored.status).toBe(201);
    const { file } = (await stored.json()) as { file: { id: string } };
    const tus = tusClient(server.url, started.cookie);
    const created = await tus.create(10);
    expect(created.status).toBe(201);
    const tusLocation = server.url + created.headers.get('location')!;

    await s3.stop();
    for (const path of [`/f/${file.id}/raw`, `/f/${file.id}/raw?download`, `/f/${file.id}/raw`]) {
      await expectRefused(await fetch(`${server.url}${path}`), path, /^text\/plain/, STORAGE_DOWN);
    }
    await expectRefused(
      await upload(server, started.cookie, 'during the outage', 'late.txt'),
      'API upload',
      /^application\/json/,
      `{"error":"${STORAGE_DOWN}"}`,
    );
    await expectRefused(
      await tus.patch(tusLocation, 0, new Uint8Array(10)),
      'tus PATCH',
      /^application\/json/,
      `{"error":"${STORAGE_DOWN}"}`,
    );
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'error', problems: ['storage unavailable'] });

    const problems = problemLines(server);
    expect(problems.map((line) => [line.dependency, line.msg])).toEqual([
      ['storage', expect.stringMatching(/^storage unavailable/)],
    ]);
    expect(server.stdoutLines().join('\n')).not.toContain('"stack"');
  });
});
