// Colouring a text preview off the event loop, within a time budget (ADR 0054). highlight.js runs
// in a small pool of worker threads (piscina); a colouring that outlives its budget is aborted,
// which ends its thread, and the preview is shown uncoloured. No thread runs until a preview is
// first coloured, and an idle one ends after a while: an idle server keeps its memory low.
import os from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';
import type { HighlightTask } from './highlight-worker';

/**
 * How long highlight.js may colour one preview, from the moment its thread takes it: 64 KiB of
 * ordinary source takes it 100–300 ms (ADR 0045); a crafted file may take minutes.
 */
const COLOUR_BUDGET_MS = 1000;

/**
 * How long a preview may wait for a thread to take it: a thread's start (about half a second on
 * a busy machine) or the colourings ahead of it. Past it the preview is shown uncoloured too.
 */
const THREAD_WAIT_MS = 3000;

/** An idle thread ends after this long: a link posted to a group is opened within it. */
const IDLE_THREAD_MS = 30_000;

/** Half the cores, one or two: colouring never takes the cores the requests need. */
const MAX_THREADS = Math.max(1, Math.min(2, Math.floor(os.availableParallelism() / 2)));

/**
 * A thread's heap: highlight.js needs a few MB for 64 KiB of text; a grammar that runs away ends
 * its thread here rather than growing the process.
 */
const THREAD_HEAP_MB = 64;

/**
 * The worker as Node loads it (no bundler in between): beside this module when the server runs
 * from its TypeScript (Node strips the types), else dist/server/highlight-worker.js, which every
 * file of the build reaches as ../server/ since each sits one folder below dist/ (its entries in
 * server/ and cli/, their shared code in chunks/: scripts/build-server.mjs).
 */
const WORKER_FILE = import.meta.url.endsWith('.ts')
  ? new URL('./highlight-worker.ts', import.meta.url).href
  : new URL('../server/highlight-worker.js', import.meta.url).href;

/** What colouring a text came to. */
export type Colouring =
  | { kind: 'coloured'; html: string }
  | {
      kind: 'uncoloured';
      /**
       * `over-budget`: colouring it took longer than the budget; `no-grammar`: highlight.js gave
       * up on it; `no-thread`: no thread took it in time; `failed`: its thread failed.
       */
      reason: 'over-budget' | 'no-grammar' | 'no-thread' | 'failed';
      /** The same text would fare the same again (over budget, no grammar): the answer may be kept. */
      lasting: boolean;
      /** Why the thread failed (`failed` only): the error's message, never the text. */
      error?: string;
    };

export interface Highlighter {
  /** highlight.js's HTML for `text` as `language`, or why there is none. Never rejects. */
  colour(text: string, language: string): Promise<Colouring>;
  /** Ends the threads (the server's close). */
  close(): Promise<void>;
  readonly budgetMs: number;
}

export function createHighlighter(log: Logger, budgetMs = COLOUR_BUDGET_MS): Highlighter {
  let pool: Piscina<HighlightTask, string | null> | null = null;
  const startPool = () => {
    const started = new Piscina<HighlightTask, string | null>({
      filename: WORKER_FILE,
      minThreads: 0,
      maxThreads: MAX_THREADS,
      idleTimeout: IDLE_THREAD_MS,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    // A thread that fails between colourings (a failure during one is that colouring's answer).
    started.on('error', (error: unknown) => log.warn({ error: String(error) }, 'a colouring thread failed'));
    return started;
  };
  return {
    budgetMs,
    async colour(text, language) {
      pool ??= startPool();
      // The budget starts when a thread takes the text (it says so on `started`), so that neither
      // a thread's start nor a wait behind others is counted against the file.
      const abort = new AbortController();
      let overBudget = false;
      const waited = setTimeout(() => abort.abort(), THREAD_WAIT_MS);
      let budget: NodeJS.Timeout | undefined;
      const { port1, port2: started } = new MessageChannel();
      port1.once('message', () => {
        clearTimeout(waited);
        budget = setTimeout(() => {
          overBudget = true;
          abort.abort();
        }, budgetMs);
      });
      try {
        const html = await pool.run({ text, language, started }, { signal: abort.signal, transferList: [started] });
        return html === null ? { kind: 'uncoloured', reason: 'no-grammar', lasting: true } : { kind: 'coloured', html };
      } catch (error) {
        if (!abort.signal.aborted)
          return { kind: 'uncoloured', reason: 'failed', lasting: false, error: String(error) };
        return overBudget
          ? { kind: 'uncoloured', reason: 'over-budget', lasting: true }
          : { kind: 'uncoloured', reason: 'no-thread', lasting: false };
      } finally {
        clearTimeout(waited);
        clearTimeout(budget);
        port1.close();
      }
    },
    async close() {
      const closing = pool;
      pool = null;
      await closing?.destroy();
    },
  };
}
