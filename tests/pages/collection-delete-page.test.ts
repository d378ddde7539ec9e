// Deleting a collection from the pages, without JavaScript: the Delete link on /files opens a
// page that asks, and whether the collection's files go too; by default they stay.
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { getPage, postForm, visibleText } from '../helpers/pages-fixtures';

async function makeCollection(user: TestUser, title: string, names: string[]) {
  const files = [];
  for (const name of names) files.push((await user.upload(`content of ${name}`, name, 'text/plain')).file);
  const res = await user.fetch('/api/v1/collections', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title, files: files.map((file) => ({ id: file.id })) }),
  });
  if (res.status !== 201) throw new Error(`collection not made: ${res.status} ${await res.text()}`);
  const { collection } = (await res.json()) as { collection: { id: string } };
  return { id: collection.id, fileIds: files.map((file) => file.id) };
}

/** Each file's share page status: 200 while it exists, 404 once deleted. */
async function fileStatuses(user: TestUser, ids: string[]): Promise<number[]> {
  return Promise.all(ids.map(async (id) => (await user.fetch(`/f/${id}`)).status));
}

describe('deleting a collection from the pages', () => {
  test('when the owner opens a collection’s Delete link, then the page names it and offers to delete its files too, unchecked', async ({
    app,
    alice,
  }) => {
    const { id } = await makeCollection(alice, 'Trip <photos>', ['a.txt', 'b.txt']);
    const list = await (await getPage(app, '/files', alice.cookie)).text();
    expect(list).toContain(`href="/collections/${id}/delete"`);
    const res = await getPage(app, `/collections/${id}/delete`, alice.cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(visibleText(html)).toContain('Delete the collection “Trip <photos>”? Its link will stop working.');
    expect(html).not.toContain('Trip <photos>');
    expect(visibleText(html)).toContain('Also delete its 2 files');
    expect(html).toMatch(/<input type="checkbox" name="files" value="delete"\/?>/);
  });

  test('when the owner deletes it without its files, then its link is gone, the files stay with their own links, and the list says so', async ({
    app,
    alice,
  }) => {
    const { id, fileIds } = await makeCollection(alice, 'Keep the files', ['one.txt', 'two.txt']);
    const res = await postForm(app, `/collections/${id}/delete`, {}, { cookie: alice.cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/files?deleted=${encodeURIComponent('Keep the files')}`);
    expect((await getPage(app, `/c/${id}`)).status).toBe(404);
    expect(await fileStatuses(alice, fileIds)).toEqual([200, 200]);
    const list = await (await getPage(app, res.headers.get('location') ?? '', alice.cookie)).text();
    expect(visibleText(list)).toContain('“Keep the files” was deleted.');
  });

  test('when the owner deletes it with its files, then the collection and every file of it are gone', async ({
    app,
    alice,
  }) => {
    const { id, fileIds } = await makeCollection(alice, 'Remove all', ['x.txt', 'y.txt', 'z.txt']);
    const { file: other } = await alice.upload('not in it', 'other.txt', 'text/plain');
    const res = await postForm(app, `/collections/${id}/delete`, { files: 'delete' }, { cookie: alice.cookie });
    expect(res.status).toBe(302);
    expect((await getPage(app, `/c/${id}`)).status).toBe(404);
    expect(await fileStatuses(alice, fileIds)).toEqual([404, 404, 404]);
    expect(await fileStatuses(alice, [other.id])).toEqual([200]);
  });

  test('when another user opens or posts the delete of someone’s collection, then it is not found for them and the collection stays', async ({
    app,
    alice,
    bob,
  }) => {
    const { id, fileIds } = await makeCollection(alice, 'Not yours', ['mine.txt']);
    const page = await getPage(app, `/collections/${id}/delete`, bob.cookie);
    // As for an id that does not exist: another user's collection is not even confirmed to exist.
    expect(page.status).toBe(404);
    expect(visibleText(await page.text())).toContain('This collection does not exist, or it was already deleted.');
    const posted = await postForm(app, `/collections/${id}/delete`, { files: 'delete' }, { cookie: bob.cookie });
    expect(posted.status).toBe(404);
    expect((await getPage(app, `/c/${id}`)).status).toBe(200);
    expect(await fileStatuses(alice, fileIds)).toEqual([200]);
  });

  test('when the collection does not exist, then the page says so with 404', async ({ app, alice }) => {
    const res = await getPage(app, '/collections/nosuchcollection/delete', alice.cookie);
    expect(res.status).toBe(404);
    expect(visibleText(await res.text())).toContain('This collection does not exist, or it was already deleted.');
  });

  test('when a visitor without a session posts a delete, then nothing is deleted and they are sent to log in', async ({
    app,
    alice,
  }) => {
    const { id } = await makeCollection(alice, 'Guarded', ['g.txt']);
    const res = await postForm(app, `/collections/${id}/delete`, { files: 'delete' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^\/login\?redirectTo=/);
    expect((await getPage(app, `/c/${id}`)).status).toBe(200);
  });
});
