// Clients that go away mid-upload, many times over (an aborted upload leaves no
// file and no record): nothing half-written is left, no file descriptor leaks, memory stays flat.
import type { TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';
import { poll } from '../helpers/multipart';
import {
  abortedUpload,
  collectGarbage,
  expectServerAnswers,
  expectUnchanged,
  openFdCount,
  snapshot,
  uploadSmall,
} from '../helpers/hardening-http';

const ABORTS = 200;
const CONCURRENCY = 8;
const FD_SLACK = 10;
const RSS_SLACK_BYTES = 50 * 1024 * 1024;
const HEAP_SLACK_BYTES = 20 * 1024 * 1024;

/** `count` uploads cut off at varying points, `CONCURRENCY` at a time. */
async function abortMany(app: TestApp, cookie: string, count: number): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < count) {
      const index = started++;
      // Vary how far each upload gets: inside the first chunk, past several, with or without a pause.
      await abortedUpload(app.url, cookie, {
        declaredBytes: 8 * 1024 * 1024,
        sentBytes: 1024 + ((index * 37_813) % (512 * 1024)),
        pauseMs: index % 3 === 0 ? 5 : 0,
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/**
 * The client side is done long before the server is: the kernel queues the connections and the
 * (in-process) server works through them afterwards. Resolves once the fd count has settled
 * (same value for a second) with no temporary file left; returns the highest count seen.
 */
async function serverCaughtUp(app: TestApp, timeoutMs: number): Promise<{ settled: boolean; peak: number }> {
  let peak = openFdCount();
  let last = -1;
  let stableSince = Date.now();
  const settled = await poll(async () => {
    const fds = openFdCount();
    peak = Math.max(peak, fds);
    if (fds !== last || (await app.incompleteFiles()).length > 0) {
      last = fds;
      stableSince = Date.now();
      return false;
    }
    return Date.now() - stableSince >= 1_000;
  }, timeoutMs);
  return { settled, peak };
}

describe('client aborts mid-upload', () => {
  test(`when ${ABORTS} uploads in a row are cut off mid-body, then no temporary file, no row, no fd leak and flat memory`, {
    timeout: 150_000,
  }, async ({ app, alice }) => {
    // Warm up every code path (an upload, a round of aborts) so that lazy allocations and the
    // allocator's first growth are not counted as leaks.
    expect((await uploadSmall(app.url, alice.cookie)).status).toBe(201);
    await abortMany(app, alice.cookie, 50);
    expect((await serverCaughtUp(app, 30_000)).settled).toBe(true);
    collectGarbage();

    const before = await snapshot(app);
    const fdBefore = openFdCount();
    const memoryBefore = process.memoryUsage();

    await abortMany(app, alice.cookie, ABORTS);
    const { settled, peak } = await serverCaughtUp(app, 60_000);
    expect(
      settled,
      `still busy: ${openFdCount()} fds (before: ${fdBefore}), ${(await app.incompleteFiles()).length} temporary files`,
    ).toBe(true);

    collectGarbage();
    const fdAfter = openFdCount();
    const memoryAfter = process.memoryUsage();
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    console.log(
      `[hardening] ${ABORTS} client aborts survived: fds ${fdBefore} -> ${fdAfter} (peak ${peak}), ` +
        `rss ${mib(memoryBefore.rss)} -> ${mib(memoryAfter.rss)}, heap ${mib(memoryBefore.heapUsed)} -> ${mib(memoryAfter.heapUsed)}`,
    );

    await expectUnchanged(app, before);
    expect(fdAfter).toBeLessThanOrEqual(fdBefore + FD_SLACK);
    expect(memoryAfter.rss - memoryBefore.rss).toBeLessThan(RSS_SLACK_BYTES);
    expect(memoryAfter.heapUsed - memoryBefore.heapUsed).toBeLessThan(HEAP_SLACK_BYTES);
    await expectServerAnswers(app.url);
    expect((await uploadSmall(app.url, alice.cookie, 'still works', 'after.txt')).status).toBe(201);
  });
});
