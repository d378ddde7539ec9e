// The type a file is stored with is decided the same way for a multipart and a resumable upload:
// exactly what the client sent (cleaned), or, when it sent none, what the name's extension stands for.
import { fileForm, type TestApp } from '../helpers/app';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { tusClient } from '../helpers/tus';

async function resumableType(app: TestApp, user: TestUser, filename: string, filetype?: string): Promise<string> {
  const metadata: Record<string, string> = { filename, ...(filetype === undefined ? {} : { filetype }) };
  const res = await tusClient(app.url, user.cookie).create(5, metadata, Buffer.from('hello'));
  expect(res.status).toBe(201);
  return (await res.json()).file.mimeType;
}

async function multipartType(user: TestUser, filename: string, type: string): Promise<string> {
  const res = await user.fetch('/api/v1/files', { method: 'POST', body: fileForm('hello', filename, type) });
  expect(res.status).toBe(201);
  return (await res.json()).file.mimeType;
}

describe('the type of an uploaded file', () => {
  test('when a resumable upload sends no filetype, then the type comes from the name, as for a multipart upload of the same name', async ({
    app,
    alice,
  }) => {
    expect(await resumableType(app, alice, 'notes.txt')).toBe('text/plain');
    expect(await resumableType(app, alice, 'notes.txt', '')).toBe('text/plain');
    expect(await resumableType(app, alice, 'photo.PNG')).toBe('image/png');
    expect(await resumableType(app, alice, 'archive.unknownext')).toBe('application/octet-stream');
    expect(await resumableType(app, alice, 'no-extension')).toBe('application/octet-stream');
    expect(await multipartType(alice, 'notes.txt', 'text/plain')).toBe('text/plain');
  });

  test('when the client sends a type, then both paths record exactly that type, whatever the name says', async ({
    app,
    alice,
  }) => {
    for (const [name, type] of [
      ['notes.txt', 'application/x-custom'],
      ['photo.png', 'application/octet-stream'],
      ['data.bin', 'text/csv'],
    ]) {
      expect(await resumableType(app, alice, name, type)).toBe(type);
      expect(await multipartType(alice, name, type)).toBe(type);
    }
  });
});
