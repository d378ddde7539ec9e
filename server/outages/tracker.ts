// Logs a dependency outage once, not once per request (ADR 0030). While the database or the
// storage cannot be reached every request that needs it fails the same way: a stack trace for
// each would bury the one line that matters. The first refusal logs the start; the tracker then
// probes the dependency until it answers and logs the end with the number of requests refused.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Dependency, DependencyUnavailableError } from '../utilities/errors';
import { errorSummary } from '../utilities/logged-errors';
import { dependencyOutageOf } from './classification';

/** How to ask each dependency whether it answers again (resolves when it does). */
export type DependencyProbes = Record<Dependency, () => Promise<void>>;

/** How long after a failed probe the next one runs. */
const PROBE_EVERY_MS = 2_000;

interface Outage {
  startedAt: number;
  /** Requests refused since the outage began, the first one included. */
  refused: number;
  probe: NodeJS.Timeout | null;
}

export class OutageTracker {
  private readonly outages = new Map<Dependency, Outage>();
  private stopped = false;

  constructor(
    private readonly log: Logger,
    private readonly probes: DependencyProbes,
    private readonly probeEveryMs = PROBE_EVERY_MS,
    /** Told of every refused request (the metrics' dependency errors, ADR 0049). */
    private readonly onRefused: (dependency: Dependency) => void = () => {},
  ) {}

  /**
   * The outage `error` stands for (server/outages/classification.ts), counted as one refused request; null when
   * the error is no outage, for the door to handle as before. Every door calls it once per failed request.
   */
  recognise(error: unknown): DependencyUnavailableError | null {
    const outage = dependencyOutageOf(error);
    if (outage) this.refused(outage);
    return outage;
  }

  /** Stops probing: the process is closing. */
  stop(): void {
    this.stopped = true;
    for (const outage of this.outages.values()) if (outage.probe) clearTimeout(outage.probe);
  }

  private refused({ dependency, fault }: DependencyUnavailableError): void {
    this.onRefused(dependency);
    const current = this.outages.get(dependency);
    if (current) {
      current.refused++;
      return;
    }
    this.outages.set(dependency, { startedAt: performance.now(), refused: 1, probe: null });
    // The fault in a few words, without its stack: the same for every request it refused.
    this.log.error(
      { dependency, reason: describe(fault) },
      `${dependency} unavailable: requests that need it are answered 503 until it is back`,
    );
    this.probeLater(dependency);
  }

  private probeLater(dependency: Dependency): void {
    const outage = this.outages.get(dependency);
    if (!outage || this.stopped) return;
    outage.probe = setTimeout(() => void this.probe(dependency, outage), this.probeEveryMs);
    // A pending probe never keeps the process alive.
    outage.probe.unref();
  }

  private async probe(dependency: Dependency, outage: Outage): Promise<void> {
    outage.probe = null;
    try {
      await this.probes[dependency]();
    } catch {
      this.probeLater(dependency);
      return;
    }
    if (this.stopped) return;
    this.outages.delete(dependency);
    const durationMs = Math.round(performance.now() - outage.startedAt);
    this.log.warn(
      { dependency, refused: outage.refused, durationMs },
      `${dependency} available again; ${outage.refused} requests were refused meanwhile`,
    );
  }
}

function describe(fault: unknown): string {
  if (!(fault instanceof Error)) return String(fault);
  const code = (fault as NodeJS.ErrnoException).code;
  // What went wrong, never the statement nor its values (ADR 0059).
  return `${fault.name}${code ? ` ${code}` : ''}: ${errorSummary(fault)}`;
}
