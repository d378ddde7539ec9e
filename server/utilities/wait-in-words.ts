// How long a refusal asks a person to wait, in words ("Try again in 4 minutes."), from the seconds
// its Retry-After header gives: a throttle's 429 (ADR 0009) or an outage's 503 (ADR 0030) says the
// same wait to a person as to a client.

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/**
 * "Try again in 30 seconds.", "Try again in 4 minutes.", "Try again in 2 hours.": rounded up, so
 * that trying again when it says never meets the same refusal.
 */
export function tryAgainIn(seconds: number): string {
  const wait = Math.max(1, Math.ceil(seconds));
  if (wait < 60) return `Try again in ${plural(wait, 'second')}.`;
  if (wait < 3600) return `Try again in ${plural(Math.ceil(wait / 60), 'minute')}.`;
  return `Try again in ${plural(Math.ceil(wait / 3600), 'hour')}.`;
}
