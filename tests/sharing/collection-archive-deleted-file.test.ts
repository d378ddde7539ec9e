// A file of a collection deleted by its owner while a visitor downloads the collection's archive:
// the download is cut short (never a wrong archive), which the visitor's browser shows and which
// is nobody's fault, so the log says it once, as a warning, without a stack (ADR 0055).
import { describe, expect, test } from '../helpers/fixtures';

test.override('appEnv', { LOG_LEVEL: 'warn' });
test.override('appOptions', { keepLogLines: true });

/** More than the connection's buffers hold: the first file is still being sent when the second is deleted. */
const FIRST_FILE_BYTES = 24 * 1024 * 1024;
const WARN = 40;

describe('a collection archive whose file is deleted during the download', () => {
  test('when a later file is deleted while the archive is being sent, then the download is cut short and the log has one warning, without a stack, and no error', {
    timeout: 120_000,
  }, async ({ app, alice }) => {
    const { file: first } = await alice.upload(Buffer.alloc(FIRST_FILE_BYTES, 7), 'video.bin');
    const { file: second } = await alice.upload('notes\n', 'notes.txt', 'text/plain');
    const made = await alice.fetch('/api/v1/collections', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Trip', files: [{ id: first.id }, { id: second.id }] }),
    });
    expect(made.status).toBe(201);
    const { collection } = (await made.json()) as { collection: { id: string } };

    const res = await fetch(`${app.url}/c/${collection.id}/archive`);
    expect(res.status).toBe(200);
    const length = Number(res.headers.get('content-length'));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let received = (await reader.read()).value?.length ?? 0;

    expect((await alice.fetch(`/api/v1/files/${second.id}`, { method: 'DELETE' })).status).toBe(200);
    const cut = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return false;
        received += value.length;
      }
    })().catch(() => true);
    expect(cut).toBe(true);
    expect(received).toBeLessThan(length);

    // The server's line is written as it cuts the response: give it a moment to land.
    const warnings = async () => app.logLines().filter((line) => line.level === WARN);
    for (let i = 0; i < 50 && (await warnings()).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const lines = app.logLines();
    expect(lines.filter((line) => Number(line.level) > WARN)).toEqual([]);
    expect(lines.filter((line) => line.level === WARN)).toEqual([
      expect.objectContaining({ collectionId: collection.id, msg: expect.stringContaining('deleted') }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('stack');
  });
});
