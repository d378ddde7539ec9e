// A collection of thousands of files of one name, made in seconds: one file uploaded over HTTP,
// the others its copies added as rows (as the bench seeds its long file lists), then the
// collection made through the API like any other. The copies' content is not stored: only what
// reads no file's content (HEAD, the archive's central directory) may be asked of their archive.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { fileForm, type TestApp } from './app';

/** Rows added per statement: well within both databases' limit of bound values. */
const ROWS_PER_INSERT = 500;

export async function collectionOfOneName(
  app: TestApp,
  cookie: string,
  { count, path }: { count: number; path: string },
): Promise<{ id: string; fileIds: string[] }> {
  const uploaded = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm(Buffer.from('one of many\n'), path.split('/').at(-1) ?? path),
  });
  expect(uploaded.status).toBe(201);
  const original = ((await uploaded.json()) as { file: { id: string } }).file.id;
  const fileIds = [original];
  while (fileIds.length < count) {
    const ids = Array.from({ length: Math.min(ROWS_PER_INSERT, count - fileIds.length) }, () =>
      randomBytes(16).toString('base64url'),
    );
    await app.rows(
      'insert into "files" ("id", "user_id", "original_name", "mime_type", "size", "stored_name", "created_at", "downloads", "crc32") ' +
        'select "v"."column1", "f"."user_id", "f"."original_name", "f"."mime_type", "f"."size", "v"."column2", "f"."created_at", 0, "f"."crc32" ' +
        `from "files" "f", (values ${ids.map(() => '(?, ?)').join(', ')}) "v" where "f"."id" = ?`,
      [...ids.flatMap((id) => [id, `${id}.bin`]), original],
    );
    fileIds.push(...ids);
  }
  const made = await fetch(`${app.url}/api/v1/collections`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Many', files: fileIds.map((id) => ({ id, path })) }),
  });
  expect(made.status).toBe(201);
  return { id: ((await made.json()) as { collection: { id: string } }).collection.id, fileIds };
}

/**
 * The entry names in an archive's central directory, read with two ranged requests (the end
 * record, then the directory): no file's content is read.
 */
export async function archiveDirectoryNames(archiveUrl: string): Promise<string[]> {
  const end = Buffer.from(await (await fetch(archiveUrl, { headers: { range: 'bytes=-22' } })).arrayBuffer());
  expect(end.readUInt32LE(0)).toBe(0x06054b50);
  const directorySize = end.readUInt32LE(12);
  const directoryOffset = end.readUInt32LE(16);
  const directory = Buffer.from(
    await (
      await fetch(archiveUrl, { headers: { range: `bytes=${directoryOffset}-${directoryOffset + directorySize - 1}` } })
    ).arrayBuffer(),
  );
  const names: string[] = [];
  for (let at = 0; at < directory.length; ) {
    expect(directory.readUInt32LE(at)).toBe(0x02014b50);
    const nameLength = directory.readUInt16LE(at + 28);
    const otherLength = directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
    names.push(directory.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + otherLength;
  }
  return names;
}
