// bcrypt reads only the first 72 bytes of a password: a longer one must be refused at
// registration, never silently truncated. The CLI suite covers the rest.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app';
import { registerWithCli, requireDist, serverEnv } from '../helpers/hardening-process';

const dataDir = tempDir('fs-hardening-password-');
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('password length at registration', () => {
  it('when the password is 73 bytes of UTF-8 (72 characters plus one multi-byte), then the CLI refuses it with one line and creates no user', {
    timeout: 60_000,
  }, async () => {
    requireDist();
    const env = await serverEnv(dataDir);
    const password = `${'a'.repeat(71)}é`; // 72 characters, 73 bytes
    expect(Buffer.byteLength(password)).toBe(73);
    const refused = await registerWithCli(env, 'longpw', password);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/72 bytes/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);

    // The same name with exactly 72 bytes works: the refusal created no user (the name is
    // still free) and was about the length alone.
    const accepted = await registerWithCli(env, 'longpw', 'a'.repeat(72));
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/^Created user longpw \(id [\w-]+\)\n$/);
  });
});
