// Shared by the tests of the share page and the raw link: one app, one logged-in uploader.
import { fileForm, startApp, type StartOptions, type TestApp } from '../helpers/app';
import { rebuildForEachFile, test as withApp } from '../helpers/fixtures';
import type { FileDto } from '../../server/services/files';

export interface Uploaded {
  file: FileDto;
  url: string;
  rawUrl: string;
}

export interface SharingApp extends TestApp {
  cookie: string;
  /** Uploads with share settings: `fields` go before the file part, as the API wants them. */
  upload(
    content: string | Uint8Array,
    filename: string,
    type?: string,
    fields?: Record<string, string>,
  ): Promise<Uploaded>;
}

export async function startSharingApp(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<SharingApp> {
  const app = await startApp(env, options);
  await app.createUser('sharer');
  const cookie = await app.login('sharer');
  return Object.assign(app, {
    cookie,
    async upload(
      content: string | Uint8Array,
      filename: string,
      type = 'application/octet-stream',
      fields: Record<string, string> = {},
    ) {
      const res = await fetch(`${app.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie },
        body: fileForm(content, filename, type, 'file', fields),
      });
      if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { file: FileDto; url: string };
      return { ...body, rawUrl: `${body.url}/raw` };
    },
  });
}

/**
 * The fixtures of tests/helpers/fixtures.ts with `app` a SharingApp (started once per file, with
 * `appEnv` and `appOptions`): `test('…', async ({ app }) => { await app.upload(…) })`.
 */
function sharingTest() {
  return withApp.extend('app', { scope: 'file' }, async ({ appEnv, appOptions }, { onCleanup }) => {
    const app = await startSharingApp(appEnv, appOptions);
    onCleanup(() => app.close());
    return app;
  });
}

// Built again for each test file, as `withApp` is: a file's `test.override(…)` stays in that file.
export let test = sharingTest();
rebuildForEachFile(() => {
  test = sharingTest();
});

/** Requests with Node's http client: unlike fetch, it shows HEAD bodies, 304s and raw header lines as they are. */
export { rawRequest as request, type RawResponse } from '../helpers/raw-http';

/** A multipart body written byte by byte, for part headers no FormData can produce. */
export function handMadeMultipart(partHeaders: string[], content: string | Buffer) {
  const boundary = '----sharing-test-boundary-7MA4YWxkTrZu0gW';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\n${partHeaders.join('\r\n')}\r\n\r\n`, 'utf8'),
    Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'),
    Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
