// A protected collection's password opens its files too (ADR 0067): the cookie its page's form
// sets opens each file's page, raw link and thumbnail in that browser, while the file is in the
// collection and the collection's link is live, and nothing else.
import { SignJWT } from 'jose';
import { describe, expect } from 'vitest';
import { TestClock } from '../helpers/app';
import { poll } from '../helpers/multipart';
import { cookieAttributes, makePng, postForm } from '../helpers/pages-fixtures';
import { request, type SharingApp, test, type Uploaded } from './support';

const HOUR = 3600_000;
const clock = new TestClock();
test.override('appOptions', { clock });

const COLLECTION_PASSWORD = 'open sesame';
const FILE_PASSWORD = 'the file alone';

async function makeCollection(app: SharingApp, body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await fetch(`${app.url}/api/v1/collections`, {
    method: 'POST',
    headers: { cookie: app.cookie, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`collection not made: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { collection: { id: string } }).collection;
}

/** A protected collection of `files`, each protected by a password of its own as the upload form sets. */
function protectedCollection(app: SharingApp, files: Uploaded[], settings: Record<string, unknown> = {}) {
  return makeCollection(app, {
    title: 'Protected',
    password: COLLECTION_PASSWORD,
    files: files.map(({ file }) => ({ id: file.id })),
    ...settings,
  });
}

/** Types the collection's password on its page; the Set-Cookie lines of the answer. */
async function unlock(app: SharingApp, collectionId: string, cookie?: string): Promise<string[]> {
  const res = await postForm(
    app,
    `/c/${collectionId}`,
    { intent: 'unlock', password: COLLECTION_PASSWORD },
    { cookie },
  );
  expect(res.status).toBe(303);
  return res.headers.getSetCookie();
}

/** The grant cookie an unlock set, as a Cookie header carries it. */
async function unlockedCookie(app: SharingApp, collectionId: string): Promise<string> {
  const grant = (await unlock(app, collectionId)).find((line) => line.startsWith(`collection_${collectionId}=`));
  if (!grant) throw new Error('no grant cookie');
  return grant.split(';')[0];
}

/** The statuses of a file's page, raw link and thumbnail, for a visitor sending `cookie` (none: ''). */
async function doors(file: Uploaded, cookie: string) {
  const headers: Record<string, string> = cookie ? { cookie } : {};
  return {
    page: (await request(file.url, { headers })).status,
    raw: (await request(file.rawUrl, { headers })).status,
    thumbnail: (await request(`${file.url}/thumbnail`, { headers })).status,
  };
}

const LOCKED = { page: 401, raw: 401, thumbnail: 401 };

/** A text file's doors: it has no thumbnail, so an open one's thumbnail is the not-found page. */
const OPEN_TEXT = { page: 200, raw: 200, thumbnail: 404 };

/** The thumbnail of an image once it is made (the upload does not wait for it): its status. */
async function thumbnailStatus(file: Uploaded, cookie: string): Promise<number> {
  let status = 0;
  await poll(async () => {
    status = (await request(`${file.url}/thumbnail`, { headers: { cookie } })).status;
    return status !== 404;
  }, 15_000);
  return status;
}

describe('a protected collection opens its files', () => {
  test('when a visitor unlocks a protected collection, then the page, raw link and thumbnail of a file in it open with the cookie it set, without asking again', async ({
    app,
  }) => {
    const png = makePng(40, 30);
    const image = await app.upload(png, 'beach.png', 'image/png', { password: FILE_PASSWORD });
    const notes = await app.upload('remember the hats', 'notes.txt', 'text/plain', { password: FILE_PASSWORD });
    const collection = await protectedCollection(app, [image, notes]);

    const setCookies = await unlock(app, collection.id);
    expect(setCookies).toHaveLength(1);
    // Sent to the whole site, so that it reaches /f/<id> too; no script reads it.
    expect(cookieAttributes(setCookies[0])).toMatchObject({ path: '/', httponly: true, samesite: 'Lax' });
    const cookie = setCookies[0].split(';')[0];
    expect(cookie.startsWith(`collection_${collection.id}=`)).toBe(true);

    expect(await thumbnailStatus(image, cookie)).toBe(200);
    const thumbnail = await request(`${image.url}/thumbnail`, { headers: { cookie } });
    expect(thumbnail.headers['content-type']).toBe('image/webp');
    expect(thumbnail.headers['cache-control']).toBe('private');

    const page = await request(image.url, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = page.body.toString();
    expect(html).toContain('beach.png');
    expect(html).not.toContain('name="password"');
    expect(page.headers['cache-control']).toBe('private, no-store');
    const raw = await request(image.rawUrl, { headers: { cookie } });
    expect(raw.status).toBe(200);
    expect(raw.body.equals(png)).toBe(true);
    expect(raw.headers['cache-control']).toBe('private, no-store');

    const notesPage = await request(notes.url, { headers: { cookie } });
    expect(notesPage.status).toBe(200);
    expect(notesPage.body.toString()).toContain('remember the hats');
    expect((await request(notes.rawUrl, { headers: { cookie } })).body.toString()).toBe('remember the hats');

    // The collection's page now shows the image's thumbnail.
    const collectionPage = (await request(`${app.url}/c/${collection.id}`, { headers: { cookie } })).body.toString();
    expect(collectionPage).toContain(`src="/f/${image.file.id}/thumbnail"`);
    // Without the cookie every one of them still asks.
    expect(await doors(image, '')).toEqual(LOCKED);
    expect((await request(notes.url)).status).toBe(401);
  });

  test('when a file of an unlocked collection has a download limit, then its raw link still counts against it, and it shows no preview', async ({
    app,
  }) => {
    const limited = await app.upload('twice only', 'limited.txt', 'text/plain', {
      password: FILE_PASSWORD,
      maxDownloads: '2',
    });
    const collection = await protectedCollection(app, [limited]);
    const cookie = await unlockedCookie(app, collection.id);

    const page = await request(limited.url, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.body.toString()).not.toContain('twice only');
    for (let i = 0; i < 2; i += 1) {
      expect((await request(limited.rawUrl, { headers: { cookie } })).body.toString()).toBe('twice only');
    }
    const [row] = await app.rows('select downloads from files where id = ?', [limited.file.id]);
    expect(Number(row.downloads)).toBe(2);
    expect((await request(limited.rawUrl, { headers: { cookie } })).status).toBe(410);
  });

  test('when the cookie of an unlocked collection is sent for a file not in it, then that file stays locked', async ({
    app,
  }) => {
    const inside = await app.upload('inside', 'inside.txt', 'text/plain', { password: FILE_PASSWORD });
    const outside = await app.upload(makePng(), 'outside.png', 'image/png', { password: FILE_PASSWORD });
    const collection = await protectedCollection(app, [inside]);
    const cookie = await unlockedCookie(app, collection.id);

    expect(await doors(inside, cookie)).toEqual(OPEN_TEXT);
    expect(await doors(outside, cookie)).toEqual(LOCKED);
  });

  test('when a file is taken out of the collection after it was unlocked, then the cookie no longer opens it', async ({
    app,
  }) => {
    const leaving = await app.upload('leaving', 'leaving.txt', 'text/plain', { password: FILE_PASSWORD });
    const staying = await app.upload('staying', 'staying.txt', 'text/plain', { password: FILE_PASSWORD });
    const collection = await protectedCollection(app, [leaving, staying]);
    const cookie = await unlockedCookie(app, collection.id);
    expect(await doors(leaving, cookie)).toEqual(OPEN_TEXT);

    const removed = await fetch(`${app.url}/api/v1/collections/${collection.id}/files/${leaving.file.id}`, {
      method: 'DELETE',
      headers: { cookie: app.cookie },
    });
    expect(removed.status).toBe(200);
    expect(await doors(leaving, cookie)).toEqual(LOCKED);
    expect(await doors(staying, cookie)).toEqual(OPEN_TEXT);
  });

  test('when a grant is forged, signed with another key, or another collection’s, then it opens nothing', async ({
    app,
  }) => {
    const mine = await app.upload('mine', 'mine.txt', 'text/plain', { password: FILE_PASSWORD });
    const theirs = await app.upload('theirs', 'theirs.txt', 'text/plain', { password: FILE_PASSWORD });
    const first = await protectedCollection(app, [mine]);
    const second = await protectedCollection(app, [theirs]);
    const cookie = await unlockedCookie(app, first.id);
    const token = cookie.slice(cookie.indexOf('=') + 1);
    expect(await doors(mine, cookie)).toEqual(OPEN_TEXT);

    // The first collection's grant, under the second's name: signed for the first, it opens nothing of the second.
    expect(await doors(theirs, `collection_${second.id}=${token}`)).toEqual(LOCKED);
    expect(await doors(theirs, cookie)).toEqual(LOCKED);
    expect(await doors(mine, `collection_${first.id}=forged.token.value`)).toEqual(LOCKED);
    const otherKey = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setAudience('share')
      .setSubject(first.id)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another secret, long enough for HS256, 0123456789'));
    expect(await doors(mine, `collection_${first.id}=${otherKey}`)).toEqual(LOCKED);
    // A file's own grant is not a collection's, nor the other way round.
    expect(await doors(mine, `share_${mine.file.id}=${token}`)).toEqual(LOCKED);
  });

  test('when the collection has expired, run out of downloads or had its password changed since it was unlocked, then its cookie opens nothing', async ({
    app,
  }) => {
    const expiring = await app.upload('expiring', 'expiring.txt', 'text/plain', { password: FILE_PASSWORD });
    const usedUp = await app.upload('used up', 'used-up.txt', 'text/plain', { password: FILE_PASSWORD });
    const renewed = await app.upload('renewed', 'renewed.txt', 'text/plain', { password: FILE_PASSWORD });
    const soonGone = await protectedCollection(app, [expiring], { expiresIn: 3600 });
    const once = await protectedCollection(app, [usedUp], { maxDownloads: 1 });
    const changing = await protectedCollection(app, [renewed]);
    const soonGoneCookie = await unlockedCookie(app, soonGone.id);
    const onceCookie = await unlockedCookie(app, once.id);
    const changingCookie = await unlockedCookie(app, changing.id);
    expect(await doors(expiring, soonGoneCookie)).toEqual(OPEN_TEXT);
    expect(await doors(usedUp, onceCookie)).toEqual(OPEN_TEXT);
    expect(await doors(renewed, changingCookie)).toEqual(OPEN_TEXT);

    // Its one "Download all" uses the second collection up.
    const archive = await request(`${app.url}/c/${once.id}/archive`, { headers: { cookie: onceCookie } });
    expect(archive.status).toBe(200);
    const changed = await fetch(`${app.url}/api/v1/collections/${changing.id}`, {
      method: 'PATCH',
      headers: { cookie: app.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'a new one' }),
    });
    expect(changed.status).toBe(200);
    clock.advance(HOUR + 60_000);

    expect(await doors(expiring, soonGoneCookie)).toEqual(LOCKED);
    expect(await doors(usedUp, onceCookie)).toEqual(LOCKED);
    expect(await doors(renewed, changingCookie)).toEqual(LOCKED);
  });

  test('when a visitor unlocks more collections than a browser keeps grants for, then the unlock clears the grant given longest ago', async ({
    app,
  }) => {
    const file = await app.upload('in many', 'many.txt', 'text/plain', { password: FILE_PASSWORD });
    const jar = new Map<string, string>();
    const ids: string[] = [];
    for (let i = 0; i < 11; i += 1) {
      const { id } = await protectedCollection(app, [file]);
      ids.push(id);
      // A second apart, as a person unlocks them.
      clock.advance(1000);
      const cookieHeader = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      for (const line of await unlock(app, id, cookieHeader || undefined)) {
        const [pair] = line.split(';');
        const name = pair.slice(0, pair.indexOf('='));
        if (cookieAttributes(line)['max-age'] === '0') jar.delete(name);
        else jar.set(name, pair.slice(pair.indexOf('=') + 1));
      }
    }
    expect([...jar.keys()]).toEqual(ids.slice(1).map((id) => `collection_${id}`));
  });
});
