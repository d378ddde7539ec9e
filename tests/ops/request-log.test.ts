// One log line per request, with its final status, also for the raw link's fast path
// (ADR 0022) and for the requests it hands on to Express.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, tempDir, TEST_SECRET } from '../helpers/app';
import { registerUserCli } from '../helpers/process';
import { exitWithin, killIfRunning, startServer } from './support';

interface RequestLine {
  msg?: string;
  method?: string;
  path?: string;
  status?: number;
  reqId?: string;
  userId?: string;
}

/** The server's request lines, from its JSON log. */
function requestLines(server: { output(): string }): RequestLine[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as RequestLine)
    .filter((entry) => entry.msg === 'request');
}

describe('the request log', () => {
  it('when raw links are fetched (served, unknown, used up, as the owner), then each request is logged once, with its status', async () => {
    const dataDir = tempDir('fs-request-log-');
    const env = { DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'info' };
    expect((await registerUserCli(['logger', '--password-stdin'], { env, input: `${DEFAULT_PASSWORD}\n` })).code).toBe(
      0,
    );
    const server = await startServer({ env });
    try {
      const login = await fetch(`${server.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'logger', password: DEFAULT_PASSWORD }),
      });
      const cookie = login.headers.getSetCookie()[0].split(';')[0];
      const form = new FormData();
      form.append('maxDownloads', '1');
      form.append('file', new Blob(['once']), 'once.txt');
      const uploaded = (await (
        await fetch(`${server.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form })
      ).json()) as {
        file: { id: string; userId: string };
      };
      const raw = `/f/${uploaded.file.id}/raw`;
      const unknown = '/f/AAAAAAAAAAAAAAAAAAAAAA/raw';

      const asked: Array<[string, Record<string, string>, number]> = [
        [raw, { cookie }, 200],
        [raw, {}, 200],
        [raw, {}, 410],
        [unknown, { 'x-request-id': 'trace-unknown-1' }, 404],
      ];
      for (const [path, headers, status] of asked)
        expect((await fetch(`${server.url}${path}`, { headers })).status).toBe(status);

      server.child.kill('SIGTERM');
      expect(await exitWithin(server, 10_000)).toBe(0);
      const lines = requestLines(server).filter((entry) => entry.path?.startsWith('/f/'));
      expect(lines.map(({ method, path, status }) => ({ method, path, status }))).toEqual(
        asked.map(([path, , status]) => ({ method: 'GET', path, status })),
      );
      expect(lines[0].userId).toBe(uploaded.file.userId);
      expect(lines[1].userId).toBeUndefined();
      expect(lines[3].reqId).toBe('trace-unknown-1');
    } finally {
      killIfRunning(server);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('when a browser fetches a built asset and /favicon.ico, then each request is logged once too', async () => {
    const dataDir = tempDir('fs-request-log-');
    const server = await startServer({ env: { DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'info' } });
    try {
      const home = await (await fetch(`${server.url}/`)).text();
      const asset = /src="(\/build\/[^"]+\.js)"/.exec(home)?.[1] ?? /href="(\/build\/[^"]+)"/.exec(home)?.[1];
      expect(asset, 'the home page links a built asset').toBeDefined();
      expect((await fetch(`${server.url}${asset}`)).status).toBe(200);
      expect((await fetch(`${server.url}/favicon.ico`)).status).toBe(204);

      server.child.kill('SIGTERM');
      expect(await exitWithin(server, 10_000)).toBe(0);
      const lines = requestLines(server);
      const logged = lines.map(({ method, path, status }) => ({ method, path, status }));
      expect(logged.filter((line) => line.path === asset)).toEqual([{ method: 'GET', path: asset, status: 200 }]);
      expect(logged.filter((line) => line.path === '/favicon.ico')).toEqual([
        { method: 'GET', path: '/favicon.ico', status: 204 },
      ]);
      expect(lines.find((line) => line.path === asset)?.reqId).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      killIfRunning(server);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('when pages are sent requests they do not take (POST /, OPTIONS /files, OPTIONS /), then each is one JSON request line with its 405, and nothing else is printed: no stack', async () => {
    const dataDir = tempDir('fs-request-log-');
    const env = { DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'info' };
    const server = await startServer({ env });
    try {
      const asked: Array<[string, string]> = [
        ['POST', '/'],
        ['OPTIONS', '/files'],
        ['OPTIONS', '/'],
      ];
      for (const [method, path] of asked) {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: method === 'POST' ? 'a=1' : undefined,
        });
        expect([method, path, res.status]).toEqual([method, path, 405]);
        expect(await res.text()).not.toMatch(/ {4}at /);
      }

      server.child.kill('SIGTERM');
      expect(await exitWithin(server, 10_000)).toBe(0);
      const printed = server
        .output()
        .split('\n')
        .filter((line) => line !== '');
      // Every line is one JSON object: a stack printed among them would be lines of plain text.
      expect(printed.filter((line) => !line.startsWith('{'))).toEqual([]);
      const entries = printed.map((line) => JSON.parse(line) as RequestLine & { level: number });
      expect(entries.filter((entry) => entry.level >= 40)).toEqual([]);
      const lines = entries.filter((entry) => entry.msg === 'request');
      expect(lines.map(({ method, path, status }) => ({ method, path, status }))).toEqual(
        asked.map(([method, path]) => ({ method, path, status: 405 })),
      );
    } finally {
      killIfRunning(server);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
