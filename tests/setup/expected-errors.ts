// What a test says about the errors it provokes on purpose. tests/setup/fail-on-unexpected-errors.ts
// fails any other test that prints with console.error, or during which an app it started in
// this process (tests/helpers/app.ts) logs at error or fatal level: an error nobody expected
// is a bug, even when the response the test checks looks right.

const ALLOWED = Symbol.for('filesharing.tests.consoleErrorsAllowed');
const LOGS_ALLOWED = Symbol.for('filesharing.tests.errorLogsAllowed');
const ERROR_LOGS = Symbol.for('filesharing.tests.errorLogs');
type WithFlag = typeof globalThis & { [ALLOWED]?: boolean; [LOGS_ALLOWED]?: boolean; [ERROR_LOGS]?: string[] };
const shared = globalThis as WithFlag;

/**
 * The current test provokes console.error on purpose (a database fault, a storage outage): what
 * it prints is still shown, but does not fail the test. Holds until the test ends.
 */
export function allowConsoleError(): void {
  shared[ALLOWED] = true;
}

export function consoleErrorAllowed(): boolean {
  return shared[ALLOWED] === true;
}

/**
 * The current test makes the app log at error or fatal level on purpose (a storage outage, a
 * database that went away): those lines do not fail it. Holds until the test ends.
 */
export function allowErrorLogs(): void {
  shared[LOGS_ALLOWED] = true;
}

export function errorLogsAllowed(): boolean {
  return shared[LOGS_ALLOWED] === true;
}

/** Keeps a line an in-process app logged at error or fatal level, for the check after the test. */
export function recordErrorLog(line: string): void {
  shared[ERROR_LOGS] = [...(shared[ERROR_LOGS] ?? []), line];
}

/** The error and fatal lines logged since the last call, in order. */
export function takeErrorLogs(): string[] {
  const lines = shared[ERROR_LOGS] ?? [];
  shared[ERROR_LOGS] = [];
  return lines;
}

export function resetAllowedErrors(): void {
  shared[ALLOWED] = false;
  shared[LOGS_ALLOWED] = false;
}
