// The type a file is stored with is decided the same way for a multipart and a resumable upload:
// exactly what the client sent (cleaned), or, when it sent none, what the name's extension stands for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { tusClient } from '../helpers/tus';

let app: TestApp;
let cookie: string;

beforeAll(async () => {
  app = await startApp();
  await app.createUser('types');
  cookie = await app.login('types');
});
afterAll(() => app.close());

async function resumableType(filename: string, filetype?: string): Promise<string> {
  const metadata: Record<string, string> = { filename, ...(filetype === undefined ? {} : { filetype }) };
  const res = await tusClient(app.url, cookie).create(5, metadata, Buffer.from('hello'));
  expect(res.status).toBe(201);
  return (await res.json()).file.mimeType;
}

async function multipartType(filename: string, type: string): Promise<string> {
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm('hello', filename, type),
  });
  expect(res.status).toBe(201);
  return (await res.json()).file.mimeType;
}

describe('the type of an uploaded file', () => {
  it('when a resumable upload sends no filetype, then the type comes from the name, as for a multipart upload of the same name', async () => {
    expect(await resumableType('notes.txt')).toBe('text/plain');
    expect(await resumableType('notes.txt', '')).toBe('text/plain');
    expect(await resumableType('photo.PNG')).toBe('image/png');
    expect(await resumableType('archive.unknownext')).toBe('application/octet-stream');
    expect(await resumableType('no-extension')).toBe('application/octet-stream');
    expect(await multipartType('notes.txt', 'text/plain')).toBe('text/plain');
  });

  it('when the client sends a type, then both paths record exactly that type, whatever the name says', async () => {
    for (const [name, type] of [
      ['notes.txt', 'application/x-custom'],
      ['photo.png', 'application/octet-stream'],
      ['data.bin', 'text/csv'],
    ]) {
      expect(await resumableType(name, type)).toBe(type);
      expect(await multipartType(name, type)).toBe(type);
    }
  });
});
