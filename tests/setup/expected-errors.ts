// What a test says about the errors it provokes on purpose. tests/setup/fail-on-unexpected-errors.ts
// fails any other test that prints with console.error: an error nobody expected is a bug, even
// when the response the test checks looks right.

const ALLOWED = Symbol.for('filesharing.tests.consoleErrorsAllowed');
type WithFlag = typeof globalThis & { [ALLOWED]?: boolean };

/**
 * The current test provokes console.error on purpose (a database fault, a storage outage): what
 * it prints is still shown, but does not fail the test. Holds until the test ends.
 */
export function allowConsoleError(): void {
  (globalThis as WithFlag)[ALLOWED] = true;
}

export function consoleErrorAllowed(): boolean {
  return (globalThis as WithFlag)[ALLOWED] === true;
}

export function resetAllowedErrors(): void {
  (globalThis as WithFlag)[ALLOWED] = false;
}
