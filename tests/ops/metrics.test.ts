// Prometheus metrics (ADR 0049): /metrics is off unless METRICS_TOKEN or METRICS_PORT is set;
// with a token it answers only `Authorization: Bearer <token>`; with a port it is served there
// and nowhere else. Its series move with real requests, the fast paths' included, and no label
// ever holds a file id.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { startApp, tempDir, TEST_SECRET, type TestApp } from '../helpers/app';
import { registeredUser, type TestUser } from '../helpers/fixtures';
import { freePort, killIfRunning, type ServerProcess, startServer } from './support';

const TOKEN = 'metrics-token-0123456789abcdef';
const asScraper = { headers: { authorization: `Bearer ${TOKEN}` } };

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) sum += Number(match[3]);
  }
  return sum;
}

/** Every label value of every sample. */
function labelValues(text: string): string[] {
  return [...text.matchAll(/\w+="([^"]*)"/g)].map((m) => m[1]);
}

describe('metrics off (neither METRICS_TOKEN nor METRICS_PORT)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  it('when /metrics is asked for, with or without a bearer token, then it answers 404 and shows no series', async () => {
    for (const init of [{}, asScraper]) {
      const res = await fetch(`${app.url}/metrics`, init);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('fileshare_http_requests_total');
    }
  });
});

describe('metrics behind METRICS_TOKEN', () => {
  let app: TestApp;
  let alice: TestUser;
  beforeAll(async () => {
    app = await startApp({ METRICS_TOKEN: TOKEN });
    alice = await registeredUser(app, 'alice');
  });
  afterAll(() => app.close());

  const scrape = async () => {
    const res = await fetch(`${app.url}/metrics`, asScraper);
    expect(res.status).toBe(200);
    return res.text();
  };

  it('when /metrics is asked for without a token or with a wrong one, then it answers 401 with WWW-Authenticate and no series', async () => {
    for (const authorization of [
      undefined,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      TOKEN,
      'Basic Zm9vOmJhcg==',
    ]) {
      const res = await fetch(`${app.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.text()).not.toContain('fileshare_');
    }
  });

  it('when /metrics is asked for with the token, then it answers 200 in the Prometheus text format with the process series', async () => {
    const res = await fetch(`${app.url}/metrics`, asScraper);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(text).toContain('# TYPE fileshare_http_requests_total counter');
    expect(text).toContain('# TYPE fileshare_http_request_duration_seconds histogram');
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds [\d.e-]+/m);
    expect(text).toMatch(/^fileshare_uploads_in_flight 0$/m);
    expect(text).toMatch(/^fileshare_resumable_uploads_open 0$/m);
  });

  it('when alice uploads a file and it is downloaded raw, then the upload route counts the request and its bytes uploaded, and the raw route its bytes downloaded', async () => {
    const before = await scrape();
    const content = 'x'.repeat(50_000);
    const { file } = await alice.upload(content, 'counted.txt', 'text/plain');
    const raw = await fetch(`${app.url}/f/${file.id}/raw`);
    expect(raw.status).toBe(200);
    expect((await raw.text()).length).toBe(content.length);
    const after = await scrape();

    const upload = { method: 'POST', route: '/api/v1/files', status: '201' };
    expect(sample(after, 'fileshare_http_requests_total', upload)).toBe(
      sample(before, 'fileshare_http_requests_total', upload) + 1,
    );
    const uploaded = (text: string) => sample(text, 'fileshare_bytes_uploaded_total', { route: '/api/v1/files' });
    expect(uploaded(after) - uploaded(before)).toBeGreaterThanOrEqual(content.length);
    const download = { method: 'GET', route: '/f/:id/raw', status: '200' };
    expect(sample(after, 'fileshare_http_requests_total', download)).toBe(
      sample(before, 'fileshare_http_requests_total', download) + 1,
    );
    const downloaded = (text: string) => sample(text, 'fileshare_bytes_downloaded_total', { route: '/f/:id/raw' });
    expect(downloaded(after) - downloaded(before)).toBeGreaterThanOrEqual(content.length);
    expect(
      sample(after, 'fileshare_http_request_duration_seconds_count', { route: '/f/:id/raw' }) -
        sample(before, 'fileshare_http_request_duration_seconds_count', { route: '/f/:id/raw' }),
    ).toBe(1);
  });

  it('when someone logs in with a wrong password, then login failures go up by one and the login route counts a 401', async () => {
    const before = await scrape();
    const res = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'not-her-password' }),
    });
    expect(res.status).toBe(401);
    const after = await scrape();
    expect(sample(after, 'fileshare_login_failures_total')).toBe(sample(before, 'fileshare_login_failures_total') + 1);
    const refused = { method: 'POST', route: '/api/v1/auth/login', status: '401' };
    expect(sample(after, 'fileshare_http_requests_total', refused)).toBe(
      sample(before, 'fileshare_http_requests_total', refused) + 1,
    );
  });

  it('when files are asked for by id on every door, then no label holds a file id or any other path a client chose', async () => {
    const { file } = await alice.upload('labelled', 'labelled.txt', 'text/plain');
    const paths = [
      `/f/${file.id}`,
      `/f/${file.id}/raw`,
      `/f/${file.id}/thumbnail`,
      `/api/v1/files/${file.id}`,
      '/f/AAAAAAAAAAAAAAAAAAAAAA/raw',
      '/no-such-page-chosen-by-a-client',
      '/api/v1/no-such-route-chosen-by-a-client',
    ];
    for (const path of paths) await (await alice.fetch(path)).arrayBuffer();
    const text = await scrape();
    const values = labelValues(text);
    expect(values.some((value) => value.includes(file.id))).toBe(false);
    expect(values.some((value) => value.includes('chosen-by-a-client'))).toBe(false);
    expect(values.some((value) => value.includes('AAAAAAAAAAAAAAAAAAAAAA'))).toBe(false);
    expect(sample(text, 'fileshare_http_requests_total', { route: '/f/:id' })).toBeGreaterThan(0);
    expect(sample(text, 'fileshare_http_requests_total', { route: '/api/v1/files/:id' })).toBeGreaterThan(0);
    expect(sample(text, 'fileshare_http_requests_total', { route: 'other' })).toBeGreaterThan(0);
  });
});

describe('metrics on METRICS_PORT (the production server)', () => {
  let server: ServerProcess | undefined;
  afterEach(() => killIfRunning(server));

  it('when METRICS_PORT is set, then /metrics answers there (without a token) and the service port answers 404 for it', async () => {
    const metricsPort = await freePort();
    server = await startServer({
      env: { DATA_DIR: tempDir(), SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'warn', METRICS_PORT: String(metricsPort) },
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(sample(text, 'fileshare_http_requests_total', { route: '/healthz', status: '200' })).toBeGreaterThan(0);
    // The service's port answered its /metrics with a 404; the metrics port's own answers are not counted.
    expect(sample(text, 'fileshare_http_requests_total', { route: '/metrics', status: '404' })).toBe(1);
    expect(sample(text, 'fileshare_http_requests_total', { route: '/metrics', status: '200' })).toBe(0);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
  }, 60_000);

  it('when METRICS_PORT and METRICS_TOKEN are both set, then the metrics port asks for the token', async () => {
    const metricsPort = await freePort();
    server = await startServer({
      env: {
        DATA_DIR: tempDir(),
        SESSION_SECRET: TEST_SECRET,
        LOG_LEVEL: 'warn',
        METRICS_PORT: String(metricsPort),
        METRICS_TOKEN: TOKEN,
      },
    });
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, asScraper)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`, asScraper)).status).toBe(404);
  }, 60_000);
});

describe('metrics settings', () => {
  const base = { SESSION_SECRET: TEST_SECRET, DATA_DIR: '/tmp/unused', PORT: '3000' };

  it.each([
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN must be at least 16 characters'],
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT must differ from PORT'],
    [{ METRICS_PORT: '70000' }, 'METRICS_PORT must be a port between 1 and 65535'],
  ])('when %o, then the start is refused with one line naming the variable', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('when neither is set, then metrics are off', () => {
    expect(loadConfig(base).metrics).toEqual({ token: null, port: null });
  });
});
