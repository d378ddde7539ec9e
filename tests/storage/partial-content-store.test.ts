// The partial content store contract (resumable uploads), the same cases on the local disk and
// on an S3 bucket (s3rver): content begun, appended to over several calls, finished whole or
// discarded; an append whose progress was never recorded (a crash, a lost record) is dropped,
// and only the recorded bytes ever become content.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { provision } from '../../server/provision';
import { createContentStore } from '../../server/deps';
import { createLogger } from '../../server/utilities/logger';
import { ContentNotFoundError, type ContentStore, type PartialProgress } from '../../server/storage/content-store';
import { TEST_SECRET, tempDir } from '../helpers/app';
import { freshBucketEnv } from '../helpers/buckets';

const MiB = 1024 * 1024;

async function storeOn(kind: 'disk' | 's3'): Promise<ContentStore> {
  const env = kind === 's3' ? await freshBucketEnv() : {};
  return createContentStore(
    provision(loadConfig({ DATA_DIR: tempDir(), SESSION_SECRET: TEST_SECRET, ...env })),
    createLogger('silent'),
  );
}

async function bytesOf(store: ContentStore, key: string): Promise<Buffer> {
  const opened = await store.open(key);
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** What a caller keeps between calls (the upload's row): the progress it last recorded. */
class Recorded {
  progress: PartialProgress;
  constructor(state: string) {
    this.progress = { size: 0, state };
  }
  checkpoint = async (progress: PartialProgress) => {
    this.progress = progress;
  };
}

/** Appends `bytes` after the recorded progress and records the result, as the service does. */
async function appendAndRecord(
  store: ContentStore,
  key: string,
  recorded: Recorded,
  bytes: Buffer,
  length: number,
): Promise<void> {
  recorded.progress = await store.partial.append(key, recorded.progress, Readable.from([bytes]), {
    length,
    checkpoint: recorded.checkpoint,
  });
}

describe.each(['disk', 's3'] as const)('the %s partial content store', (kind) => {
  it('when content is appended in pieces that end short of a part and past one, then it is finished byte-exact, and nothing is readable before', {
    timeout: 60_000,
  }, async () => {
    const store = await storeOn(kind);
    const key = 'PAAAAAAAAAAAAAAAAAAAAA.bin';
    const content = randomBytes(19 * MiB + 5);
    const recorded = new Recorded(await store.partial.begin(key));
    for (const [from, to] of [
      [0, MiB],
      [MiB, 3 * MiB],
      [3 * MiB, 12 * MiB],
      [12 * MiB, content.length],
    ]) {
      await appendAndRecord(store, key, recorded, content.subarray(from, to), content.length);
      expect(recorded.progress.size).toBe(to);
      if (to < content.length) await expect(store.open(key)).rejects.toBeInstanceOf(ContentNotFoundError);
    }
    await store.partial.finish(key, recorded.progress);
    expect((await bytesOf(store, key)).equals(content)).toBe(true);
  });

  it('when an append wrote its bytes but its progress was never recorded, then the next append from the recorded progress ends byte-exact (nothing of the lost one is read)', {
    timeout: 60_000,
  }, async () => {
    const store = await storeOn(kind);
    const key = 'PBBBBBBBBBBBBBBBBBBBBB.bin';
    const content = randomBytes(16 * MiB);
    const recorded = new Recorded(await store.partial.begin(key));
    await appendAndRecord(store, key, recorded, content.subarray(0, MiB), content.length);
    // Two appends stored and never recorded (the process died, or the database was down), each
    // short of a part: the second is as long as the bytes that follow would make the first.
    await store.partial.append(key, recorded.progress, Readable.from([content.subarray(MiB, 3 * MiB)]), {
      length: content.length,
      checkpoint: async () => undefined,
    });
    await store.partial.append(key, recorded.progress, Readable.from([randomBytes(2 * MiB)]), {
      length: content.length,
      checkpoint: async () => undefined,
    });
    expect(recorded.progress.size).toBe(MiB);
    await appendAndRecord(store, key, recorded, content.subarray(MiB), content.length);
    expect(recorded.progress.size).toBe(content.length);
    await store.partial.finish(key, recorded.progress);
    expect((await bytesOf(store, key)).equals(content)).toBe(true);
  });

  it('when an append fails part-way (its checkpoint refused after the store wrote), then the last recorded progress still resumes to byte-exact content', {
    timeout: 60_000,
  }, async () => {
    const store = await storeOn(kind);
    const key = 'PCCCCCCCCCCCCCCCCCCCCC.bin';
    const content = randomBytes(40 * MiB + 3);
    const recorded = new Recorded(await store.partial.begin(key));
    await appendAndRecord(store, key, recorded, content.subarray(0, 2 * MiB), content.length);
    let refusals = 0;
    const refusing = async () => {
      refusals++;
      throw new Error('the record failed');
    };
    // Enough bytes for a checkpoint on either store (a part on S3, 32 MiB on disk), which fails.
    // On disk a checkpoint waits for the sync before it: on a busy disk the append may end first,
    // with no checkpoint asked. Either way, a refused checkpoint must fail the append.
    const append = store.partial.append(key, recorded.progress, Readable.from([content.subarray(2 * MiB, 38 * MiB)]), {
      length: content.length,
      checkpoint: refusing,
    });
    const outcome = await append.then(
      () => 'resolved',
      () => 'rejected',
    );
    if (kind === 's3' || refusals > 0) expect(outcome).toBe('rejected');
    expect(recorded.progress.size).toBe(2 * MiB);
    await appendAndRecord(store, key, recorded, content.subarray(2 * MiB), content.length);
    await store.partial.finish(key, recorded.progress);
    expect((await bytesOf(store, key)).equals(content)).toBe(true);
  });

  it('when a client goes away mid-append, then what arrived is kept and the upload carries on from there', {
    timeout: 60_000,
  }, async () => {
    const store = await storeOn(kind);
    const key = 'PDDDDDDDDDDDDDDDDDDDDD.bin';
    const content = randomBytes(6 * MiB);
    const recorded = new Recorded(await store.partial.begin(key));
    // The client sends 2 MiB, and is gone once the store has taken them (when it asks for more).
    let reads = 0;
    const broken = new Readable({
      read() {
        if (reads++ === 0) this.push(content.subarray(0, 2 * MiB));
        else setImmediate(() => this.destroy(new Error('client went away')));
      },
    });
    recorded.progress = await store.partial.append(key, recorded.progress, broken, {
      length: content.length,
      checkpoint: recorded.checkpoint,
    });
    expect(recorded.progress.size).toBe(2 * MiB);
    await appendAndRecord(store, key, recorded, content.subarray(2 * MiB), content.length);
    await store.partial.finish(key, recorded.progress);
    expect((await bytesOf(store, key)).equals(content)).toBe(true);
  });

  it('when the store holds bytes past the recorded progress at the end (written, never recorded), then only the recorded bytes become content', {
    timeout: 60_000,
  }, async () => {
    const store = await storeOn(kind);
    const key = 'PGGGGGGGGGGGGGGGGGGGGG.bin';
    const content = randomBytes(3 * MiB);
    const recorded = new Recorded(await store.partial.begin(key));
    await appendAndRecord(store, key, recorded, content, content.length);
    await store.partial.append(key, recorded.progress, Readable.from([randomBytes(MiB)]), {
      length: content.length + MiB,
      checkpoint: async () => undefined,
    });
    await store.partial.finish(key, recorded.progress);
    expect((await bytesOf(store, key)).equals(content)).toBe(true);
  });

  it('when empty content is begun and finished, then it reads back as 0 bytes', async () => {
    const store = await storeOn(kind);
    const key = 'PEEEEEEEEEEEEEEEEEEEEE';
    const recorded = new Recorded(await store.partial.begin(key));
    await appendAndRecord(store, key, recorded, Buffer.alloc(0), 0);
    await store.partial.finish(key, recorded.progress);
    expect((await bytesOf(store, key)).length).toBe(0);
  });

  it('when partial content is discarded, then nothing is readable and a second discard is no error', async () => {
    const store = await storeOn(kind);
    const key = 'PFFFFFFFFFFFFFFFFFFFFF.bin';
    const recorded = new Recorded(await store.partial.begin(key));
    await appendAndRecord(store, key, recorded, randomBytes(MiB), 4 * MiB);
    await store.partial.discard(key, recorded.progress.state);
    await store.partial.discard(key, recorded.progress.state);
    await expect(store.open(key)).rejects.toBeInstanceOf(ContentNotFoundError);
  });
});
