// Requests sent and timed from a thread of their own. The app under test runs in the test's own
// thread: while it holds the event loop, a client in that thread could neither send a request nor
// read the clock, and would see every answer come at once.
import { Worker } from 'node:worker_threads';

export interface TimedAnswer {
  url: string;
  status: number;
  body: string;
  /** When it was sent, in ms after the first request. */
  sentAt: number;
  /** How long its answer took, in ms. */
  ms: number;
}

interface ProbeOptions {
  headers?: Record<string, string>;
  probes: string[];
  firstAfterMs: number;
  everyMs: number;
  rounds: number;
}

const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, headers, probes, firstAfterMs, everyMs, rounds } = workerData;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const start = performance.now();
async function timed(target, init) {
  const sentAt = performance.now();
  const res = await fetch(target, init);
  const body = await res.text();
  return { url: target, status: res.status, body, sentAt: sentAt - start, ms: performance.now() - sentAt };
}
(async () => {
  let answered = false;
  const first = timed(url, { headers }).finally(() => { answered = true; });
  const sent = [];
  await sleep(firstAfterMs);
  for (let round = 0; round < rounds && !answered; round += 1) {
    for (const probe of probes) sent.push(timed(probe));
    await sleep(everyMs);
  }
  parentPort.postMessage({ first: await first, probes: await Promise.all(sent) });
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

/**
 * Sends a request to `url` and, `firstAfterMs` later, the probes, again every `everyMs` while it
 * is unanswered (`rounds` times at most): its answer, and theirs.
 */
export function probeWhileAnswering(
  url: string,
  { headers = {}, probes, firstAfterMs, everyMs, rounds }: ProbeOptions,
): Promise<{ first: TimedAnswer; probes: TimedAnswer[] }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, {
      eval: true,
      workerData: { url, headers, probes, firstAfterMs, everyMs, rounds },
    });
    worker.once('message', (message: { first: TimedAnswer; probes: TimedAnswer[] } | { error: string }) => {
      void worker.terminate();
      if ('error' in message) reject(new Error(message.error));
      else resolve(message);
    });
    worker.once('error', reject);
  });
}
