// The guard on the app's log: a line at error or fatal level during a test fails it, unless the
// test said it expects that. The logger is the service's own (server/utilities/logger.ts), wired to the
// check the way tests/helpers/app.ts wires every app it starts.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/utilities/logger';
import { checkErrorLogs } from '../helpers/error-logs';
import { allowErrorLogs } from './expected-errors';

const log = createLogger('error');
checkErrorLogs(log, { keepWriting: false });

describe('an error logged by the app during a test', () => {
  // `it.fails` passes only when the test fails: here, by the guard's check after it.
  it.fails('when the app logs an error the test did not expect, then the test fails', () => {
    log.error({ err: new Error('the disk went away') }, 'upload failed');
    expect(true).toBe(true);
  });

  it.fails('when a child logger of the app logs a fatal line the test did not expect, then the test fails', () => {
    log.child({ requestId: 'r1' }).fatal('cannot go on');
  });

  it('when the test says it expects error lines, then it passes', () => {
    allowErrorLogs();
    log.error('a storage outage this test provokes on purpose');
  });

  it('when the app logs below error level, then the test passes', () => {
    const chatty = createLogger('info');
    checkErrorLogs(chatty, { keepWriting: false });
    chatty.warn('the database was slow to answer');
    chatty.info('request finished');
  });

  it('when the previous test allowed error lines, then the next one is guarded again', async () => {
    const { errorLogsAllowed } = await import('./expected-errors');
    expect(errorLogsAllowed()).toBe(false);
  });
});
