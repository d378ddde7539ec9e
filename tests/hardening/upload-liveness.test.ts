import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { provision } from '../../server/provision';
import { createDeps } from '../../server/deps';
import { reconcileStorage } from '../../server/services/maintenance';
import { startApp, tempDir, TestClock, type TestApp } from '../helpers/app';
import { CHECKED_LOG_LEVEL, checkErrorLogs } from '../helpers/error-logs';
import {
  killAllSpawned,
  killHard,
  loginCookie,
  registerWithCli,
  serverEnv,
  spawnServer,
  type HardeningServerEnv,
} from '../helpers/hardening-process';
import { openUpload, poll } from '../helpers/multipart';
import { outsideView } from '../helpers/test-backend';

const MiB = 1024 * 1024;
const HOUR = 60 * 60_000;
/** Past one part of a multipart upload to the bucket (8 MiB): there is an unfinished upload to sweep. */
const FIRST_BYTES = 9 * MiB;
const SIZE = 10 * MiB;

/** A multipart POST of SIZE bytes, of which FIRST_BYTES are sent now and the rest by `finish()`. */
function startUpload(url: string, cookie: string) {
  const upload = openUpload(url, cookie, { filename: 'slow.bin', size: SIZE });
  upload.request.write(Buffer.alloc(FIRST_BYTES, 0x6c));
  return { ...upload, finish: () => upload.finish(Buffer.alloc(SIZE - FIRST_BYTES, 0x6c)) };
}

/** The hourly round of another instance on the same database and storage, at `clock`'s time. */
async function sweepFromAnotherInstance(env: Record<string, string>, clock: TestClock) {
  // Its error and fatal lines fail the test they happen in, as those of startApp's apps do.
  const other = await createDeps(provision(loadConfig(env)), { clock, logLevel: CHECKED_LOG_LEVEL });
  checkErrorLogs(other.log, { keepWriting: false });
  try {
    return await reconcileStorage({ em: other.orm.em.fork(), store: other.store, log: other.log, clock });
  } finally {
    await other.close();
  }
}

describe('an upload still being received', () => {
  let app: TestApp;
  let clock: TestClock;
  beforeAll(async () => {
    clock = new TestClock();
    app = await startApp({}, { clock });
  });
  afterAll(() => app.close());

  it.each([
    { quota: 'without a quota', quotaBytes: null },
    { quota: 'under a quota', quotaBytes: 1024 * MiB },
  ])(
    'when it has been received for two hours ($quota), then a sweep by another instance leaves it alone, and it completes',
    { timeout: 60_000 },
    async ({ quotaBytes }) => {
      const name = `alive${quotaBytes ? 'quota' : 'free'}`;
      await app.createUser(name);
      await app.rows('update users set has_own_quota = ?, quota_bytes = ? where username = ?', [
        true,
        quotaBytes,
        name,
      ]);
      const cookie = await app.login(name);
      const upload = startUpload(app.url, cookie);
      expect(await poll(async () => (await app.incompleteFiles()).length === 1, 15_000)).toBe(true);
      const leftover = await app.incompleteFiles();

      clock.advance(2 * HOUR);
      // The receiver's timer refreshes the upload's row on the clock it runs on.
      const fresh = async () => {
        const rows = await app.rows('select updated_at from upload_reservations');
        return rows.length === 1 && new Date(rows[0].updated_at as string).getTime() > clock.now() - 60_000;
      };
      expect(await poll(fresh, 5_000)).toBe(true);

      expect(await sweepFromAnotherInstance(app.env, clock)).toEqual({ incomplete: 0, orphans: 0 });
      expect(await app.incompleteFiles()).toEqual(leftover);

      const { status, text } = await upload.finish();
      expect(status).toBe(201);
      const { file } = JSON.parse(text) as { file: { size: number; storedName: string } };
      expect(file.size).toBe(SIZE);
      expect((await app.readStored(file.storedName))?.length).toBe(SIZE);
      expect(await app.incompleteFiles()).toEqual([]);
      expect(await app.rows('select * from upload_reservations')).toEqual([]);
    },
  );
});

describe('an upload whose receiver was killed', () => {
  let env: HardeningServerEnv;
  beforeAll(async () => {
    // A quota: the upload's row is written with its first bytes.
    env = { ...(await serverEnv(tempDir('fs-liveness-'))), DEFAULT_QUOTA_BYTES: String(1024 * MiB) };
    const registered = await registerWithCli(env, 'killed', 'pw-long-enough-1');
    expect(registered.code, registered.stderr).toBe(0);
  });
  afterEach(() => killAllSpawned());

  it('when the server is killed with SIGKILL mid-upload, then a sweep keeps what it left while its row is fresh and removes it, row and all, once the row is stale', {
    timeout: 90_000,
  }, async () => {
    const { content, committed } = outsideView(env);
    const server = await spawnServer(env);
    const cookie = await loginCookie(server.url, 'killed', 'pw-long-enough-1');
    const upload = startUpload(server.url, cookie);
    upload.request.on('error', () => {}); // the server dies under it
    upload.answer.catch(() => {});
    const midway = async () =>
      (await content.incomplete()).length === 1 && (await committed('select id from upload_reservations')).length === 1;
    expect(await poll(midway, 15_000)).toBe(true);
    await killHard(server);
    upload.request.destroy();
    const leftover = await content.incomplete();

    const clock = new TestClock();
    clock.advance(10 * 60_000);
    expect(await sweepFromAnotherInstance(env, clock)).toEqual({ incomplete: 0, orphans: 0 });
    expect(await content.incomplete()).toEqual(leftover);

    clock.advance(6 * 60_000);
    expect(await sweepFromAnotherInstance(env, clock)).toEqual({ incomplete: 1, orphans: 0 });
    expect(await content.incomplete()).toEqual([]);
    expect(await committed('select id from upload_reservations')).toEqual([]);
  });
});
