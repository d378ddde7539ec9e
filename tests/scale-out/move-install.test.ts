// `move-install`: an existing SQLite + disk install moved onto PostgreSQL + S3 by
// the built CLI. Everyone logs in as before (sessions too), every file downloads byte-exact,
// and a second run changes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, fileForm, startApp, tempDir, TEST_SECRET, type TestApp } from '../helpers/app';
import { postgresS3Env } from '../helpers/test-backend';
import { MOVE_INSTALL_JS as MOVE_JS, runNode } from '../helpers/process';

let sourceDir: string;
let targetEnv: Record<string, string>;
const uploaded: Record<string, { id: string; content: Buffer }> = {};
let aliceCookie: string;
let aliceToken: string;

beforeAll(async () => {
  sourceDir = tempDir('fs-move-source-');
  const source = await startApp({ DATA_DIR: sourceDir });
  try {
    await source.createUser('alice');
    await source.createUser('bob');
    aliceCookie = await source.login('alice');
    const bobCookie = await source.login('bob');
    const made = await fetch(`${source.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie: aliceCookie, 'content-type': 'application/json' },
      body: '{"name":"sharex"}',
    });
    aliceToken = ((await made.json()) as { token: string }).token;
    const files: Array<[string, string, Buffer]> = [
      [aliceCookie, 'notes.txt', Buffer.from('alice notes')],
      [aliceCookie, 'photo.bin', Buffer.alloc(3 * 1024 * 1024, 0x42)],
      [bobCookie, 'bob.txt', Buffer.from('bob was here')],
    ];
    for (const [cookie, name, content] of files) {
      const res = await fetch(`${source.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie },
        body: fileForm(content, name),
      });
      expect(res.status).toBe(201);
      uploaded[name] = { id: ((await res.json()) as { file: { id: string } }).file.id, content };
    }
  } finally {
    await source.close();
  }
  targetEnv = { ...(await postgresS3Env()), SESSION_SECRET: TEST_SECRET, DATA_DIR: tempDir('fs-move-target-') };
});
afterAll(() => fs.rmSync(sourceDir, { recursive: true, force: true }));

function move(
  args: string[] = [
    '--from-database',
    `file:${path.join(sourceDir, 'app.db')}`,
    '--from-uploads',
    path.join(sourceDir, 'uploads'),
  ],
) {
  return runNode(MOVE_JS, args, { env: targetEnv, timeoutMs: 60_000 });
}

describe('move-install', () => {
  let target: TestApp | undefined;
  afterAll(() => target?.close());

  it('when a SQLite + disk install is moved onto PostgreSQL + S3, then users log in, sessions and API tokens hold and every file downloads byte-exact', {
    timeout: 90_000,
  }, async () => {
    const result = await move();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Moved 2 users and 3 files \(\d+ bytes; 3 copied in this run\) to postgres:\/\/.*; every user and file verified\.\n$/,
    );

    target = await startApp(targetEnv);
    expect((await fetch(`${target.url}/api/v1/files`, { headers: { cookie: aliceCookie } })).status).toBe(200);
    expect(
      (await fetch(`${target.url}/api/v1/files`, { headers: { authorization: `Bearer ${aliceToken}` } })).status,
    ).toBe(200);
    const cookie = await target.login('bob', DEFAULT_PASSWORD);
    const listed = (await (await fetch(`${target.url}/api/v1/files`, { headers: { cookie } })).json()) as {
      files: Array<{ id: string }>;
    };
    expect(listed.files.map((file) => file.id)).toEqual([uploaded['bob.txt'].id]);
    for (const { id, content } of Object.values(uploaded)) {
      const raw = await fetch(`${target.url}/f/${id}/raw`);
      expect(raw.status).toBe(200);
      expect(Buffer.from(await raw.arrayBuffer()).equals(content)).toBe(true);
    }
  });

  it('when it is run again, then it succeeds, copies nothing and the target is unchanged', {
    timeout: 90_000,
  }, async () => {
    const before = await target!.rows('select id, size from files order by id');
    const result = await move();
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Moved 2 users and 3 files \(\d+ bytes; 0 copied in this run\)/);
    expect(await target!.rows('select id, size from files order by id')).toEqual(before);
    expect(await target!.rows('select count(*) as n from users')).toEqual([{ n: 2 }]);
  });

  it('when an option is missing or unknown, then it fails with one line and exit code 2', async () => {
    for (const args of [
      [],
      ['--from-database', 'file:/nope.db'],
      ['--from-database', 'file:/x.db', '--from-uploads', '/x', '--force'],
    ]) {
      const result = await move(args);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^move-install: /);
    }
  });
});
