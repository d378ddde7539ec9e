// A test during which something prints with console.error fails, unless it said it expects that
// (allowConsoleError() from tests/setup/expected-errors.ts). React's and Remix's render errors,
// knex's complaints and stray exceptions in the app running inside the test worker go there.
// console.error is wrapped by hand rather than with vi.spyOn, so a test's own spy on it stacks
// on top and its mockRestore() leaves this one in place.
// Likewise a test during which an app started in this process (tests/helpers/app.ts) logs at
// error or fatal level fails, unless it called allowErrorLogs(): such a line is an answer the
// service could not give, or work it dropped.
import { afterEach, beforeEach } from 'vitest';
import { consoleErrorAllowed, errorLogsAllowed, resetAllowedErrors, takeErrorLogs } from './expected-errors';

const printError = console.error;
let printed: string[] = [];

beforeEach(() => {
  printed = [];
  // Lines logged between tests (an app closing, a request a previous test left behind) belong to no test.
  takeErrorLogs();
  resetAllowedErrors();
  console.error = function recordedConsoleError(...args: unknown[]) {
    printed.push(args.map((arg) => (arg instanceof Error ? (arg.stack ?? arg.message) : String(arg))).join(' '));
    printError.apply(console, args);
  };
});

afterEach(() => {
  console.error = printError;
  const unexpected = consoleErrorAllowed() ? [] : printed;
  const logged = takeErrorLogs();
  const unexpectedLogs = errorLogsAllowed() ? [] : logged;
  resetAllowedErrors();
  printed = [];
  const problems: string[] = [];
  if (unexpected.length > 0)
    problems.push(
      `console.error was called ${unexpected.length} time(s) during this test; if that is expected, call allowConsoleError() in it:\n` +
        unexpected.map((line) => line.slice(0, 1_000)).join('\n---\n'),
    );
  if (unexpectedLogs.length > 0)
    problems.push(
      `the app logged ${unexpectedLogs.length} line(s) at error level or above during this test; if that is expected, call allowErrorLogs() in it:\n` +
        unexpectedLogs.map((line) => line.slice(0, 1_000)).join('\n---\n'),
    );
  if (problems.length > 0) throw new Error(problems.join('\n\n'));
});
