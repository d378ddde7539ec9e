// The guard itself: console.error during a test fails it, unless the test said it expects that.
import { describe, expect, it } from 'vitest';
import { allowConsoleError } from './expected-errors';

describe('console.error during a test', () => {
  // `it.fails` passes only when the test fails: here, by the guard's check after it.
  it.fails('when a test calls console.error without saying it expects that, then it fails', () => {
    console.error('an error nobody expected');
    expect(true).toBe(true);
  });

  it('when a test says it expects console.error, then it passes', () => {
    allowConsoleError();
    console.error('an error this test provokes on purpose');
  });

  it('when the previous test allowed console.error, then the next one is guarded again', async () => {
    const { consoleErrorAllowed } = await import('./expected-errors');
    expect(consoleErrorAllowed()).toBe(false);
  });
});
