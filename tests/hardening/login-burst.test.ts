// A burst of failed logins beside uploads, against the built server process: wrong logins, uploads and correct logins
// all at once, round after round. Never a 500, every upload answered 201 is committed (read
// through a connection of its own, outside the server process) with its content stored, it
// survives a restart, and the CLI works on the same database meanwhile. On both backends.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { outsideView, backendEnv } from '../helpers/test-backend';
import {
  CLI_JS,
  registerUserCli,
  runNode,
  startServerProcess,
  type RunResult,
  type ServerProcess,
} from '../helpers/process';

const ROUNDS = 20;
const PASSWORD = 'correct horse battery';
let dataDir: string;
let env: Record<string, string>;
let outside: ReturnType<typeof outsideView>;
let server: ServerProcess | null = null;

beforeAll(async () => {
  dataDir = tempDir('fs-burst-');
  env = {
    ...(await backendEnv()),
    DATA_DIR: dataDir,
    SESSION_SECRET: TEST_SECRET,
    TRUST_PROXY: 'true',
    LOG_LEVEL: 'info',
  };
  outside = outsideView(env);
  for (const name of ['uploader', 'regular']) {
    const made = await registerUserCli([name, '--password-stdin'], { env, input: `${PASSWORD}\n` });
    expect(made.code, made.stderr).toBe(0);
  }
  server = await startServerProcess(env);
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function login(username: string, password: string, from: string) {
  return fetch(`${server!.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ username, password }),
  });
}

async function upload(cookie: string, content: string) {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), 'burst.txt');
  const res = await fetch(`${server!.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
  return {
    status: res.status,
    body: (await res.json()) as { file?: { id: string; storedName: string; size: number } },
  };
}

/** Rows of the server's database as another process sees them: only what was committed. */
function committed(sql: string) {
  return outside.committed(sql);
}

describe('a burst of failed logins beside uploads', () => {
  it(`when 50 wrong logins, 50 uploads and 10 correct logins run at once, ${ROUNDS} times, then no 500, every 201 upload is committed and stored, and the CLI works meanwhile`, {
    timeout: 300_000,
  }, async () => {
    const cookieRes = await login('uploader', PASSWORD, '198.51.100.1');
    expect(cookieRes.status).toBe(200);
    const cookie = cookieRes.headers.getSetCookie()[0].split(';')[0];

    const statuses: number[] = [];
    const uploaded: Array<{ id: string; storedName: string; size: number }> = [];
    const cliRuns: Array<Promise<RunResult>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const wrong = Array.from({ length: 50 }, (_, i) =>
        login(i % 2 ? 'regular' : `nobody${i % 5}`, `wrong ${round}.${i}`, `203.0.113.${i % 10}`).then(
          (res) => res.status,
        ),
      );
      const uploads = Array.from({ length: 50 }, (_, i) =>
        upload(cookie, `round ${round} upload ${i}`).then((res) => {
          if (res.status === 201) uploaded.push(res.body.file!);
          return res.status;
        }),
      );
      const correct = Array.from({ length: 10 }, (_, i) =>
        login('regular', PASSWORD, `192.0.2.${i}`).then((res) => res.status),
      );
      if (round % 5 === 0)
        cliRuns.push(
          runNode(CLI_JS, [`cli${round}`, '--password-stdin'], { env, input: `${PASSWORD}\n`, timeoutMs: 60_000 }),
        );
      const round_ = await Promise.all([...wrong, ...uploads, ...correct]);
      statuses.push(...round_);
      expect(round_.slice(50, 100), `round ${round} uploads`).toEqual(Array(50).fill(201));
      expect(round_.slice(100), `round ${round} correct logins`).toEqual(Array(10).fill(200));
    }

    expect(statuses).not.toContain(500);
    expect(statuses.slice(0, 50).every((status) => status === 401 || status === 429)).toBe(true);
    for (const run of await Promise.all(cliRuns)) expect(run.code, run.stderr).toBe(0);

    const rows = await committed('select id, stored_name, size from files');
    const byId = new Map(rows.map((row) => [row.id as string, row]));
    expect(uploaded).toHaveLength(ROUNDS * 50);
    for (const file of uploaded) {
      expect(byId.get(file.id), `file ${file.id} not committed`).toEqual({
        id: file.id,
        stored_name: file.storedName,
        size: file.size,
      });
      expect((await outside.content.read(file.storedName))?.length, `content of ${file.id}`).toBe(file.size);
    }
    const cliUsers = await committed("select username from users where username like 'cli%'");
    expect(cliUsers).toHaveLength(cliRuns.length);

    // And after a restart every one of them is still there.
    expect(await server!.stop()).toBe(0);
    server = await startServerProcess(env);
    const again = await login('uploader', PASSWORD, '198.51.100.1');
    const listed = await fetch(`${server.url}/api/v1/files`, {
      headers: { cookie: again.headers.getSetCookie()[0].split(';')[0] },
    });
    const { files } = (await listed.json()) as { files: Array<{ id: string }> };
    expect(new Set(files.map((file) => file.id))).toEqual(new Set(uploaded.map((file) => file.id)));
  });
});
