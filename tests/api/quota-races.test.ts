// Parallel uploads against a quota (ADR 0018): an upload holds only the bytes it has received
// (while room is tight), so uploads that together fit are all accepted, whichever order their
// bytes arrive in; and when they do not fit, exactly one is refused, at the byte that passes the
// quota, and the others complete. Multipart and resumable uploads side by side (a resumable one
// holds its declared length from its creation, ADR 0019). Runs on both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { OFFSET_OCTET_STREAM, TUS, uploadMetadata } from '../helpers/tus';

const ROOM = 2_000_000;
let app: TestApp;

beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

let users = 0;
/** A user whose quota is ROOM bytes, and their cookie. */
async function userWithRoom(): Promise<{ name: string; cookie: string }> {
  const name = `racer${++users}`;
  await app.createUser(name);
  await app.rows('update users set has_own_quota = ?, quota_bytes = ? where username = ?', [true, ROOM, name]);
  return { name, cookie: await app.login(name) };
}

async function multipart(cookie: string, bytes: number): Promise<number> {
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm(new Uint8Array(bytes).fill(3), 'part.bin'),
  });
  await res.arrayBuffer();
  return res.status;
}

/** A resumable upload: created (holding its length), then sent in one PATCH; the status that decided it. */
async function resumable(cookie: string, bytes: number): Promise<number> {
  const created = await fetch(`${app.url}/api/v1/uploads`, {
    method: 'POST',
    headers: {
      ...TUS,
      cookie,
      'Upload-Length': String(bytes),
      'Upload-Metadata': uploadMetadata({ filename: 'tus.bin' }),
    },
  });
  await created.arrayBuffer();
  if (created.status !== 201) return created.status;
  const location = `${app.url}${created.headers.get('location')!}`;
  const sent = await fetch(location, {
    method: 'PATCH',
    headers: { ...TUS, cookie, 'Upload-Offset': '0', 'Content-Type': OFFSET_OCTET_STREAM },
    body: new Uint8Array(bytes).fill(4),
  });
  await sent.arrayBuffer();
  return sent.status === 200 ? 201 : sent.status;
}

async function storedBytesOf(name: string): Promise<number> {
  const rows = await app.rows('select f.size from files f join users u on u.id = f.user_id where u.username = ?', [
    name,
  ]);
  return rows.reduce((sum, row) => sum + Number(row.size), 0);
}

describe('parallel uploads under a quota', () => {
  it.each([
    { kind: 'three multipart uploads', sizes: [600_000, 700_000, 700_000], tus: [] as number[] },
    { kind: 'multipart and resumable uploads', sizes: [500_000, 500_000], tus: [500_000, 500_000] },
  ])(
    'when $kind sent at once sum exactly to the room left, then all of them are stored',
    { timeout: 60_000 },
    async ({ sizes, tus }) => {
      const { name, cookie } = await userWithRoom();
      const statuses = await Promise.all([
        ...sizes.map((bytes) => multipart(cookie, bytes)),
        ...tus.map((bytes) => resumable(cookie, bytes)),
      ]);
      expect(statuses).toEqual(statuses.map(() => 201));
      expect(await storedBytesOf(name)).toBe(ROOM);
      expect(await app.rows('select * from upload_reservations')).toEqual([]);
      expect(await app.incompleteFiles()).toEqual([]);
    },
  );

  it.each([
    { kind: 'three multipart uploads', sizes: [600_000, 700_000, 700_001], tus: [] as number[] },
    { kind: 'multipart and resumable uploads', sizes: [500_000, 500_001], tus: [500_000, 500_000] },
  ])(
    'when $kind sent at once pass the room left by one byte, then exactly one is refused and the others are stored',
    { timeout: 60_000 },
    async ({ sizes, tus }) => {
      const { name, cookie } = await userWithRoom();
      const statuses = await Promise.all([
        ...sizes.map((bytes) => multipart(cookie, bytes)),
        ...tus.map((bytes) => resumable(cookie, bytes)),
      ]);
      expect(statuses.filter((status) => status === 413)).toHaveLength(1);
      expect(statuses.filter((status) => status === 201)).toHaveLength(statuses.length - 1);
      const stored = await storedBytesOf(name);
      expect(stored).toBeLessThanOrEqual(ROOM);
      expect(stored).toBeGreaterThanOrEqual(ROOM + 1 - 700_001);
      expect(await app.rows('select * from upload_reservations')).toEqual([]);
      expect(await app.incompleteFiles()).toEqual([]);
    },
  );
});
