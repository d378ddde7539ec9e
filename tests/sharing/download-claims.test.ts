// Which answers count a download (ADR 0056): every answer that sends content, wherever its range
// starts, unless it continues a download counted before for the same visitor, who holds its
// claim (a cookie scoped to the link's content address).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { TestClock } from '../helpers/app';
import { poll } from '../helpers/multipart';
import { cookieAttributes } from '../helpers/pages-fixtures';
import { request, startSharingApp, test, type RawResponse, type SharingApp } from './support';

const clock = new TestClock();
test.override('appOptions', { clock });

const run = promisify(execFile);
const HOUR = 3600_000;

async function downloadsOf(app: SharingApp, table: 'files' | 'collections', id: string): Promise<number> {
  const [row] = await app.rows(`select downloads from ${table} where id = ?`, [id]);
  return Number(row.downloads);
}

/** The claim cookie an answer set, ready for a Cookie header; null when it set none. */
function claimFrom(res: RawResponse, linkId: string): string | null {
  const setCookie = (res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`claim_${linkId}=`));
  return setCookie ? setCookie.split(';')[0] : null;
}

/**
 * A line to `target` that drops once `limit` bytes of the answer have passed, as a dropped
 * connection does: the client keeps what came and sees the rest missing.
 */
async function droppingLine(target: string, limit: number): Promise<{ url: string; close(): void }> {
  const { hostname, port } = new URL(target);
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    client.pipe(upstream);
    let passed = 0;
    upstream.on('data', (chunk: Buffer) => {
      if (passed >= limit) return;
      const room = limit - passed;
      passed += chunk.length;
      if (passed < limit) return void client.write(chunk);
      client.end(chunk.subarray(0, room));
      upstream.destroy();
    });
    upstream.on('end', () => client.end());
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

/** A collection of the sharer's made of two fresh files, with `settings`; its id. */
async function collectionOf(app: SharingApp, settings: Record<string, unknown> = {}): Promise<string> {
  const a = await app.upload(randomBytes(40_000), 'a.bin');
  const b = await app.upload('the second file\n', 'b.txt', 'text/plain');
  const res = await fetch(`${app.url}/api/v1/collections`, {
    method: 'POST',
    headers: { cookie: app.cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Pair', files: [{ id: a.file.id }, { id: b.file.id }], ...settings }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { collection: { id: string } }).collection.id;
}

describe('ranges of a limited link', () => {
  test('when ten Range: bytes=1- requests hit a raw link limited to one download, then one gets the bytes, the other nine 410, and the row counts 1', async ({
    app,
  }) => {
    const content = randomBytes(100_000);
    const { file, rawUrl } = await app.upload(content, 'once.bin', 'application/octet-stream', { maxDownloads: '1' });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => request(rawUrl, { headers: { range: 'bytes=1-' } })),
    );
    const served = answers.filter((res) => res.status === 206);
    expect(served).toHaveLength(1);
    expect(served[0].body.equals(content.subarray(1))).toBe(true);
    expect(answers.filter((res) => res.status === 410)).toHaveLength(9);
    expect(await downloadsOf(app, 'files', file.id)).toBe(1);
    // Nobody else gets the first byte either.
    expect((await request(rawUrl, { headers: { range: 'bytes=0-0' } })).status).toBe(410);
  });

  test('when ten Range: bytes=1- requests hit a collection archive limited to one download, then one gets the bytes, the other nine 410, and the row counts 1', async ({
    app,
  }) => {
    const id = await collectionOf(app, { maxDownloads: 1 });
    const whole = await request(`${app.url}/c/${id}/archive`, { headers: { cookie: app.cookie } });
    expect(whole.status).toBe(200);
    const archiveUrl = `${app.url}/c/${id}/archive`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => request(archiveUrl, { headers: { range: 'bytes=1-' } })),
    );
    const served = answers.filter((res) => res.status === 206);
    expect(served).toHaveLength(1);
    expect(served[0].body.equals(whole.body.subarray(1))).toBe(true);
    expect(answers.filter((res) => res.status === 410)).toHaveLength(9);
    expect(await downloadsOf(app, 'collections', id)).toBe(1);
  });

  test('when a link limited to one download is counted, then its answer sets an HttpOnly, SameSite=Lax claim scoped to the raw link for six hours; the owner and HEAD get none and count nothing', async ({
    app,
  }) => {
    const { file, rawUrl } = await app.upload('claimed bytes', 'claimed.txt', 'text/plain', { maxDownloads: '1' });
    const owners = await request(rawUrl, { headers: { cookie: app.cookie, range: 'bytes=2-' } });
    expect(owners.status).toBe(206);
    expect(claimFrom(owners, file.id)).toBeNull();
    for (const range of ['bytes=0-', 'bytes=3-']) {
      const head = await request(rawUrl, { method: 'HEAD', headers: { range } });
      expect([head.status, head.body.length]).toEqual([206, 0]);
      expect(claimFrom(head, file.id)).toBeNull();
    }
    expect(await downloadsOf(app, 'files', file.id)).toBe(0);
    const counted = await request(rawUrl, { headers: { range: 'bytes=0-6' } });
    expect(counted.status).toBe(206);
    const setCookie = (counted.headers['set-cookie'] ?? []).find((c) => c.startsWith(`claim_${file.id}=`)) ?? '';
    expect(cookieAttributes(setCookie)).toEqual({
      'max-age': '21600',
      path: `/f/${file.id}/raw`,
      httponly: true,
      samesite: 'Lax',
    });
    expect(counted.headers['cache-control']).toBe('private, no-store');
  });

  test('when BASE_URL is https, then the claim cookie is Secure', async () => {
    const secure = await startSharingApp({ BASE_URL: 'https://files.example' });
    try {
      const { file } = await secure.upload('over https', 'https.txt', 'text/plain', { maxDownloads: '2' });
      const res = await request(`${secure.url}/f/${file.id}/raw`);
      const setCookie = (res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`claim_${file.id}=`)) ?? '';
      expect(cookieAttributes(setCookie)).toMatchObject({ secure: true, path: `/f/${file.id}/raw` });
    } finally {
      await secure.close();
    }
  });
});

describe('resuming a counted download', () => {
  test('when the one visitor of a link limited to one download is cut off and resumes with curl -C -, then the file is whole and downloads stays 1', async ({
    app,
  }) => {
    const content = randomBytes(3 * 1024 * 1024);
    const { file, rawUrl } = await app.upload(content, 'large.bin', 'application/octet-stream', { maxDownloads: '1' });
    const dir = await mkdtemp(join(tmpdir(), 'claim-'));
    const jar = join(dir, 'jar');
    const out = join(dir, 'large.bin');

    // Over a line that drops after a megabyte.
    const line = await droppingLine(app.url, 1024 * 1024);
    const cutUrl = `${line.url}/f/${file.id}/raw`;
    const cut = await run('curl', ['-sS', '-c', jar, '-b', jar, '-o', out, cutUrl]).then(
      () => 'finished',
      (error: { code?: number }) => `exit ${error.code}`,
    );
    line.close();
    expect(cut).toBe('exit 18'); // curl's "partial file"
    const partial = (await stat(out)).size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(content.length);
    expect(await downloadsOf(app, 'files', file.id)).toBe(1);

    const resumed = await run('curl', [
      '-sS',
      '-C',
      '-',
      '-b',
      jar,
      '-c',
      jar,
      '-o',
      out,
      '-w',
      '%{http_code}',
      rawUrl,
    ]);
    expect(resumed.stdout).toBe('206');
    expect((await readFile(out)).equals(content)).toBe(true);
    expect(await downloadsOf(app, 'files', file.id)).toBe(1);
  });

  test('when a second visitor without the claim asks a range of that used-up link, then it is refused (410) and counts nothing', async ({
    app,
  }) => {
    const { file, rawUrl } = await app.upload('0123456789', 'digits.txt', 'text/plain', { maxDownloads: '1' });
    const first = await request(rawUrl, { headers: { range: 'bytes=0-4' } });
    expect(first.body.toString()).toBe('01234');
    const claim = claimFrom(first, file.id) as string;

    const attempts: Array<Record<string, string>> = [
      { range: 'bytes=5-' },
      { range: 'bytes=0-' },
      { range: 'bytes=5-', cookie: `claim_${file.id}=forged.token.value` },
    ];
    for (const headers of attempts) {
      const refused = await request(rawUrl, { headers });
      expect(refused.status, JSON.stringify(headers)).toBe(410);
      expect(refused.body.toString()).toContain('This link has reached its download limit.');
    }
    // The claimant's range goes on; a whole new download (no Range) is a new one, and none is left.
    const resumed = await request(rawUrl, { headers: { range: 'bytes=5-', cookie: claim } });
    expect(resumed.status).toBe(206);
    expect(resumed.body.toString()).toBe('56789');
    expect((await request(rawUrl, { headers: { cookie: claim } })).status).toBe(410);
    expect(await downloadsOf(app, 'files', file.id)).toBe(1);
  });

  test('when a claim is for another link, or six hours have passed, then it continues nothing', async ({ app }) => {
    const a = await app.upload('file a content', 'a.txt', 'text/plain', { maxDownloads: '1' });
    const b = await app.upload('file b content', 'b.txt', 'text/plain', { maxDownloads: '1' });
    const claimA = claimFrom(await request(a.rawUrl), a.file.id) as string;
    expect((await request(b.rawUrl)).status).toBe(200);
    // A's claim under B's name is not B's claim.
    const borrowed = `claim_${b.file.id}=${claimA.split('=')[1]}`;
    expect((await request(b.rawUrl, { headers: { range: 'bytes=5-', cookie: borrowed } })).status).toBe(410);

    expect((await request(a.rawUrl, { headers: { range: 'bytes=5-', cookie: claimA } })).status).toBe(206);
    clock.advance(6 * HOUR + 60_000);
    expect((await request(a.rawUrl, { headers: { range: 'bytes=5-', cookie: claimA } })).status).toBe(410);
  });

  test('when a collection archive limited to one download is resumed with its claim, then it joins into the whole archive; once the collection changes, the claim continues nothing', async ({
    app,
  }) => {
    const id = await collectionOf(app, { maxDownloads: 1 });
    const archiveUrl = `${app.url}/c/${id}/archive`;
    const whole = (await request(archiveUrl, { headers: { cookie: app.cookie } })).body;
    const first = await request(archiveUrl, { headers: { range: 'bytes=0-999' } });
    expect(first.status).toBe(206);
    const claim = claimFrom(first, id) as string;
    expect(cookieAttributes(first.headers['set-cookie']?.[0] ?? '')).toMatchObject({ path: `/c/${id}/archive` });
    const rest = await request(archiveUrl, { headers: { range: 'bytes=1000-', cookie: claim } });
    expect(rest.status).toBe(206);
    expect(Buffer.concat([first.body, rest.body]).equals(whole)).toBe(true);
    expect((await request(archiveUrl, { headers: { range: 'bytes=1000-' } })).status).toBe(410);
    expect(await downloadsOf(app, 'collections', id)).toBe(1);

    // Another file in it: another archive, another ETag, another download (none is left).
    const { file } = await app.upload('added later', 'later.txt', 'text/plain');
    await fetch(`${app.url}/api/v1/collections/${id}/files`, {
      method: 'POST',
      headers: { cookie: app.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ files: [{ id: file.id }] }),
    });
    expect((await request(archiveUrl, { headers: { range: 'bytes=1000-', cookie: claim } })).status).toBe(410);
  });
});

describe('ranges of a link without a limit', () => {
  test('when a visitor without a claim asks a range further in, then one download is counted, which the owner sees within seconds; the claim it leaves continues without counting, and a whole download leaves none', async ({
    app,
  }) => {
    const { file, rawUrl } = await app.upload('unlimited content', 'free.txt', 'text/plain');
    // Whole: no cookie, cacheable as before (an image host's answer).
    const whole = await request(rawUrl);
    expect(whole.status).toBe(200);
    expect(whole.headers['set-cookie']).toBeUndefined();
    expect(whole.headers['cache-control']).toBe('no-cache');
    const first = await request(rawUrl, { headers: { range: 'bytes=3-' } });
    expect(first.status).toBe(206);
    expect(first.body.toString()).toBe('imited content');
    const claim = claimFrom(first, file.id) as string;
    expect(claim).not.toBeNull();
    // A visitor's own claim: not for a shared cache to keep.
    expect(first.headers['cache-control']).toBe('private, no-store');
    expect((await request(rawUrl, { headers: { range: 'bytes=9-', cookie: claim } })).status).toBe(206);

    const ownersCount = async () => {
      const res = await fetch(`${app.url}/api/v1/files`, { headers: { cookie: app.cookie } });
      const { files } = (await res.json()) as { files: Array<{ id: string; downloads: number }> };
      return files.find((listed) => listed.id === file.id)?.downloads;
    };
    // The whole download and the range: two.
    expect(await poll(async () => (await ownersCount()) === 2, 5_000)).toBe(true);
    // Written once: another round of the tally adds nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await ownersCount()).toBe(2);
  });
});
