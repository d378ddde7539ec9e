import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, startApp, type TestApp } from '../helpers/app';

let app: TestApp;
let alice: string;
let bob: string;

beforeAll(async () => {
  app = await startApp();
  await app.createUser('alice');
  await app.createUser('bob');
  alice = await app.login('alice');
  bob = await app.login('bob');
});
afterAll(() => app.close());

async function upload(cookie: string, form: FormData) {
  return fetch(`${app.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
}

describe('POST /api/v1/files', () => {
  it('when a logged-in user uploads a file, then it answers 201 with the file and its share url, and the bytes are on disk', async () => {
    const res = await upload(alice, fileForm('hello world', 'greeting.txt', 'text/plain'));
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.file).toMatchObject({ originalName: 'greeting.txt', mimeType: 'text/plain', size: 11 });
    expect(body.file.id).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(body.file.storedName).toBe(`${body.file.id}.txt`);
    expect(body.url).toBe(`${app.url}/f/${body.file.id}`);
    expect(new Date(body.file.createdAt).toISOString()).toBe(body.file.createdAt);
    expect(fs.readFileSync(path.join(app.config.uploadDir, body.file.storedName), 'utf8')).toBe('hello world');
    const [row] = await app.rows('select stored_name, user_id, size from files where id = ?', [body.file.id]);
    expect(row).toEqual({ stored_name: body.file.storedName, user_id: body.file.userId, size: 11 });
  });
});
