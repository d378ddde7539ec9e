// The time, as the services read it: one dependency, so that the moments a service acts on
// (session ends, throttle windows, sweep ages) come from one place that a test or a tool can set.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
