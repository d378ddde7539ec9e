// A start that cannot go on stops with one clear line naming the variable to fix, and a non-zero
// exit: never a stack trace. The production server as a child process.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';
import { TEST_SECRET, tempDir } from '../helpers/app';
import { freePort, run } from './support';

/** Starts dist/server/index.js with `env`; it must end by itself. */
async function failedStart(env: Record<string, string>) {
  const port = env.PORT ?? String(await freePort());
  return run(process.execPath, [...SERVER_NODE_FLAGS, 'dist/server/index.js'], {
    env: {
      ...SERVER_ENV,
      HOST: '127.0.0.1',
      DATA_DIR: tempDir('fs-start-'),
      SESSION_SECRET: TEST_SECRET,
      ...env,
      PORT: port,
    },
  });
}

/** One line on stderr, starting with `prefix`, naming `variable`, no stack; exit 1. */
function expectOneClearLine(result: { code: number | null; stderr: string; stdout: string }, variable: string) {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toContain(variable);
  expect(result.stderr + result.stdout).not.toMatch(/^\s+at /m);
}

describe('start-up failures', () => {
  const occupied = net.createServer();
  afterAll(() => new Promise<void>((resolve) => occupied.close(() => resolve())));

  it('when PORT is already in use, then the server stops with one line naming PORT', async () => {
    await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
    const port = (occupied.address() as net.AddressInfo).port;
    const result = await failedStart({ PORT: String(port) });
    expectOneClearLine(result, `PORT ${port} is already in use`);
  });

  it('when HOST is not an address of this machine, then the server stops with one line naming HOST', async () => {
    expectOneClearLine(await failedStart({ HOST: '999.1.1.1' }), 'HOST 999.1.1.1 is not an address of this machine');
  });

  it('when TRUST_PROXY is not an address list, then the server stops with one line naming TRUST_PROXY', async () => {
    const result = await failedStart({ TRUST_PROXY: 'garbage!' });
    expectOneClearLine(result, 'TRUST_PROXY must be true, false, a number of hops, or addresses/subnets');
    expect(result.stderr).toContain('garbage!');
  });

  it('when DATABASE_URL names a file that is not a database, then the server stops with one line naming DATABASE_URL, and the file is left as it was', async () => {
    const notADatabase = path.join(tempDir('fs-start-'), 'notes.db');
    fs.writeFileSync(notADatabase, 'these are my notes, not a database\n'.repeat(200));
    const before = fs.readFileSync(notADatabase);
    const result = await failedStart({ DATABASE_URL: `file:${notADatabase}` });
    expectOneClearLine(result, '(DATABASE_URL)');
    expect(result.stderr).toContain(notADatabase);
    expect(fs.readFileSync(notADatabase).equals(before)).toBe(true);
  });
});
