// A test during which something prints with console.error fails, unless it said it expects that
// (allowConsoleError() from tests/setup/expected-errors.ts). React's and Remix's render errors,
// knex's complaints and stray exceptions in the app running inside the test worker go there.
// console.error is wrapped by hand rather than with vi.spyOn, so a test's own spy on it stacks
// on top and its mockRestore() leaves this one in place.
import { afterEach, beforeEach } from 'vitest';
import { consoleErrorAllowed, resetAllowedErrors } from './expected-errors';

const printError = console.error;
let printed: string[] = [];

beforeEach(() => {
  printed = [];
  resetAllowedErrors();
  console.error = function recordedConsoleError(...args: unknown[]) {
    printed.push(args.map((arg) => (arg instanceof Error ? (arg.stack ?? arg.message) : String(arg))).join(' '));
    printError.apply(console, args);
  };
});

afterEach(() => {
  console.error = printError;
  const unexpected = consoleErrorAllowed() ? [] : printed;
  resetAllowedErrors();
  printed = [];
  if (unexpected.length > 0) {
    throw new Error(
      `console.error was called ${unexpected.length} time(s) during this test; if that is expected, call allowConsoleError() in it:\n` +
        unexpected.map((line) => line.slice(0, 1_000)).join('\n---\n'),
    );
  }
});
