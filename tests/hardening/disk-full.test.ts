// The disk fills up mid-upload (ENOSPC): the upload is refused with 507 {"error"} quickly,
// nothing is left behind, and once there is room again uploads work. Needs root to mount a
// small tmpfs as UPLOAD_DIR; without it the test is skipped with the reason shown.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, tempDir, type TestApp } from '../helpers/app';
import { expectServerAnswers, expectUnchanged, snapshot, uploadSmall } from '../helpers/hardening-http';

const TMPFS_SIZE = '2m';

/** Mounts a 2 MiB tmpfs; returns why it could not when it cannot. */
function mountSmallDisk(): { dir: string; reason: null } | { dir: null; reason: string } {
  if (process.platform !== 'linux') return { dir: null, reason: 'not Linux: no tmpfs to mount' };
  if (process.getuid?.() !== 0) return { dir: null, reason: 'not running as root: cannot mount a small tmpfs' };
  const dir = tempDir('fs-hardening-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir, reason: null };
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { dir: null, reason: `mount -t tmpfs failed: ${stderr || (error as Error).message}` };
  }
}

const disk = mountSmallDisk();
if (disk.reason) console.warn(`[hardening] disk-full test skipped: ${disk.reason}`);

describe.skipIf(disk.dir === null)(
  `disk full (ENOSPC) on a ${TMPFS_SIZE} tmpfs${disk.reason ? ` — skipped: ${disk.reason}` : ''}`,
  () => {
    let app: TestApp;
    let cookie: string;

    beforeAll(async () => {
      app = await startApp({ UPLOAD_DIR: path.join(disk.dir!, 'uploads') });
      await app.createUser('filler');
      cookie = await app.login('filler');
    });

    afterAll(async () => {
      await app?.close();
      try {
        execFileSync('umount', [disk.dir!], { stdio: 'pipe' });
        fs.rmSync(disk.dir!, { recursive: true, force: true });
      } catch (error) {
        console.warn(`[hardening] could not unmount ${disk.dir}: ${(error as Error).message}`);
      }
    });

    it('when a 4 MB upload does not fit, then 507 {"error"} quickly, nothing left behind, and a small upload works afterwards', async () => {
      const before = await snapshot(app);
      const started = performance.now();
      const big = await uploadSmall(app.url, cookie, new Uint8Array(4 * 1024 * 1024).fill(0x5a), 'big.bin');
      const elapsed = performance.now() - started;
      expect(big.status).toBe(507);
      expect(big.json).toEqual({ error: expect.any(String) });
      expect(elapsed).toBeLessThan(5_000);
      await expectUnchanged(app, before);
      await expectServerAnswers(app.url);

      const small = await uploadSmall(app.url, cookie, 'fits', 'small.txt');
      expect(small.status).toBe(201);
      expect(await app.storedFiles()).toEqual([small.json.file!.storedName]);
      expect(await app.incompleteFiles()).toEqual([]);
    });

    it('when the upload page gets a file that does not fit, then a 507 page, nothing left behind, and the server still answers', async () => {
      const before = await snapshot(app);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(4 * 1024 * 1024).fill(0x5b)]), 'big-page.bin');
      const res = await fetch(`${app.url}/upload`, {
        method: 'POST',
        headers: { cookie },
        body: form,
        redirect: 'manual',
      });
      expect(res.status).toBe(507);
      expect(await res.text()).toMatch(/storage/i);
      await expectUnchanged(app, before);
      await expectServerAnswers(app.url);
    });
  },
);
