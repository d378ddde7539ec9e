// Slows and then refuses repeated failed logins (ADR 0004, ADR 0009) without letting anyone lock a
// user out from elsewhere. The policy and why it holds are in ADR 0009; in short:
// - (username, address) pair: 5 failures in 15 minutes, then that pair is refused (429);
// - address: 30 failures in 15 minutes (many usernames: credential stuffing), then refused;
//   from its 11th failure each one is answered 50 ms later per failure past 10 (up to 1 s);
// - username, from anywhere: never refused; past 20 failures it is "under attack": every
//   attempt on it waits a second before its password is checked, and each address gets only
//   2 failures for it instead of 5.
// Before its password is checked, an attempt takes a *pending* place in its pair and address
// counters, and goes ahead only while failures + pending stay within the limit; otherwise it
// waits for the attempts ahead of it to end. So N parallel guesses never check more than the
// limit of passwords, and parallel correct logins only queue for a moment.
// Wrong two-factor codes are counted per account too, from all addresses (ADR 0058): past 10 in
// 15 minutes the account's code step is refused for 15 minutes. An IPv6 address counts by its
// /64, which one host usually gets whole.
// Counters are rows changed by single-statement upserts (atomic on SQLite and PostgreSQL),
// never inside a transaction, so they cannot tangle with a request's unit of work.
import { setTimeout as sleep } from 'node:timers/promises';
import ipaddr from 'ipaddr.js';
import type { ServiceContext } from '../context';
import { type Counter, LoginAttemptCounters } from '../db/throttle';
import { AppError } from '../utilities/errors';
import { tryAgainIn } from '../utilities/wait-in-words';

const WINDOW_MS = 15 * 60 * 1000;
/** Failed logins for one username from one address before that pair is refused. */
const MAX_FAILURES_PER_PAIR = 5;
/** The same once the username is under attack. */
const MAX_FAILURES_PER_PAIR_UNDER_ATTACK = 2;
/** Failed logins from one address, any usernames, before the address is refused. */
const MAX_FAILURES_PER_ADDRESS = 30;
/** Failures for one username, from all addresses, that put it under attack. */
const USERNAME_UNDER_ATTACK_AFTER = 20;
/** The wait before each password check of a username under attack. */
const UNDER_ATTACK_DELAY_MS = 1000;
/** From this many failures of a pair on, each further failure is answered a little later. */
const SLOW_DOWN_AFTER = 2;
const SLOW_DOWN_STEP_MS = 250;
const MAX_SLOW_DOWN_MS = 1000;
/** The same for an address across usernames (slowed, then 429 with Retry-After), in smaller steps. */
const ADDRESS_SLOW_DOWN_AFTER = 10;
const ADDRESS_SLOW_DOWN_STEP_MS = 50;
/** How long an attempt queues behind others of its pair or address before it is refused. */
const MAX_QUEUE_MS = 10_000;
const QUEUE_POLL_MS = 50;

const TOO_MANY_ATTEMPTS = 'Too many failed login attempts.';

/** A login attempt holding its pending places until it is known to have failed or succeeded. */
export interface LoginAttemptTicket {
  /** The password was wrong (or the user unknown): the pending places become failures. */
  failed(): Promise<void>;
  /** The password was right: the pair's failures are cleared and the places given back. */
  succeeded(): Promise<void>;
  /** Neither (the check itself broke): the places are given back, nothing is counted. */
  abandoned(): Promise<void>;
}

/**
 * Runs a password check under an admitted attempt and settles the ticket by its outcome:
 * right, wrong, or broken (the check threw: nothing counted, the error goes on).
 */
export async function checkedUnderThrottle(
  ticket: LoginAttemptTicket,
  check: () => Promise<boolean>,
): Promise<boolean> {
  let right: boolean;
  try {
    right = await check();
  } catch (error) {
    await ticket.abandoned();
    throw error;
  }
  await (right ? ticket.succeeded() : ticket.failed());
  return right;
}

function countersOf(ctx: Pick<ServiceContext, 'em' | 'clock'>): LoginAttemptCounters {
  return new LoginAttemptCounters(ctx, WINDOW_MS);
}

/**
 * Lets a login attempt through to the password check, or throws TOO_MANY_REQUESTS (with
 * Retry-After) when its pair or address has used up its failures.
 */
export async function admitLoginAttempt(
  ctx: Pick<ServiceContext, 'em' | 'clock' | 'metrics'>,
  username: string,
  address: string | null,
): Promise<LoginAttemptTicket> {
  const counters = countersOf(ctx);
  // Encoded: a guess may hold any character, NUL included, which no database takes in a key.
  const user = encodeURIComponent(username.toLowerCase());
  const from = addressKey(address);
  const keys = { pair: `pair:${from}|${user}`, address: `addr:${from}`, username: `user:${user}` };

  const usernameFailures = (await counters.read(keys.username))?.failures ?? 0;
  const underAttack = usernameFailures >= USERNAME_UNDER_ATTACK_AFTER;
  const pairLimit = underAttack ? MAX_FAILURES_PER_PAIR_UNDER_ATTACK : MAX_FAILURES_PER_PAIR;

  const queuedUntil = ctx.clock.now() + MAX_QUEUE_MS;
  let pair: Counter;
  let byAddress: Counter;
  for (;;) {
    pair = await counters.reserve(keys.pair);
    byAddress = await counters.reserve(keys.address);
    const usedUp =
      pair.failures >= pairLimit ? pair : byAddress.failures >= MAX_FAILURES_PER_ADDRESS ? byAddress : null;
    const full =
      pair.failures + pair.pending > pairLimit || byAddress.failures + byAddress.pending > MAX_FAILURES_PER_ADDRESS;
    if (!usedUp && !full) break;
    await counters.release(keys.pair);
    await counters.release(keys.address);
    if (usedUp || ctx.clock.now() > queuedUntil) ctx.metrics.throttleRefused('login');
    if (usedUp) throw tooManyAttempts(usedUp.windowEndsAt - ctx.clock.now());
    // Attempts ahead of this one are being checked: their outcome decides whether it may go.
    if (ctx.clock.now() > queuedUntil) throw tooManyAttempts(1000);
    await sleep(QUEUE_POLL_MS + Math.random() * QUEUE_POLL_MS);
  }
  if (underAttack) await sleep(UNDER_ATTACK_DELAY_MS);

  const pairFailuresBefore = pair.failures;
  const addressFailuresBefore = byAddress.failures;
  return {
    async failed() {
      ctx.metrics.loginFailed();
      await counters.fail(keys.pair);
      await counters.fail(keys.address);
      await counters.fail(keys.username, { pending: false });
      const byPair = (pairFailuresBefore + 1 - SLOW_DOWN_AFTER) * SLOW_DOWN_STEP_MS;
      const fromAddress = (addressFailuresBefore + 1 - ADDRESS_SLOW_DOWN_AFTER) * ADDRESS_SLOW_DOWN_STEP_MS;
      const slowDown = Math.min(MAX_SLOW_DOWN_MS, Math.max(byPair, fromAddress));
      if (slowDown > 0) await sleep(slowDown);
    },
    async succeeded() {
      // The username's count runs out with its window: a success does not lift "under attack".
      await counters.clear(keys.pair);
      await counters.release(keys.address);
    },
    async abandoned() {
      await counters.release(keys.pair);
      await counters.release(keys.address);
    },
  };
}

/** A refusal with its wait: the Retry-After seconds, and the same wait in its words. */
function tooManyAttempts(retryAfterMs: number, message = TOO_MANY_ATTEMPTS): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError('TOO_MANY_REQUESTS', `${message} ${tryAgainIn(seconds)}`, seconds);
}

/**
 * Who an address counts as: an IPv6 address by its /64 (one host usually gets a whole /64, so
 * counting each address would give it unlimited tries, ADR 0058), an IPv4 one (mapped or not)
 * as it is.
 */
function addressKey(address: string | null): string {
  if (address === null) return 'unknown';
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() !== 'ipv6') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}

/** Wrong share passwords for one file from one address before that pair is refused (ADR 0014). */
const MAX_SHARE_PASSWORD_FAILURES = 5;
const TOO_MANY_SHARE_PASSWORDS = 'Too many wrong passwords for this file.';

/**
 * Lets a share-password attempt through to the check, or throws TOO_MANY_REQUESTS once the
 * (file, address) pair has used up its failures: the login pair rule with the same counters,
 * the same pending places (parallel guesses queue) and the same 15-minute window.
 */
export async function admitSharePasswordAttempt(
  ctx: Pick<ServiceContext, 'em' | 'clock' | 'metrics'>,
  fileId: string,
  address: string | null,
): Promise<LoginAttemptTicket> {
  const counters = countersOf(ctx);
  const key = `share:${fileId}|${addressKey(address)}`;
  await admitUnder(ctx, counters, key, MAX_SHARE_PASSWORD_FAILURES, (waitMs) => {
    ctx.metrics.throttleRefused('share_password');
    return tooManyAttempts(waitMs, TOO_MANY_SHARE_PASSWORDS);
  });
  return {
    failed: () => counters.fail(key).then(() => undefined),
    succeeded: () => counters.clear(key),
    abandoned: () => counters.release(key),
  };
}

/** Wrong two-factor codes for one account, from all addresses, before its code step is refused (ADR 0058). */
const MAX_WRONG_CODES_PER_ACCOUNT = 10;
/** How long the code step then stays refused, from the wrong code that used them up. */
const CODE_LOCK_OUT_MS = 15 * 60 * 1000;
/** The refusal of a locked code step (the page shows it as it is, with the wait). */
const TOO_MANY_CODES = 'Too many wrong two-factor codes were tried for this account.';

/**
 * Lets one guess at an account's two-factor code (a time code or a recovery code) through to
 * the check, or throws TOO_MANY_REQUESTS (with Retry-After, the wait in words) while the
 * account's code step is refused. The guesses count for the account from every address, beside
 * the login's own pair and address counters; the one that uses them up refuses the code step
 * for CODE_LOCK_OUT_MS and calls `lockedOut` with the count (the owner is told, ADR 0058). A
 * right code does not clear the count: the owner signing in does not give a guesser more tries.
 */
export async function admitCodeGuess(
  ctx: Pick<ServiceContext, 'em' | 'clock' | 'metrics'>,
  accountId: string,
  lockedOut: (wrongCodes: number) => Promise<void>,
): Promise<LoginAttemptTicket> {
  const counters = countersOf(ctx);
  const key = `codes:${accountId}`;
  await admitUnder(ctx, counters, key, MAX_WRONG_CODES_PER_ACCOUNT, (waitMs) => {
    ctx.metrics.throttleRefused('login');
    return tooManyAttempts(waitMs, TOO_MANY_CODES);
  });
  return {
    async failed() {
      const counter = await counters.fail(key);
      if (counter.failures !== MAX_WRONG_CODES_PER_ACCOUNT) return;
      await counters.holdUntil(key, ctx.clock.now() + CODE_LOCK_OUT_MS);
      await lockedOut(counter.failures);
    },
    succeeded: () => counters.release(key),
    abandoned: () => counters.release(key),
  };
}

/**
 * Reserves a pending place in one counter and returns once the attempt may go ahead; throws
 * `refusal(wait)` once its failures are used up (wait: until its window ends), or when the
 * attempts ahead of it keep it queued too long. Parallel attempts queue rather than all pass.
 */
async function admitUnder(
  ctx: Pick<ServiceContext, 'clock'>,
  counters: LoginAttemptCounters,
  key: string,
  limit: number,
  refusal: (waitMs: number) => AppError,
): Promise<void> {
  const queuedUntil = ctx.clock.now() + MAX_QUEUE_MS;
  for (;;) {
    const counter = await counters.reserve(key);
    if (counter.failures < limit && counter.failures + counter.pending <= limit) return;
    await counters.release(key);
    if (counter.failures >= limit) throw refusal(counter.windowEndsAt - ctx.clock.now());
    if (ctx.clock.now() > queuedUntil) throw refusal(1000);
    await sleep(QUEUE_POLL_MS + Math.random() * QUEUE_POLL_MS);
  }
}

/**
 * Records that the sign-in step `stepId` (the login page's code step, ADR 0058) has finished;
 * false when it had already: its cookie opens one session at most. The mark is a counter row,
 * shared by every instance, kept for the counters' window (15 minutes, longer than the step
 * cookie's 5).
 */
export async function markSignInStepFinished(
  ctx: Pick<ServiceContext, 'em' | 'clock'>,
  stepId: string,
): Promise<boolean> {
  const counter = await countersOf(ctx).add(finishedStepKey(stepId));
  return counter.failures === 1;
}

/** Whether the sign-in step `stepId` has finished already (markSignInStepFinished). */
export async function signInStepFinished(ctx: Pick<ServiceContext, 'em' | 'clock'>, stepId: string): Promise<boolean> {
  return ((await countersOf(ctx).read(finishedStepKey(stepId)))?.failures ?? 0) > 0;
}

function finishedStepKey(stepId: string): string {
  return `finished-step:${encodeURIComponent(stepId)}`;
}

/** Files guests may send from one address, to all file requests, in the window (ADR 0048). */
const MAX_GUEST_UPLOADS_PER_ADDRESS = 200;
const TOO_MANY_GUEST_UPLOADS = 'Too many files sent from your address.';

/**
 * Counts one file a guest sends to a file request from `address`, or throws TOO_MANY_REQUESTS
 * (with Retry-After) once the address has sent its share in the window: the login counters'
 * rows and window, each upload counted whether it is then accepted or not.
 */
export async function admitGuestUpload(
  ctx: Pick<ServiceContext, 'em' | 'clock'>,
  address: string | null,
): Promise<void> {
  const counter = await countersOf(ctx).add(`guest-upload:${addressKey(address)}`);
  if (counter.failures > MAX_GUEST_UPLOADS_PER_ADDRESS)
    throw tooManyAttempts(counter.windowEndsAt - ctx.clock.now(), TOO_MANY_GUEST_UPLOADS);
}

/** Accounts made on /signup from one address in the window before it is refused (ADR 0086). */
const MAX_SIGN_UPS_PER_ADDRESS = 5;
const TOO_MANY_SIGN_UPS = 'Too many accounts were made from this address.';

/**
 * Lets a sign-up through, or throws TOO_MANY_REQUESTS (with Retry-After) once its address has
 * made MAX_SIGN_UPS_PER_ADDRESS attempts in the window: each counts, made or refused, so that
 * nobody fills the site with accounts or tries usernames for free.
 */
export async function admitSignUp(ctx: Pick<ServiceContext, 'em' | 'clock' | 'metrics' | 'clientAddress'>) {
  const counters = countersOf(ctx);
  const key = `signup:${addressKey(ctx.clientAddress)}`;
  await admitUnder(ctx, counters, key, MAX_SIGN_UPS_PER_ADDRESS, (waitMs) => {
    ctx.metrics.throttleRefused('login');
    return tooManyAttempts(waitMs, TOO_MANY_SIGN_UPS);
  });
  await counters.fail(key);
}
