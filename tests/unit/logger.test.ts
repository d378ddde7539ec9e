// The log's second fence: values under a secret's name never reach a log line, whatever the caller passed.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/utilities/logger';

/** The JSON lines a logger at `info` writes for each call. */
function linesOf(write: (log: ReturnType<typeof createLogger>) => void): Array<Record<string, unknown>> {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  write(createLogger('info', destination));
  return chunks
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('the logger', () => {
  it('when an object carries a password, token or cookie at its top or one level down (or headers.authorization), then the line shows [redacted] and the caller’s object is unchanged', () => {
    const logged = {
      password: 'hunter2',
      user: { name: 'ann', token: 'fs_secret' },
      headers: { cookie: 'sid=1', authorization: 'Bearer fs_x', accept: '*/*' },
      size: 3,
    };
    const [line] = linesOf((log) => log.info(logged, 'something'));
    expect(line).toMatchObject({
      password: '[redacted]',
      user: { name: 'ann', token: '[redacted]' },
      headers: { cookie: '[redacted]', authorization: '[redacted]', accept: '*/*' },
      size: 3,
      msg: 'something',
    });
    expect(JSON.stringify(line)).not.toMatch(/hunter2|fs_secret|sid=1|fs_x/);
    expect(logged.password).toBe('hunter2');
    expect(logged.headers.authorization).toBe('Bearer fs_x');
  });

  it('when an object carries no secret, then it is logged as it is, errors with their message and stack', () => {
    const [line, failure] = linesOf((log) => {
      log.info(
        { method: 'POST', path: '/api/v1/files', status: 201, nested: { authorization: 'not a header here' } },
        'request',
      );
      log.error({ err: new Error('disk gone') }, 'request failed');
    });
    expect(line).toMatchObject({
      method: 'POST',
      path: '/api/v1/files',
      status: 201,
      nested: { authorization: 'not a header here' },
      msg: 'request',
    });
    expect(failure.err).toMatchObject({
      type: 'Error',
      message: 'disk gone',
      stack: expect.stringContaining('disk gone'),
    });
  });
});
