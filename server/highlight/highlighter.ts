// Colouring a text preview off the event loop, within a time budget (ADR 0054). highlight.js runs
// in a small pool of worker threads (piscina); a colouring that outlives its budget is aborted,
// which ends its thread, and the preview is shown uncoloured. No thread runs until a preview is
// first coloured, and an idle one ends after a while: an idle server keeps its memory low. A
// Markdown file's preview is rendered by the same threads within the same budget (ADR 0069).
import os from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';
import type { HighlightTask, MarkdownTask } from './highlight-worker';

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

/** What rendering a Markdown text came to. */
export type Rendering =
  | { kind: 'rendered'; html: string }
  | {
      kind: 'not-rendered';
      /**
       * `too-long`: its HTML is longer than a page shows; the others as for a colouring
       * (`over-budget`, `no-thread`, `failed`).
       */
      reason: 'over-budget' | 'too-long' | 'no-thread' | 'failed';
      /** The same text would fare the same again (over budget, too long): the answer may be kept. */
      lasting: boolean;
      /** Why the thread failed (`failed` only): the error's message, never the text. */
      error?: string;
    };

/** What one task in a thread came to: its answer, or why there is none (ended, or never taken). */
type TaskOutcome =
  | { kind: 'done'; answer: string | null }
  | { kind: 'stopped'; reason: 'over-budget' | 'no-thread' | 'failed'; lasting: boolean; error?: string };

export interface Highlighter {
  /** highlight.js's HTML for `text` as `language`, or why there is none. Never rejects. */
  colour(text: string, language: string): Promise<Colouring>;
  /** markdown-it's HTML for `text` (ADR 0069), or why there is none. Never rejects. */
  renderMarkdown(text: string): Promise<Rendering>;
  /** Ends the threads (the server's close). */
  close(): Promise<void>;
  readonly budgetMs: number;
}

export function createHighlighter(log: Logger, budgetMs = COLOUR_BUDGET_MS): Highlighter {
  let pool: Piscina<HighlightTask | MarkdownTask, string | null> | null = null;
  const startPool = () => {
    const started = new Piscina<HighlightTask | MarkdownTask, string | null>({
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
  /**
   * Runs the worker's export `name` on `task` within the budget. The budget starts when a thread
   * takes the text (it says so on `started`), so that neither a thread's start nor a wait behind
   * others is counted against the file.
   */
  const runTimed = async (
    name: 'default' | 'renderMarkdown',
    task: Omit<HighlightTask, 'started'> | Omit<MarkdownTask, 'started'>,
  ): Promise<TaskOutcome> => {
    pool ??= startPool();
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
      const answer = await pool.run({ ...task, started }, { name, signal: abort.signal, transferList: [started] });
      return { kind: 'done', answer };
    } catch (error) {
      if (!abort.signal.aborted) return { kind: 'stopped', reason: 'failed', lasting: false, error: String(error) };
      return overBudget
        ? { kind: 'stopped', reason: 'over-budget', lasting: true }
        : { kind: 'stopped', reason: 'no-thread', lasting: false };
    } finally {
      clearTimeout(waited);
      clearTimeout(budget);
      port1.close();
    }
  };
  return {
    budgetMs,
    async colour(text, language) {
      const outcome = await runTimed('default', { text, language });
      if (outcome.kind === 'stopped') return { ...outcome, kind: 'uncoloured' };
      return outcome.answer === null
        ? { kind: 'uncoloured', reason: 'no-grammar', lasting: true }
        : { kind: 'coloured', html: outcome.answer };
    },
    async renderMarkdown(text) {
      const outcome = await runTimed('renderMarkdown', { text });
      if (outcome.kind === 'stopped') return { ...outcome, kind: 'not-rendered' };
      return outcome.answer === null
        ? { kind: 'not-rendered', reason: 'too-long', lasting: true }
        : { kind: 'rendered', html: outcome.answer };
    },
    async close() {
      const closing = pool;
      pool = null;
      await closing?.destroy();
    },
  };
}
