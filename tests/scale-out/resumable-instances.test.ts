// Resumable uploads with two instances on one PostgreSQL database and one bucket (ADR 0019):
// an upload begun on one instance carries on and finishes on the other, and a request stuck on
// one instance (a connection that went quiet) lets go when the client resumes on the other.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app';
import { setUpTwoInstances } from '../helpers/instances';
import { offsetOnceSettled, openPatch, sha256, tusClient } from '../helpers/tus';

const MiB = 1024 * 1024;
let a: TestApp;
let b: TestApp;
let cookie: string;

setUpTwoInstances('traveller', (instances) => {
  ({ a, b, cookie } = instances);
});

describe('a resumable upload across two instances', () => {
  it('when it is created on one instance, continued and broken off on both, then it finishes on either with the right SHA-256', async () => {
    const onA = tusClient(a.url, cookie);
    const onB = tusClient(b.url, cookie);
    const content = randomBytes(11 * MiB);
    const created = await onA.create(content.length, { filename: 'trip.bin' });
    const path = created.headers.get('location')!;
    expect((await onB.patch(`${b.url}${path}`, 0, content.subarray(0, 3 * MiB))).status).toBe(204);
    await onA.patchBrokenOff(`${a.url}${path}`, 3 * MiB, content.subarray(3 * MiB, 9 * MiB), content.length - 3 * MiB);
    expect(await offsetOnceSettled(onB, `${b.url}${path}`, 9 * MiB)).toBe(9 * MiB);
    const last = await onA.patch(`${a.url}${path}`, 9 * MiB, content.subarray(9 * MiB));
    expect(last.status).toBe(200);
    const { file } = await last.json();
    const download = await fetch(`${b.url}/f/${file.id}/raw`);
    expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(content));
  });

  it('when a PATCH went quiet on one instance and the client resumes on the other, then the first lets go keeping its bytes, and the upload carries on from there', async () => {
    const onA = tusClient(a.url, cookie);
    const onB = tusClient(b.url, cookie);
    const content = randomBytes(4 * MiB);
    const created = await onA.create(content.length, { filename: 'quiet.bin' });
    const path = created.headers.get('location')!;
    // A PATCH on A sends 1 MiB of its 4 and then nothing: its connection stays open.
    const socket = await openPatch(`${a.url}${path}`, cookie, 0, content.length);
    socket.write(content.subarray(0, MiB));
    await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      // The client gave up on that connection and resumes on B from where it last knew (0).
      const started = Date.now();
      const stale = await onB.patch(`${b.url}${path}`, 0, content);
      expect(stale.status).toBe(409);
      expect(Date.now() - started).toBeLessThan(12_000);
      const head = await onB.head(`${b.url}${path}`);
      expect(head.headers.get('upload-offset')).toBe(String(MiB));
      const rest = await onB.patch(`${b.url}${path}`, MiB, content.subarray(MiB));
      expect(rest.status).toBe(200);
      const { file } = await rest.json();
      const download = await fetch(`${a.url}/f/${file.id}/raw`);
      expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(content));
    } finally {
      socket.destroy();
    }
  });
});
