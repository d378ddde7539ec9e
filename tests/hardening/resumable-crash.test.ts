// A resumable upload survives its server (ADR 0019): the built server is killed with SIGKILL
// while a PATCH is streaming, started again, and HEAD then answers an offset the stored bytes
// really reach. The client carries on from there and the file ends with the right SHA-256.
// Runs on both backends. Needs `npm run build` (dist/ and build/).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app';
import {
  killAllSpawned,
  killHard,
  loginCookie,
  registerWithCli,
  requireDist,
  serverEnv,
  spawnServer,
  type HardeningServerEnv,
  type SpawnedServer,
} from '../helpers/hardening-process';
import { openPatch, sha256, tusClient } from '../helpers/tus';

const PASSWORD = 'pw-long-enough-1';
const MiB = 1024 * 1024;
let env: HardeningServerEnv;
let server: SpawnedServer | null = null;

beforeAll(async () => {
  requireDist();
  env = await serverEnv(tempDir('fs-hardening-tus-'));
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

describe('a resumable upload across a crash of its server', () => {
  it('when the server is killed with SIGKILL mid-PATCH and restarted, then HEAD gives an offset the stored bytes reach and the upload completes with the right SHA-256', {
    timeout: 120_000,
  }, async () => {
    server = await spawnServer(env);
    const cookie = await loginCookie(server.url, 'u', PASSWORD);
    const content = randomBytes(80 * MiB);
    let tus = tusClient(server.url, cookie);
    const created = await tus.create(content.length, { filename: 'big.bin' });
    expect(created.status).toBe(201);
    const location = new URL(created.headers.get('location')!, created.url).href;

    // 50 MiB of the 80 go out, and the request stays open: the server has recorded part of them.
    const socket = await openPatch(location, cookie, 0, content.length);
    socket.write(content.subarray(0, 50 * MiB));
    const deadline = Date.now() + 30_000;
    let recorded = 0;
    while (recorded === 0 && Date.now() < deadline) {
      recorded = Number((await tus.head(location)).headers.get('upload-offset'));
      if (recorded === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(recorded).toBeGreaterThan(0);
    await killHard(server);
    socket.destroy();

    server = await spawnServer(env);
    tus = tusClient(server.url, cookie);
    const head = await tus.head(location);
    expect(head.status).toBe(200);
    const offset = Number(head.headers.get('upload-offset'));
    expect(offset).toBeGreaterThanOrEqual(recorded);
    expect(offset).toBeLessThanOrEqual(50 * MiB);
    // The dead server's claim on the upload lapses (a few seconds); the PATCH waits for it.
    const rest = await tus.patch(location, offset, content.subarray(offset));
    expect(rest.status).toBe(200);
    const { file } = await rest.json();
    const download = await fetch(`${server.url}/f/${file.id}/raw`);
    expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(content));
  });
});
