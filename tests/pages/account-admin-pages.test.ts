// What disabled accounts and storage quotas (ADR 0018) show on the pages, without JavaScript: the files page's storage use (a bar
// against the quota when there is one) and the login page's answer to a disabled account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, fileForm, startApp, type TestApp } from '../helpers/app';
import { getPage, postForm, visibleText } from '../helpers/pages-fixtures';

let limited: TestApp;
let unlimited: TestApp;

beforeAll(async () => {
  [limited, unlimited] = await Promise.all([startApp({ DEFAULT_QUOTA_BYTES: '1048576' }), startApp()]);
});
afterAll(async () => {
  await limited?.close();
  await unlimited?.close();
});

async function userWithFile(app: TestApp, name: string, bytes: number): Promise<string> {
  await app.createUser(name);
  const cookie = await app.login(name);
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm(new Uint8Array(bytes), 'a.bin'),
  });
  expect(res.status).toBe(201);
  return cookie;
}

describe('storage use on the files page', () => {
  it('when the user has a quota, then the page shows the bytes used against it with a bar', async () => {
    const cookie = await userWithFile(limited, 'metered', 262_144);
    const html = await (await getPage(limited, '/files', cookie)).text();
    expect(visibleText(html)).toContain('256 KiB of 1 MiB used (25%) by 1 file');
    expect(html).toMatch(/<progress[^>]*value="262144"[^>]*max="1048576"/);
  });

  it('when no quota applies, then the page shows the bytes used and says there is no quota, without a bar', async () => {
    const cookie = await userWithFile(unlimited, 'free', 2048);
    const html = await (await getPage(unlimited, '/files', cookie)).text();
    expect(visibleText(html)).toContain('2 KiB used by 1 file · no storage quota');
    expect(html).not.toContain('<progress');
  });
});

describe('a disabled account on the login page', () => {
  it('when a disabled user logs in with the right password, then the form says the account is disabled, with status 403 and no cookie', async () => {
    await limited.createUser('benched');
    const disabledAt = limited.config.database.dialect === 'sqlite' ? Date.now() : new Date();
    await limited.rows('update users set disabled_at = ? where username = ?', [disabledAt, 'benched']);
    const res = await postForm(limited, '/login', { username: 'benched', password: DEFAULT_PASSWORD });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().filter((c) => c.startsWith('token='))).toEqual([]);
    expect(visibleText(await res.text())).toContain('This account has been disabled. Ask an administrator.');
  });
});
