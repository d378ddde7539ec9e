// The deliverer (ADR 0050): every instance runs one. It claims deliveries that are due with a
// conditional UPDATE that only one instance's can win (a lease of LEASE_MS and a token of its
// own), sends each, and writes the outcome only while it still holds the lease. A delivery
// claimed by an instance that died is claimed again once its lease is over: at least once.
//
// Deliveries go out per endpoint (ADR 0057): at most PER_ENDPOINT in flight to one endpoint, and
// whenever one ends the next due one, of any endpoint with a free slot, is claimed at once. An
// endpoint that never answers holds its own slots for the timeout, never another's delivery.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import type { Clock } from '../utilities/clock';
import type { Config } from '../config';
import type { DirectSql } from '../db/direct-sql';
import {
  claimDelivery,
  type DueDelivery,
  markDelivered,
  markNotDelivered,
  selectDueDeliveries,
} from '../db/webhook-deliveries';
import { dependencyOutageOf } from '../outages/classification';
import { bareHost, guardConnectedAddress, isPublicAddress, pinnedLookup, RefusedAddressError } from './address-guard';
import { openSecret } from './secrets';
import { signatureHeader } from './signing';

/** A receiver has this long to answer; longer is a failure. */
const TIMEOUT_MS = 10_000;
/** How long a claim holds: well past the timeout, so a live sender always finishes first. */
const LEASE_MS = 60_000;
/** Retried for a day after the event, then marked failed. */
const RETRY_FOR_MS = 24 * 60 * 60 * 1000;
/** The longest wait between two attempts. */
const LONGEST_WAIT_MS = 60 * 60 * 1000;
/** Deliveries one instance sends to one endpoint at once. */
const PER_ENDPOINT = 2;
/** Deliveries one instance sends at once, to all endpoints. */
const IN_FLIGHT = 64;
/** How much of a response's error text is kept. */
const ERROR_TEXT = 200;

export interface DelivererDeps {
  sql: DirectSql;
  config: Config;
  log: Logger;
  clock: Clock;
}

/** The body of a delivery: the same bytes on every attempt. */
function deliveryBody(
  config: Pick<Config, 'baseUrl'>,
  row: Pick<DueDelivery, 'id' | 'type' | 'data' | 'createdAt'>,
): string {
  const data = JSON.parse(row.data) as Record<string, unknown>;
  if (typeof data.fileId === 'string') data.shareUrl = `${config.baseUrl}/f/${data.fileId}`;
  return JSON.stringify({ id: row.id, type: row.type, created: new Date(row.createdAt).toISOString(), data });
}

/** The wait before the next attempt after `attempts` failed ones: doubling from the base, with jitter. */
function backoffMs(baseMs: number, attempts: number): number {
  const wait = Math.min(LONGEST_WAIT_MS, baseMs * 2 ** Math.min(attempts - 1, 30));
  // Between half and all of it, so that endpoints failing together do not come back together.
  return Math.round(wait / 2 + Math.random() * (wait / 2));
}

type Outcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/**
 * Why a request failed, in words that name no address: a refused or unresolvable host reads the
 * same (address-guard.ts), and a system error is told by its code alone.
 */
function failureText(error: Error & { code?: unknown }): string {
  if (error instanceof RefusedAddressError) return error.message;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  return typeof error.code === 'string' ? `the connection failed (${error.code})` : 'the connection failed';
}

/** One POST, to the checked address, redirects not followed. */
function send(config: Config, target: URL, body: string, headers: Record<string, string>): Promise<Outcome> {
  const guarded = !config.webhooks.allowPrivate;
  const host = bareHost(target);
  if (guarded && ipaddr.isValid(host) && !isPublicAddress(host))
    return Promise.resolve({ ok: false, status: null, error: new RefusedAddressError().message });
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(TIMEOUT_MS),
        ...(guarded ? { lookup: pinnedLookup as never } : {}),
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < ERROR_TEXT) text += chunk;
        });
        response.on('error', () => undefined);
        response.on('end', () =>
          resolve(
            status >= 200 && status < 300
              ? { ok: true, status }
              : { ok: false, status, error: `HTTP ${status}${text ? `: ${text.slice(0, ERROR_TEXT)}` : ''}` },
          ),
        );
        response.on('close', () => resolve({ ok: false, status, error: `HTTP ${status}: the answer was cut` }));
      },
    );
    if (guarded) request.on('socket', guardConnectedAddress);
    request.on('error', (error: Error) => resolve({ ok: false, status: null, error: failureText(error) }));
    request.end(body);
  });
}

type Claimed = DueDelivery & { token: string };

export class WebhookDeliverer {
  private timer: NodeJS.Timeout | null = null;
  /** The look for due deliveries under way, if any: one at a time. */
  private looking: Promise<void> | null = null;
  /** Whether to look again as soon as the look under way ends (a slot was freed meanwhile). */
  private lookAgain = false;
  private stopped = false;
  /** The deliveries this instance is sending, and how many of them go to each endpoint. */
  private readonly sending = new Set<Promise<void>>();
  private readonly sendingTo = new Map<string, number>();
  private readonly everyMs: number;

  constructor(private readonly deps: DelivererDeps) {
    // Looked for every second, or at the retry base when tests make it shorter.
    this.everyMs = Math.max(20, Math.min(1000, deps.config.webhooks.retryBaseMs));
  }

  start(): void {
    this.wake();
  }

  /** Stops claiming; resolves once the deliveries under way are sent and written. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.looking;
    await Promise.all(this.sending);
  }

  /** Looks for due deliveries now, or once the look under way ends. */
  private wake(): void {
    if (this.stopped) return;
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.lookAgain = false;
    this.looking = this.claimDue().then(
      (claimed) => {
        this.looking = null;
        // What was claimed may leave more due for the same endpoints, and a slot freed meanwhile
        // may take one now: look again at once; else at the next tick.
        if (claimed || this.lookAgain) this.wake();
        else this.later();
      },
      (error: unknown) => {
        this.looking = null;
        this.reportFailure(error);
        this.later();
      },
    );
  }

  private later(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.wake(), this.everyMs);
    this.timer.unref();
  }

  private reportFailure(error: unknown): void {
    // The database or the storage being down is the outage's to report (once, by the doors):
    // a look every second would repeat it.
    const level = dependencyOutageOf(error) ? 'debug' : 'warn';
    this.deps.log[level]({ err: error }, 'webhook deliveries not sent for now; the next look tries again');
  }

  /**
   * Claims due deliveries for the endpoints with a free slot and starts sending them, without
   * waiting for them (ADR 0057). True when it claimed any.
   */
  private async claimDue(): Promise<boolean> {
    const { sql, clock } = this.deps;
    if (this.sending.size >= IN_FLIGHT) return false;
    const now = new Date(clock.now());
    // Twice IN_FLIGHT rows leave room after those of the endpoints whose slots are full here.
    const due = await selectDueDeliveries(sql, now, 2 * IN_FLIGHT);
    let claimed = false;
    for (const row of due) {
      if (this.stopped || this.sending.size >= IN_FLIGHT) break;
      if ((this.sendingTo.get(row.endpointId) ?? 0) >= PER_ENDPOINT) continue;
      const token = randomBytes(12).toString('base64url');
      const at = new Date(clock.now());
      if (!(await claimDelivery(sql, row.id, token, at, new Date(at.getTime() + LEASE_MS)))) continue;
      this.startSending({ ...row, token });
      claimed = true;
    }
    return claimed;
  }

  private startSending(row: Claimed): void {
    const endpoint = row.endpointId;
    this.sendingTo.set(endpoint, (this.sendingTo.get(endpoint) ?? 0) + 1);
    const sending: Promise<void> = this.deliver(row)
      .catch((error: unknown) => this.reportFailure(error))
      .finally(() => {
        this.sending.delete(sending);
        const left = (this.sendingTo.get(endpoint) ?? 1) - 1;
        if (left > 0) this.sendingTo.set(endpoint, left);
        else this.sendingTo.delete(endpoint);
        // A slot is free: the endpoint's next due delivery, or another's, may go now.
        this.wake();
      });
    this.sending.add(sending);
  }

  private async deliver(row: Claimed): Promise<void> {
    const { sql, config, log, clock } = this.deps;
    const body = deliveryBody(config, row);
    let outcome: Outcome;
    try {
      const secret = openSecret(row.secret, config.sessionSecret);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'file-sharing-webhooks/1',
        'x-webhook-id': row.id,
        'x-signature': signatureHeader(secret, body, Math.floor(clock.now() / 1000)),
      };
      outcome = await send(config, new URL(row.url), body, headers);
    } catch (error) {
      outcome = { ok: false, status: null, error: error instanceof Error ? error.message : String(error) };
    }
    const at = clock.now();
    if (outcome.ok) {
      await markDelivered(sql, row.id, row.token, new Date(at), outcome.status);
      log.info({ deliveryId: row.id, type: row.type, status: outcome.status }, 'webhook delivered');
      return;
    }
    const attempts = Number(row.attempts) + 1;
    const next = at + backoffMs(config.webhooks.retryBaseMs, attempts);
    const giveUp = next > new Date(row.createdAt).getTime() + RETRY_FOR_MS;
    await markNotDelivered(sql, row.id, row.token, {
      status: giveUp ? 'failed' : 'pending',
      nextAttemptAt: new Date(next),
      statusCode: outcome.status,
      error: outcome.error,
    });
    log.info(
      { deliveryId: row.id, type: row.type, status: outcome.status, error: outcome.error, attempts, giveUp },
      giveUp ? 'webhook delivery failed for a day: given up' : 'webhook delivery failed: tried again later',
    );
  }
}
