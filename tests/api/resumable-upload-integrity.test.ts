// A resumable upload never finishes into content nobody sent, on both backends: a crash between
// the store writing a request's bytes and the row recording them, the database going away
// mid-PATCH, or a store that reports more bytes than Upload-Length. The client resumes from what
// HEAD says and the file ends byte-identical to its source; an offset past Upload-Length is
// never reported, and such an upload is not finished.
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AppendOptions,
  ContentStore,
  PartialContentStore,
  PartialProgress,
} from '../../server/storage/content-store';
import { startApp, tempDir, type TestApp } from '../helpers/app';
import { startPostgres } from '../helpers/backends';
import { freshBucketEnv } from '../helpers/buckets';
import { onPostgresS3 } from '../helpers/test-backend';
import { openPatch, sha256, tusClient, type TusClient } from '../helpers/tus';
import { allowErrorLogs } from '../setup/expected-errors';

const MiB = 1024 * 1024;

/** The real partial store's append, with faults a test arms for the next one. */
class FaultyAppends {
  /** The next append stores its bytes, then fails as a process killed before the row update would. */
  failAfterNextAppend = false;
  /** The next append reports this many bytes more than it stored. */
  overReportNextAppend = 0;

  constructor(private readonly inner: PartialContentStore) {}

  async append(
    key: string,
    from: PartialProgress,
    content: Readable,
    options: AppendOptions,
  ): Promise<PartialProgress> {
    const progress = await this.inner.append(key, from, content, options);
    if (this.failAfterNextAppend) {
      this.failAfterNextAppend = false;
      throw new Error('The process died after the store wrote');
    }
    const extra = this.overReportNextAppend;
    this.overReportNextAppend = 0;
    return { ...progress, size: progress.size + extra };
  }
}

/** `store`, its partial area's appends going through `faults`; everything else as it is. */
function withFaultyAppends(store: ContentStore, faults: FaultyAppends): ContentStore {
  const append = faults.append.bind(faults);
  const partial = new Proxy(store.partial, {
    get: (target, property) => (property === 'append' ? append : Reflect.get(target, property, target)),
  });
  return new Proxy(store, {
    get: (target, property) => (property === 'partial' ? partial : Reflect.get(target, property, target)),
  });
}

let app: TestApp;
let faults: FaultyAppends;
let users = 0;

beforeAll(async () => {
  app = await startApp(
    {},
    {
      wrapStore: (store) => {
        faults = new FaultyAppends(store.partial);
        return withFaultyAppends(store, faults);
      },
    },
  );
});
afterAll(() => app?.close());

async function newClient(target: TestApp): Promise<{ cookie: string; tus: TusClient }> {
  const name = `integrity${++users}`;
  await target.createUser(name);
  const cookie = await target.login(name);
  return { cookie, tus: tusClient(target.url, cookie) };
}

async function created(tus: TusClient, length: number): Promise<string> {
  const res = await tus.create(length, { filename: 'source.bin' });
  expect(res.status).toBe(201);
  return new URL(res.headers.get('location')!, res.url).href;
}

async function offsetOf(tus: TusClient, location: string): Promise<number> {
  const head = await tus.head(location);
  expect(head.status).toBe(200);
  return Number(head.headers.get('upload-offset'));
}

async function served(target: TestApp, id: string): Promise<Buffer> {
  const res = await fetch(`${target.url}/f/${id}/raw`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function listedIds(target: TestApp, cookie: string): Promise<string[]> {
  const listed = await (await fetch(`${target.url}/api/v1/files`, { headers: { cookie } })).json();
  return listed.files.map((file: { id: string }) => file.id);
}

/** Sends the rest of `source` from `offset`: the upload finishes, and its file serves exactly `source`. */
async function resumeToTheEnd(
  target: TestApp,
  tus: TusClient,
  location: string,
  offset: number,
  source: Buffer,
): Promise<string> {
  const last = await tus.patch(location, offset, source.subarray(offset));
  expect(last.status).toBe(200);
  expect(last.headers.get('upload-offset')).toBe(String(source.length));
  const { file } = await last.json();
  expect(file.size).toBe(source.length);
  expect(sha256(await served(target, file.id))).toBe(sha256(source));
  return file.id;
}

describe('a resumable upload whose bytes were stored but never recorded', () => {
  it('when the process dies between the store writing a short PATCH and the row update, then HEAD gives the recorded offset and resuming from it ends byte-identical to the source', {
    timeout: 60_000,
  }, async () => {
    allowErrorLogs(); // the append whose record fails is logged
    const { tus } = await newClient(app);
    const source = randomBytes(16 * MiB);
    const location = await created(tus, source.length);
    expect((await tus.patch(location, 0, source.subarray(0, MiB))).status).toBe(204);

    // 2 MiB more reach the store (short of a part: a tail on S3), and are never recorded.
    faults.failAfterNextAppend = true;
    expect((await tus.patch(location, MiB, source.subarray(MiB, 3 * MiB))).status).toBe(500);
    const offset = await offsetOf(tus, location);
    expect(offset).toBe(MiB);

    await resumeToTheEnd(app, tus, location, offset, source);
  });
});

describe('a resumable upload whose store reports more bytes than Upload-Length', () => {
  it('when the last PATCH comes back with more bytes than the length, then it is 409, HEAD never passes the length, no file is made, and the upload can still be resumed to the right bytes', {
    timeout: 60_000,
  }, async () => {
    const { cookie, tus } = await newClient(app);
    const source = randomBytes(3 * MiB);
    const location = await created(tus, source.length);
    expect((await tus.patch(location, 0, source.subarray(0, MiB))).status).toBe(204);

    faults.overReportNextAppend = MiB;
    const refused = await tus.patch(location, MiB, source.subarray(MiB));
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toMatch(/do not add up to Upload-Length/);
    expect(refused.headers.get('upload-offset')).toBeNull();
    // What the store made durable before it answered may be recorded (all of it, on S3), never more.
    const offset = await offsetOf(tus, location);
    expect(offset).toBeLessThanOrEqual(source.length);
    expect(await listedIds(app, cookie)).toEqual([]);

    await resumeToTheEnd(app, tus, location, offset, source);
  });
});

describe.runIf(onPostgresS3)('a resumable upload on S3 while PostgreSQL stops', () => {
  it('when PostgreSQL is stopped mid-PATCH and started again, then HEAD gives the recorded offset and the upload resumed from it ends byte-identical, never past Upload-Length', {
    timeout: 120_000,
  }, async () => {
    allowErrorLogs(); // the PATCH the stopped database fails is logged
    // A cluster of this test's own: the run's shared one is never stopped.
    const postgres = await startPostgres();
    let own: TestApp | null = null;
    try {
      own = await startApp({
        DATA_DIR: tempDir(),
        DATABASE_URL: `${postgres.url}/postgres`,
        ...(await freshBucketEnv()),
      });
      const { cookie, tus } = await newClient(own);
      const source = randomBytes(16 * MiB);
      const location = await created(tus, source.length);
      expect((await tus.patch(location, 0, source.subarray(0, MiB))).status).toBe(204);

      // A PATCH declaring the remaining 15 MiB sends 2 and holds the connection.
      const socket = await openPatch(location, cookie, MiB, 15 * MiB);
      await new Promise<void>((resolve) => socket.write(source.subarray(MiB, 3 * MiB), () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 500));
      postgres.stopServer();
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 500));
      postgres.startServer();

      // The pool finds its way back to the database; until then HEAD may be refused.
      let offset = -1;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
        const head = await tus.head(location).catch(() => null);
        if (head?.status === 200) {
          offset = Number(head.headers.get('upload-offset'));
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(offset).toBe(MiB);

      const fileId = await resumeToTheEnd(own, tus, location, offset, source);
      expect(await listedIds(own, cookie)).toEqual([fileId]);
    } finally {
      await own?.close();
      await postgres.stop();
    }
  });
});
