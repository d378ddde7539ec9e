// Faults of the process itself (crash safety, ADR 0010): the built server killed with
// SIGKILL in the middle of an upload, and content left behind by a delete that stopped
// half-way. On SQLite a start sweeps every leftover the service made, however young (ADR 0028:
// nothing is left once the service is running again): then UPLOAD_DIR holds
// exactly the content of existing records. Files of other shapes are not the service's: they stay.
// Needs `npm run build` (dist/ and build/).
import fs from 'node:fs';
import type { ClientRequest } from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app';
import { openUpload, poll } from '../helpers/multipart';
import { expectServerAnswers, uploadSmall } from '../helpers/hardening-http';
import {
  killAllSpawned,
  killHard,
  loginCookie,
  registerWithCli,
  requireDist,
  serverEnv,
  spawnServer,
  stopGracefully,
  type HardeningServerEnv,
  type SpawnedServer,
} from '../helpers/hardening-process';

const PASSWORD = 'pw-long-enough-1';
let env: HardeningServerEnv;
let uploadDir: string;
let server: SpawnedServer | null = null;

beforeAll(async () => {
  requireDist();
  env = await serverEnv(tempDir('fs-hardening-crash-'));
  uploadDir = path.join(env.DATA_DIR, 'uploads');
  const registered = await registerWithCli(env, 'u', PASSWORD);
  expect(registered.code, registered.stderr).toBe(0);
});

afterEach(async () => {
  if (server) await killHard(server);
  server = null;
  killAllSpawned();
});

afterAll(() => {
  if (env) fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
});

const loginTo = (url: string) => loginCookie(url, 'u', PASSWORD);

async function listedStoredNames(url: string, cookie: string): Promise<string[]> {
  const res = await fetch(`${url}/api/v1/files`, { headers: { cookie } });
  expect(res.status).toBe(200);
  const { files } = (await res.json()) as { files: Array<{ storedName: string }> };
  return files.map((file) => file.storedName).sort();
}

function contentOnDisk(): string[] {
  return fs
    .readdirSync(uploadDir)
    .filter((name) => !name.startsWith('.'))
    .sort();
}

/** Makes a file look two hours old, as if the restart came long after the crash. */
function ageFile(file: string): void {
  const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
  fs.utimesSync(file, twoHoursAgo, twoHoursAgo);
}

function incompleteOnDisk(): string[] {
  return fs.readdirSync(path.join(uploadDir, '.incomplete'));
}

/** A multipart upload that trickles its content in and never finishes on its own. */
function startSlowUpload(url: string, cookie: string): { request: ClientRequest; sent: () => number } {
  // The server is about to die under it: its answer is never awaited.
  const { request } = openUpload(url, cookie, { filename: 'slow.bin', size: 10 * 1024 * 1024, agent: false });
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x62);
  const timer = setInterval(() => {
    if (request.destroyed) return clearInterval(timer);
    request.write(chunk);
    sent += chunk.length;
  }, 20);
  request.on('close', () => clearInterval(timer));
  return { request, sent: () => sent };
}

describe('crash safety of the built server', () => {
  it('when the server is killed with SIGKILL mid-upload and restarted, then UPLOAD_DIR holds exactly the content of existing records, nothing half-written, and an upload works', {
    timeout: 120_000,
  }, async () => {
    server = await spawnServer(env);
    let cookie = await loginTo(server.url);
    const kept = await uploadSmall(server.url, cookie, 'kept before the crash', 'kept.txt');
    expect(kept.status).toBe(201);

    const slow = startSlowUpload(server.url, cookie);
    // Mid-way for real: the temporary file exists and has grown.
    const midway = await poll(
      () => incompleteOnDisk().some((name) => name.endsWith('.part')) && slow.sent() >= 512 * 1024,
      15_000,
    );
    expect(midway).toBe(true);
    await killHard(server);
    slow.request.destroy();
    const leftovers = incompleteOnDisk();
    expect(leftovers.length).toBeGreaterThan(0); // the crash did leave a leftover

    // Restarted at once: on SQLite this process is the data's only writer, so the leftover of
    // the crash goes before the first request, however young.
    server = await spawnServer(env);
    cookie = await loginTo(server.url);
    expect(incompleteOnDisk()).toEqual([]);
    expect(contentOnDisk()).toEqual(await listedStoredNames(server.url, cookie));
    expect(contentOnDisk()).toEqual([kept.json.file!.storedName]);

    const after = await uploadSmall(server.url, cookie, 'after the restart', 'after.txt');
    expect(after.status).toBe(201);
    expect(contentOnDisk()).toEqual(await listedStoredNames(server.url, cookie));
    await expectServerAnswers(server.url);
    await stopGracefully(server);
  });

  it('when content with a valid-looking name has no record (a delete or an upload that stopped half-way), then it is removed at start, however young, and recorded files stay', {
    timeout: 120_000,
  }, async () => {
    server = await spawnServer(env);
    const cookie = await loginTo(server.url);
    expect((await uploadSmall(server.url, cookie, 'recorded', 'recorded.txt')).status).toBe(201);
    const before = await listedStoredNames(server.url, cookie);
    expect(before.length).toBeGreaterThan(0);
    await stopGracefully(server);

    // By hand, as a crash between "row deleted" and "content removed" would leave it, an hour ago,
    // and one just now (a crash between an upload's content and its record): on SQLite both go.
    const orphan = 'Zm9yZ290dGVuLWNvbnRlbn.txt';
    const orphanNoExt = 'b3JwaGFuLXdpdGhvdXQtZX';
    fs.copyFileSync(path.join(uploadDir, before[0]), path.join(uploadDir, orphan));
    fs.writeFileSync(path.join(uploadDir, orphanNoExt), 'orphan');
    ageFile(path.join(uploadDir, orphan));
    ageFile(path.join(uploadDir, orphanNoExt));
    const young = 'eW91bmctY29udGVudC1oZX.bin';
    fs.writeFileSync(path.join(uploadDir, young), 'young');
    // Not in the service's exact format: not the service's to remove, however old.
    const foreign = ['notes.txt', 'settings.json', 'Zm9yZ290dGVuLWNvbnRlbnQ.txt'];
    for (const name of foreign) {
      fs.writeFileSync(path.join(uploadDir, name), 'someone else');
      ageFile(path.join(uploadDir, name));
    }

    server = await spawnServer(env);
    expect(contentOnDisk()).toEqual([...before, ...foreign].sort());
    const again = await loginTo(server.url);
    expect(await listedStoredNames(server.url, again)).toEqual(before);
    const files = (await (await fetch(`${server.url}/api/v1/files`, { headers: { cookie: again } })).json()) as {
      files: Array<{ id: string }>;
    };
    for (const file of files.files) {
      const raw = await fetch(`${server.url}/f/${file.id}/raw`);
      expect(raw.status).toBe(200);
      await raw.body?.cancel();
    }
    await expectServerAnswers(server.url);
    await stopGracefully(server);
  });
});
