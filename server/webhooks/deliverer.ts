// The deliverer (ADR 0050): every instance runs one. It claims deliveries that are due with a
// conditional UPDATE that only one instance's can win (a lease of LEASE_MS and a token of its
// own), sends each, and writes the outcome only while it still holds the lease. A delivery
// claimed by an instance that died is claimed again once its lease is over: at least once.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { DirectSql } from '../db/direct-sql';
import { dependencyOutageOf } from '../outages';
import { isPrivateAddress, pinnedLookup } from './address-guard';
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
/** Deliveries claimed per round. */
const BATCH = 20;
/** How much of a response's error text is kept. */
const ERROR_TEXT = 200;

interface DueDelivery {
  id: string;
  type: string;
  data: string;
  createdAt: Date | number | string;
  attempts: number | string;
  url: string;
  secret: string;
}

const DUE =
  'select "d"."id" as "id", "d"."type" as "type", "d"."data" as "data", "d"."created_at" as "createdAt", ' +
  '"d"."attempts" as "attempts", "e"."url" as "url", "e"."secret" as "secret" from "webhook_deliveries" "d" ' +
  'join "webhook_endpoints" "e" on "e"."id" = "d"."endpoint_id" ' +
  `where "d"."status" = 'pending' and "d"."next_attempt_at" <= ? and ("d"."lease_until" is null or "d"."lease_until" <= ?) ` +
  `order by "d"."next_attempt_at" limit ${BATCH}`;

const CLAIM =
  'update "webhook_deliveries" set "lease_until" = ?, "lease_token" = ? where "id" = ? and "status" = \'pending\' ' +
  'and "next_attempt_at" <= ? and ("lease_until" is null or "lease_until" <= ?)';

const DELIVERED =
  'update "webhook_deliveries" set "status" = \'delivered\', "attempts" = "attempts" + 1, "delivered_at" = ?, ' +
  '"last_status_code" = ?, "last_error" = null, "lease_until" = null, "lease_token" = null where "id" = ? and "lease_token" = ?';

const NOT_DELIVERED =
  'update "webhook_deliveries" set "status" = ?, "attempts" = "attempts" + 1, "next_attempt_at" = ?, ' +
  '"last_status_code" = ?, "last_error" = ?, "lease_until" = null, "lease_token" = null where "id" = ? and "lease_token" = ?';

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

/** One POST, to the checked address, redirects not followed. */
function send(config: Config, target: URL, body: string, headers: Record<string, string>): Promise<Outcome> {
  const allowPrivate = config.webhooks.allowPrivate;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && net.isIP(host) && isPrivateAddress(host))
    return Promise.resolve({ ok: false, status: null, error: `${host} is a private address` });
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(TIMEOUT_MS),
        ...(allowPrivate ? {} : { lookup: pinnedLookup as never }),
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
    request.on('error', (error: Error) =>
      resolve({
        ok: false,
        status: null,
        error:
          error.name === 'TimeoutError' || error.name === 'AbortError'
            ? `no answer within ${TIMEOUT_MS / 1000} s`
            : error.message.slice(0, ERROR_TEXT),
      }),
    );
    request.end(body);
  });
}

export class WebhookDeliverer {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly everyMs: number;

  constructor(private readonly deps: DelivererDeps) {
    // Checked every second, or at the retry base when tests make it shorter.
    this.everyMs = Math.max(20, Math.min(1000, deps.config.webhooks.retryBaseMs));
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops claiming; resolves once the deliveries under way are sent and written. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.round;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.round = this.runRound().then(
        (full) => this.schedule(full ? 0 : this.everyMs),
        (error: unknown) => {
          // The database or the storage being down is the outage's to report (once, by the
          // doors): a round every second would repeat it.
          const level = dependencyOutageOf(error) ? 'debug' : 'warn';
          this.deps.log[level]({ err: error }, 'webhook deliveries not sent this round; the next one tries again');
          this.schedule(this.everyMs);
        },
      );
    }, ms);
    this.timer.unref();
  }

  /** One round: claims what is due and sends it. True when there may be more due at once. */
  async runRound(): Promise<boolean> {
    const { sql, clock } = this.deps;
    const now = new Date(clock.now());
    const due = await sql.select<DueDelivery>(DUE, [now, now]);
    const claimed: Array<DueDelivery & { token: string }> = [];
    for (const row of due) {
      if (this.stopped) break;
      const token = randomBytes(12).toString('base64url');
      const at = new Date(clock.now());
      if ((await sql.change(CLAIM, [new Date(at.getTime() + LEASE_MS), token, row.id, at, at])) === 1)
        claimed.push({ ...row, token });
    }
    await Promise.all(claimed.map((row) => this.deliver(row)));
    return due.length === BATCH;
  }

  private async deliver(row: DueDelivery & { token: string }): Promise<void> {
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
      await sql.change(DELIVERED, [new Date(at), outcome.status, row.id, row.token]);
      log.info({ deliveryId: row.id, type: row.type, status: outcome.status }, 'webhook delivered');
      return;
    }
    const attempts = Number(row.attempts) + 1;
    const next = at + backoffMs(config.webhooks.retryBaseMs, attempts);
    const giveUp = next > new Date(row.createdAt).getTime() + RETRY_FOR_MS;
    await sql.change(NOT_DELIVERED, [
      giveUp ? 'failed' : 'pending',
      new Date(next),
      outcome.status,
      outcome.error,
      row.id,
      row.token,
    ]);
    log.info(
      { deliveryId: row.id, type: row.type, status: outcome.status, error: outcome.error, attempts, giveUp },
      giveUp ? 'webhook delivery failed for a day: given up' : 'webhook delivery failed: tried again later',
    );
  }
}
