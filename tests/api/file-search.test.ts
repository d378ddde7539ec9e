// Searching, narrowing by type and ordering the list: GET /api/v1/files?q=&type=&sort=, with
// and without pages (keyset cursors for each order), only ever over the caller's own files.
import { sampleOf } from '../helpers/file-samples';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';

interface Listed {
  id: string;
  userId: string;
  originalName: string;
  mimeType: string;
  size: number;
}

/** alice's files, uploaded one after another (so each is newer than the one before). */
const ALICE_FILES: Array<[name: string, type: string, size: number]> = [
  ['Holiday beach.JPG', 'image/jpeg', 30],
  ['holiday video.mp4', 'video/mp4', 70],
  ['song.mp3', 'audio/mpeg', 20],
  ['report 100%_final.pdf', 'application/pdf', 50],
  ['notes.txt', 'text/plain', 10],
  ['budget.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 40],
  ['archive.zip', 'application/zip', 90],
  ['HOLIDAY map.png', 'image/png', 60],
  ['apple.txt', 'text/plain', 60],
  ['Apple.txt', 'text/plain', 5],
];

async function list(user: TestUser, query: Record<string, string>) {
  const res = await user.fetch(`/api/v1/files?${new URLSearchParams(query)}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { files: Listed[]; nextCursor?: string | null };
}

/** Every page of a list, `limit` at a time, following the cursors. */
async function allPages(user: TestUser, query: Record<string, string>, limit: number) {
  const names: string[] = [];
  let cursor: string | null | undefined;
  let pages = 0;
  do {
    const page = await list(user, { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(page.files.length).toBeLessThanOrEqual(limit);
    names.push(...page.files.map((file) => file.originalName));
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 50);
  return names;
}

describe('GET /api/v1/files with q, type and sort', () => {
  test.beforeAll(async ({ alice, bob }) => {
    for (const [name, type, size] of ALICE_FILES) {
      // Bytes of the type (the type is read from them); a spreadsheet's are a ZIP's.
      const content = type.startsWith('text/')
        ? 'x'.repeat(size)
        : sampleOf(type.includes('sheet') ? 'application/zip' : type, size);
      await alice.upload(content, name, type);
      // Distinct dates, so that newest and oldest are one order.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // bob's files match every search of alice's: none of them may ever show in hers.
    await bob.upload('b', 'holiday bob.jpg', 'image/jpeg');
    await bob.upload('b', 'apple bob.txt', 'text/plain');
  });

  test('when alice searches, then she gets her files whose name contains it in any case, never bob’s', async ({
    alice,
  }) => {
    const { files } = await list(alice, { q: 'hOLiday' });
    expect(files.map((file) => file.originalName)).toEqual([
      'HOLIDAY map.png',
      'holiday video.mp4',
      'Holiday beach.JPG',
    ]);
    expect(files.every((file) => file.userId === alice.id)).toBe(true);
    // % and _ are letters of a name, not wildcards.
    expect((await list(alice, { q: '100%_' })).files.map((file) => file.originalName)).toEqual([
      'report 100%_final.pdf',
    ]);
    expect((await list(alice, { q: '%' })).files).toHaveLength(1);
    expect((await list(alice, { q: 'nothing like it' })).files).toEqual([]);
  });

  test('when alice narrows by type, then each kind holds the files of its MIME types and "other" the rest', async ({
    alice,
  }) => {
    const names = async (type: string) =>
      (await list(alice, { type, sort: 'name' })).files.map((file) => file.originalName);
    expect(await names('images')).toEqual(['Holiday beach.JPG', 'HOLIDAY map.png']);
    expect(await names('video')).toEqual(['holiday video.mp4']);
    expect(await names('audio')).toEqual(['song.mp3']);
    expect(await names('documents')).toEqual([
      'Apple.txt',
      'apple.txt',
      'budget.xlsx',
      'notes.txt',
      'report 100%_final.pdf',
    ]);
    expect(await names('other')).toEqual(['archive.zip']);
  });

  test('when alice sorts, then newest, oldest, name (in any case) and size (largest first) each order her files', async ({
    alice,
  }) => {
    const names = async (sort: string) => (await list(alice, { sort })).files.map((file) => file.originalName);
    const uploaded = ALICE_FILES.map(([name]) => name);
    expect(await names('newest')).toEqual([...uploaded].reverse());
    expect(await names('oldest')).toEqual(uploaded);
    expect(await names('name')).toEqual([
      'Apple.txt',
      'apple.txt',
      'archive.zip',
      'budget.xlsx',
      'Holiday beach.JPG',
      'HOLIDAY map.png',
      'holiday video.mp4',
      'notes.txt',
      'report 100%_final.pdf',
      'song.mp3',
    ]);
    const bySize = (await list(alice, { sort: 'size' })).files;
    expect(bySize.map((file) => file.size)).toEqual([90, 70, 60, 60, 50, 40, 30, 20, 10, 5]);
    // The whole list (no limit) is ordered and narrowed as its pages are.
    expect(await names('')).toEqual([...uploaded].reverse());
  });

  test('when alice pages through a sorted, filtered list, then the pages together are the list, once each, in order', async ({
    alice,
  }) => {
    for (const sort of ['newest', 'oldest', 'name', 'size']) {
      const queries: Array<Record<string, string>> = [
        {},
        { q: 'a' },
        { type: 'documents' },
        { q: 'holiday', type: 'images' },
      ];
      for (const query of queries) {
        const whole = (await list(alice, { ...query, sort })).files.map((file) => file.originalName);
        for (const limit of [1, 2, 3]) {
          expect(await allPages(alice, { ...query, sort }, limit), `${sort} ${JSON.stringify(query)} ${limit}`).toEqual(
            whole,
          );
        }
      }
    }
  });

  test('when a value is bad, then 400 naming it; a cursor of another order is refused', async ({ alice }) => {
    const refused = async (query: string, message: string) => {
      const res = await alice.fetch(`/api/v1/files?${query}`);
      expect(res.status, query).toBe(400);
      expect(await res.json()).toEqual({ error: message });
    };
    await refused('type=pictures', 'type must be one of images, video, audio, documents, code, other');
    await refused('sort=random&limit=2', 'sort must be one of newest, oldest, name, size');
    await refused('q=a&q=b', 'q must be a string');
    const { nextCursor } = await list(alice, { sort: 'name', limit: '2' });
    await refused(`sort=size&limit=2&cursor=${nextCursor}`, 'Invalid cursor');
    await refused(`limit=2&cursor=${nextCursor}`, 'Invalid cursor');
    // A search for control characters alone is no search; NUL never reaches the database.
    expect((await list(alice, { q: '\u0000' })).files).toHaveLength(ALICE_FILES.length);
  });
});
