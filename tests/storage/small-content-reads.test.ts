// Small content on the local disk is read on the event loop while the disk answers from its
// cache, and on the thread pool for a while once reads take longer than their budget on
// average (ADR 0025). Both ways must give the same bytes and the same refusals.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ContentNotFoundError } from '../../server/storage/content-store';
import { LocalDiskStore } from '../../server/storage/local-disk-store';
import { tempDir } from '../helpers/app';

const KEY = 'SSSSSSSSSSSSSSSSSSSSSS.bin';
const MISSING = 'MMMMMMMMMMMMMMMMMMMMMM.bin';
const FOLDER = 'DDDDDDDDDDDDDDDDDDDDDD.bin';

/** 40,000 bytes of a pattern that differs at every offset a range could start at. */
const CONTENT = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7 + (i >> 8)) % 256));

async function storeWithLog(loopReadBudgetMs?: number) {
  const lines: Array<{ level: number; msg: string; averageMs?: number }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const root = tempDir();
  const store = new LocalDiskStore(root, { log, loopReadBudgetMs });
  await store.write(KEY, Readable.from([CONTENT]), { maxBytes: CONTENT.length });
  fs.mkdirSync(path.join(root, FOLDER));
  return { store, lines };
}

async function readAll(store: LocalDiskStore, key: string, range: { start: number; end: number }): Promise<Buffer> {
  const opened = await store.open(key, range);
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** What either way must answer: whole, a middle range, the last byte; refusals for a missing file and a folder. */
async function expectSameAnswers(store: LocalDiskStore): Promise<void> {
  expect((await readAll(store, KEY, { start: 0, end: CONTENT.length - 1 })).equals(CONTENT)).toBe(true);
  expect((await readAll(store, KEY, { start: 1234, end: 5677 })).equals(CONTENT.subarray(1234, 5678))).toBe(true);
  expect(
    (await readAll(store, KEY, { start: CONTENT.length - 1, end: CONTENT.length - 1 })).equals(CONTENT.subarray(-1)),
  ).toBe(true);
  await expect(store.open(MISSING, { start: 0, end: 9 })).rejects.toBeInstanceOf(ContentNotFoundError);
  await expect(store.open(FOLDER, { start: 0, end: 9 })).rejects.toBeInstanceOf(ContentNotFoundError);
  // A record that says more than the disk holds is a fault, never a short answer.
  await expect(store.open(KEY, { start: 0, end: CONTENT.length })).rejects.toThrow(/shorter than its record/);
}

describe('small content on the local disk', () => {
  it('when the disk answers within the budget, then every range reads back byte-exact, refusals are the same, and nothing is logged', async () => {
    const { store, lines } = await storeWithLog();
    await expectSameAnswers(store);
    await expectSameAnswers(store);
    expect(lines).toEqual([]);
  });

  it('when reads take longer than the budget on average, then the log says they go to the thread pool, once, and they still read back byte-exact with the same refusals', async () => {
    // A budget below zero: the first read on the loop is over it, and the reads after it go to the pool.
    const { store, lines } = await storeWithLog(-1);
    await expectSameAnswers(store);
    await expectSameAnswers(store);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'small reads waited for the disk: they go to the thread pool for a while',
        averageMs: expect.any(Number),
      }),
    ]);
  });
});
