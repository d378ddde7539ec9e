// The listener createApp returns (server/doors/fast-paths.ts, ADR 0022) really answers uploads and
// raw links without Express, and hands everything else to it. The comparison suites
// (upload-fast-path, raw-fast-path) check that both ways answer alike, which would still hold
// were the fast paths never taken; this one stands a recording Express app behind the real
// listener, on the real dependencies (database and store of the run's backend), and looks at
// what reached it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { provision } from '../../server/provision';
import { createServiceContext } from '../../server/context';
import { createDeps, type Deps } from '../../server/deps';
import { withFastPaths } from '../../server/doors/fast-paths';
import { issueApiToken } from '../../server/services/api-tokens';
import { registerUser } from '../../server/services/users';
import { DEFAULT_PASSWORD, TEST_SECRET, tempDir } from '../helpers/app';
import { CHECKED_LOG_LEVEL, checkErrorLogs } from '../helpers/error-logs';
import { backendEnv } from '../helpers/test-backend';
import { handMadeMultipart, request, type RawResponse } from '../sharing/support';

const CONTENT = 'uploaded and served without Express\n';

let deps: Deps;
let server: http.Server;
let url: string;
let bearer: string;
/** The requests that reached Express, by URL. */
const reachedExpress: string[] = [];

beforeAll(async () => {
  const recordingExpress = express();
  recordingExpress.use((req, res) => {
    reachedExpress.push(req.originalUrl);
    res.status(418).type('text/plain').send('express');
  });
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = provision(
    loadConfig({
      SESSION_SECRET: TEST_SECRET,
      ...(await backendEnv()),
      DATA_DIR: tempDir(),
      BASE_URL: url,
    }),
  );
  // Its error and fatal lines fail the test they happen in, as those of startApp's apps do.
  deps = await createDeps(config, { logLevel: CHECKED_LOG_LEVEL });
  checkErrorLogs(deps.log, { keepWriting: false });
  server.on('request', withFastPaths(deps, recordingExpress));

  const ctx = createServiceContext(deps);
  const { id } = await registerUser(ctx, { username: 'dispatch', password: DEFAULT_PASSWORD });
  bearer = `Bearer ${(await issueApiToken(ctx, id, { name: 'dispatch test' })).token}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await deps.close();
});

/**
 * POSTs a small file to the API, with the token unless `credentials` says otherwise (plain
 * node:http: the recording Express's answers are not the API's).
 */
function upload(
  headers: Record<string, string> = {},
  credentials: Record<string, string> = { authorization: bearer },
): Promise<RawResponse> {
  const form = handMadeMultipart(
    ['Content-Disposition: form-data; name="file"; filename="note.txt"', 'Content-Type: text/plain'],
    CONTENT,
  );
  return request(`${url}/api/v1/files`, {
    method: 'POST',
    headers: { ...credentials, 'content-type': form.contentType, ...headers },
    body: form.body,
  });
}

const uploadedId = (answer: RawResponse) => (JSON.parse(answer.text) as { file: { id: string } }).file.id;

describe('the listener ahead of Express', () => {
  it('when a script uploads and then fetches the raw link, then both are answered without Express', async () => {
    reachedExpress.length = 0;
    const uploaded = await upload();
    expect(uploaded.status).toBe(201);

    const raw = await request(`${url}/f/${uploadedId(uploaded)}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.body.toString('utf8')).toBe(CONTENT);
    expect(reachedExpress).toEqual([]);
  });

  it('when a token upload comes with another site’s Origin (a browser extension), then it is answered without Express', async () => {
    reachedExpress.length = 0;
    expect((await upload({ origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop' })).status).toBe(201);
    expect((await upload({ 'sec-fetch-site': 'cross-site' })).status).toBe(201);
    expect(reachedExpress).toEqual([]);
  });

  it('when a request is not one the fast paths serve, then it reaches Express untouched', async () => {
    reachedExpress.length = 0;
    const id = uploadedId(await upload());

    expect((await upload({ origin: 'https://example.org' }, { cookie: 'token=x' })).status).toBe(418);
    expect((await request(`${url}/f/${id}/raw?download`)).status).toBe(418);
    expect((await request(`${url}/f/AbCdEfGhIjKlMnOpQrStUv/raw`)).status).toBe(418);
    expect((await request(`${url}/api/v1/files`)).status).toBe(418);
    expect(reachedExpress).toEqual([
      '/api/v1/files',
      `/f/${id}/raw?download`,
      '/f/AbCdEfGhIjKlMnOpQrStUv/raw',
      '/api/v1/files',
    ]);
  });
});
