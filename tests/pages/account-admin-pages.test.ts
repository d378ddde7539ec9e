// What disabled accounts and storage quotas (ADR 0018) show on the pages, without JavaScript: the files page's storage use (a bar
// against the quota when there is one, in the quota's units: ADR 0065), the upload page's limit, and the login page's answer to a
// disabled account.
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

/** The user's own quota, as `npm run users -- quota` sets it. */
async function setQuota(app: TestApp, name: string, bytes: number): Promise<void> {
  await app.rows('update users set has_own_quota = ?, quota_bytes = ? where username = ?', [true, bytes, name]);
}

describe('a quota in the units it was set in', () => {
  it('when the user stores more than a lowered quota, then the files page says by how much, and never that 578% is 100%', async () => {
    const cookie = await userWithFile(limited, 'over', 578 * 1024);
    await setQuota(limited, 'over', 100 * 1024);
    const text = visibleText(await (await getPage(limited, '/files', cookie)).text());
    expect(text).toContain('578 KiB of 100 KiB used by 1 file: 478 KiB over your quota; delete files to upload again');
    expect(text).not.toContain('100%');
  });

  it('when the user has used part of a quota set as 1 MB, then the files page says both in MB, not KiB', async () => {
    const cookie = await userWithFile(limited, 'decimal', 250_000);
    await setQuota(limited, 'decimal', 1_000_000);
    const text = visibleText(await (await getPage(limited, '/files', cookie)).text());
    expect(text).toContain('250 kB of 1 MB used (25%) by 1 file');
  });
});

describe('the upload page’s limit', () => {
  it('when the quota leaves less room than MAX_UPLOAD_BYTES, then the page names that room as the limit, in the quota’s units', async () => {
    const cookie = await userWithFile(limited, 'roomy-binary', 77 * 1024);
    await setQuota(limited, 'roomy-binary', 100 * 1024);
    const text = visibleText(await (await getPage(limited, '/upload', cookie)).text());
    expect(text).toContain('Up to 23 KiB (the room left in your 100 KiB).');
    expect(text).not.toContain('Up to 1 GiB');

    const decimal = await userWithFile(limited, 'roomy-decimal', 77_000);
    await setQuota(limited, 'roomy-decimal', 100_000);
    const decimalText = visibleText(await (await getPage(limited, '/upload', decimal)).text());
    expect(decimalText).toContain('Up to 23 kB (the room left in your 100 kB).');
  });

  it('when the quota is used up or passed, then the upload page says there is no room and what to do', async () => {
    const cookie = await userWithFile(limited, 'no-room', 578 * 1024);
    await setQuota(limited, 'no-room', 100 * 1024);
    const text = visibleText(await (await getPage(limited, '/upload', cookie)).text());
    expect(text).toContain('No room left in your 100 KiB: delete files to upload again.');
    expect(text).not.toContain('Up to');
  });

  describe('with MAX_UPLOAD_BYTES written with a decimal unit', () => {
    let decimalLimit: TestApp;
    beforeAll(async () => {
      decimalLimit = await startApp({ MAX_UPLOAD_BYTES: '2GB' });
    });
    afterAll(() => decimalLimit?.close());

    it('when MAX_UPLOAD_BYTES is written as 2GB and no quota applies, then the upload and home pages say "2 GB"', async () => {
      await decimalLimit.createUser('large');
      const cookie = await decimalLimit.login('large');
      expect(decimalLimit.config.maxUploadBytes).toBe(2_000_000_000);
      expect(visibleText(await (await getPage(decimalLimit, '/upload', cookie)).text())).toContain('Up to 2 GB.');
      expect(visibleText(await (await getPage(decimalLimit, '/', cookie)).text())).toContain(
        'Upload a file of up to 2 GB and get a link',
      );
    });
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
