// Collections with two instances on one PostgreSQL database and one bucket: made on one,
// downloaded and resumed on the other, with the download limit counted once across both.
import { describe, expect, it } from 'vitest';
import { fileForm, type TestApp } from '../helpers/app';
import { setUpTwoInstances } from '../helpers/instances';
import { archiveDirectoryNames, collectionOfOneName } from '../helpers/large-collections';
import { readWithYauzl, sha256 } from '../helpers/zip-archives';

let a: TestApp;
let b: TestApp;
let cookie: string;

setUpTwoInstances('curator', (instances) => {
  ({ a, b, cookie } = instances);
});

async function uploadTo(app: TestApp, content: Buffer, name: string): Promise<string> {
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm(content, name),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { file: { id: string } }).file.id;
}

describe('a collection across two instances', () => {
  it('when it is made on one instance from files uploaded to both, then the other serves its archive, resumes it with If-Range and the claim of the counted download, and counts each download once across both', async () => {
    const contents = [Buffer.alloc(300_000, 7), Buffer.from('second file\n'), Buffer.alloc(1_000_000, 9)];
    const ids = [
      await uploadTo(a, contents[0], 'one.bin'),
      await uploadTo(b, contents[1], 'two.txt'),
      await uploadTo(a, contents[2], 'three.bin'),
    ];
    const made = await fetch(`${a.url}/api/v1/collections`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ files: ids.map((id, i) => ({ id, path: `set/${i}.bin` })), maxDownloads: 2 }),
    });
    expect(made.status).toBe(201);
    const { collection } = (await made.json()) as { collection: { id: string } };

    const first = await fetch(`${b.url}/c/${collection.id}/archive`, { headers: { range: 'bytes=0-99999' } });
    expect(first.status).toBe(206);
    const etag = first.headers.get('etag') ?? '';
    // The claim the counted answer left (ADR 0056) holds on the other instance too: one secret.
    const claim = (first.headers.getSetCookie().find((c) => c.startsWith(`claim_${collection.id}=`)) ?? '').split(
      ';',
    )[0];
    const rest = await fetch(`${a.url}/c/${collection.id}/archive`, {
      headers: { range: 'bytes=100000-', 'if-range': etag, cookie: claim },
    });
    expect(rest.status).toBe(206);
    const archive = Buffer.concat([Buffer.from(await first.arrayBuffer()), Buffer.from(await rest.arrayBuffer())]);
    const entries = await readWithYauzl(archive);
    expect(entries.map((entry) => [entry.name, entry.sha256])).toEqual(
      contents.map((content, i) => [`set/${i}.bin`, sha256(content)]),
    );

    // The resumed range counted nothing: one more download is left, on either instance.
    const second = await fetch(`${a.url}/c/${collection.id}/archive`);
    expect(second.status).toBe(200);
    expect(Buffer.from(await second.arrayBuffer()).equals(archive)).toBe(true);
    expect((await fetch(`${a.url}/c/${collection.id}/archive`)).status).toBe(410);
    expect((await fetch(`${b.url}/c/${collection.id}/archive`)).status).toBe(410);
  });

  it('when both instances keep the plan of a large collection and it changes through one (a file taken out, a file deleted by its owner), then the other answers the changed archive at its next request, and from its kept plan after that', {
    timeout: 180_000,
  }, async () => {
    const files = 2_000;
    const { id, fileIds } = await collectionOfOneName(a, cookie, { count: files, path: 'set/photo.jpg' });
    const head = async (app: TestApp) => {
      const started = performance.now();
      const res = await fetch(`${app.url}/c/${id}/archive`, { method: 'HEAD' });
      return {
        status: res.status,
        etag: res.headers.get('etag'),
        length: res.headers.get('content-length'),
        ms: performance.now() - started,
      };
    };
    const same = async () => {
      const [onA, onB] = [await head(a), await head(b)];
      expect([onA.status, onB.status]).toEqual([200, 200]);
      expect(onA.etag).toBe(onB.etag);
      expect(onA.length).toBe(onB.length);
      return onA.etag;
    };

    const first = await same();
    // Kept on both: answered at once (laying 2,000 alike names out one number at a time took seconds).
    for (const app of [a, b]) expect((await head(app)).ms).toBeLessThan(200);

    const takenOut = await fetch(`${b.url}/api/v1/collections/${id}/files/${fileIds[3]}`, {
      method: 'DELETE',
      headers: { cookie },
    });
    expect(takenOut.status).toBe(200);
    const second = await same();
    expect(second).not.toBe(first);

    expect((await fetch(`${b.url}/api/v1/files/${fileIds[7]}`, { method: 'DELETE', headers: { cookie } })).status).toBe(
      200,
    );
    const third = await same();
    expect(third).not.toBe(second);
    for (const app of [a, b]) expect((await head(app)).ms).toBeLessThan(200);
    const names = await archiveDirectoryNames(`${a.url}/c/${id}/archive`);
    expect(names).toEqual(await archiveDirectoryNames(`${b.url}/c/${id}/archive`));
    expect(names.length).toBe(files - 2);
  });
});
