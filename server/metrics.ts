// Prometheus metrics of one instance (ADR 0049): what it answered, how fast, the bytes it moved,
// uploads under way, sweeps, refused logins and dependency errors, and prom-client's default
// process metrics. Off unless METRICS_TOKEN or METRICS_PORT is set: then `createMetrics` gives a
// registry and the request listener is wrapped (`withRequestMetrics`); off, every hook is a
// no-op and the listener is left as it is.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Dependency } from './utilities/errors';

/** The sweeps of the housekeeping (server/services/maintenance.ts). */
type Sweep = 'storage' | 'expired_files' | 'resumable_uploads';
/** What the throttle refused an attempt at (server/services/login-throttle.ts). */
type ThrottledAttempt = 'login' | 'share_password';

/** What the services report; every method is a no-op while metrics are off. */
export interface Metrics {
  /** The registry to expose; null while metrics are off. */
  readonly registry: Registry | null;
  /** A password (or second-factor code) check failed. */
  loginFailed(): void;
  /** The throttle refused an attempt before its password was checked (429). */
  throttleRefused(attempt: ThrottledAttempt): void;
  /** A request failed because the database or the storage could not be reached (ADR 0030). */
  dependencyFailed(dependency: Dependency): void;
  /** A sweep ran and removed `removed` items (files, leftovers, uploads). */
  swept(sweep: Sweep, removed: number): void;
  /** How to count the resumable uploads open, read when Prometheus scrapes. */
  countResumableUploadsWith(count: () => Promise<number>): void;
}

const OFF: Metrics = {
  registry: null,
  loginFailed() {},
  throttleRefused() {},
  dependencyFailed() {},
  swept() {},
  countResumableUploadsWith() {},
};

/** The metrics of this process: a registry of its own when on, the no-op hooks when off. */
export function createMetrics(config: { metrics: { token: string | null; port: number | null } }): Metrics {
  if (config.metrics.token === null && config.metrics.port === null) return OFF;
  return new PrometheusMetrics();
}

/** Seconds: from a raw download of a few KiB to a GiB upload on a slow link. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  /** Requests, their durations and bytes: plain sums, read by Prometheus when it scrapes. */
  readonly tally = new RequestTally(this.registry);
  readonly uploadsInFlight = new Gauge({
    name: 'fileshare_uploads_in_flight',
    help: 'Uploads being received by this instance (multipart uploads, resumable upload requests)',
    registers: [this.registry],
  });
  private countResumableUploads: (() => Promise<number>) | null = null;
  readonly resumableUploadsOpen = (() => {
    const metrics = this;
    return new Gauge({
      name: 'fileshare_resumable_uploads_open',
      help: 'Resumable uploads begun and not yet finished or expired (of the whole service, read from the database)',
      registers: [this.registry],
      async collect() {
        if (!metrics.countResumableUploads) return;
        // A database that does not answer leaves the last value: the scrape itself still answers.
        const open = await metrics.countResumableUploads().catch(() => null);
        if (open !== null) this.set(open);
      },
    });
  })();
  readonly sweeps = new Counter({
    name: 'fileshare_sweeps_total',
    help: 'Sweeps of the housekeeping run, by sweep',
    labelNames: ['sweep'] as const,
    registers: [this.registry],
  });
  readonly sweptItems = new Counter({
    name: 'fileshare_swept_items_total',
    help: 'What the sweeps removed (files whose links ended, leftovers, unfinished uploads), by sweep',
    labelNames: ['sweep'] as const,
    registers: [this.registry],
  });
  readonly loginFailures = new Counter({
    name: 'fileshare_login_failures_total',
    help: 'Password or second-factor checks that failed',
    registers: [this.registry],
  });
  readonly throttleRefusals = new Counter({
    name: 'fileshare_throttle_refusals_total',
    help: 'Attempts refused by the throttle before any check (429), by attempt',
    labelNames: ['attempt'] as const,
    registers: [this.registry],
  });
  readonly dependencyErrors = new Counter({
    name: 'fileshare_dependency_errors_total',
    help: 'Requests that failed because the database or the storage could not be reached, by dependency',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Every series of a label set that is known in advance shows from the first scrape, at 0.
    for (const sweep of ['storage', 'expired_files', 'resumable_uploads'] as const) {
      this.sweeps.labels(sweep);
      this.sweptItems.labels(sweep);
    }
    for (const attempt of ['login', 'share_password'] as const) this.throttleRefusals.labels(attempt);
    for (const dependency of ['database', 'storage'] as const) this.dependencyErrors.labels(dependency);
  }

  loginFailed(): void {
    this.loginFailures.inc();
  }
  throttleRefused(attempt: ThrottledAttempt): void {
    this.throttleRefusals.labels(attempt).inc();
  }
  dependencyFailed(dependency: Dependency): void {
    this.dependencyErrors.labels(dependency).inc();
  }
  swept(sweep: Sweep, removed: number): void {
    this.sweeps.labels(sweep).inc();
    if (removed > 0) this.sweptItems.labels(sweep).inc(removed);
  }
  countResumableUploadsWith(count: () => Promise<number>): void {
    this.countResumableUploads = count;
  }
}

// ---------------------------------------------------------------------------- the requests' tally
interface RequestCount {
  labels: { method: string; route: string; status: string };
  value: number;
}
interface RouteTally {
  /** Requests per duration bucket (not cumulative), the last one past the largest bound. */
  buckets: number[];
  sum: number;
  count: number;
  uploaded: number;
  downloaded: number;
}
type Sample = { value: number; labels: Record<string, string | number>; metricName?: string };

/**
 * What every request adds, kept as plain numbers: prom-client's own counters hash their labels
 * on each call, which cost more than the rest of the counting together. The registry reads these
 * sums as four metrics of its own when Prometheus scrapes.
 */
class RequestTally {
  private readonly requests = new Map<string, RequestCount>();
  private readonly routes = new Map<string, RouteTally>();

  constructor(registry: Registry) {
    const requests = () => [...this.requests.values()];
    const routes = () => [...this.routes.entries()];
    this.register(registry, 'fileshare_http_requests_total', 'counter', HELP.requests, requests);
    this.register(registry, 'fileshare_http_request_duration_seconds', 'histogram', HELP.duration, () =>
      routes().flatMap(([route, tally]) => histogramSamples('fileshare_http_request_duration_seconds', route, tally)),
    );
    this.register(registry, 'fileshare_bytes_uploaded_total', 'counter', HELP.uploaded, () =>
      routes().map(([route, tally]) => ({ labels: { route }, value: tally.uploaded })),
    );
    this.register(registry, 'fileshare_bytes_downloaded_total', 'counter', HELP.downloaded, () =>
      routes().map(([route, tally]) => ({ labels: { route }, value: tally.downloaded })),
    );
  }

  count(method: string, route: string, status: number, seconds: number, read: number, written: number): void {
    const key = `${method} ${route} ${status}`;
    const counted = this.requests.get(key);
    if (counted) counted.value++;
    else this.requests.set(key, { labels: { method, route, status: String(status) }, value: 1 });
    let tally = this.routes.get(route);
    if (!tally) {
      tally = { buckets: new Array(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0, uploaded: 0, downloaded: 0 };
      this.routes.set(route, tally);
    }
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++;
    tally.buckets[bucket]++;
    tally.sum += seconds;
    tally.count++;
    tally.uploaded += read;
    tally.downloaded += written;
  }

  private register(registry: Registry, name: string, type: string, help: string, values: () => Sample[]): void {
    const metric = { name, help, type, get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }) };
    registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }
}

const HELP = {
  requests: 'HTTP requests answered, by method, route template and status code',
  duration: 'Time from a request to the end of its answer, by route template',
  uploaded: 'Bytes received from clients (requests, headers and bodies), by route template',
  downloaded: 'Bytes sent to clients (answers, headers and bodies), by route template',
};

/** A histogram's samples in Prometheus's form: cumulative buckets, +Inf, sum and count. */
function histogramSamples(name: string, route: string, tally: RouteTally): Sample[] {
  const samples: Sample[] = [];
  let cumulative = 0;
  DURATION_BUCKETS.forEach((le, i) => {
    cumulative += tally.buckets[i];
    samples.push({ metricName: `${name}_bucket`, labels: { le, route }, value: cumulative });
  });
  samples.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', route }, value: tally.count });
  samples.push({ metricName: `${name}_sum`, labels: { route }, value: tally.sum });
  samples.push({ metricName: `${name}_count`, labels: { route }, value: tally.count });
  return samples;
}

// ---------------------------------------------------------------------------- route templates
/**
 * Paths by template: a label never holds a file id, a token or anything else a client chose.
 * A path that is none of these is "other" (a new route adds its template here).
 */
const EXACT_ROUTES = new Set([
  '/',
  '/healthz',
  '/metrics',
  '/favicon.ico',
  '/files',
  '/login',
  '/logout',
  '/upload',
  '/settings',
  '/settings/sharex',
  '/api/v1/auth/login',
  '/api/v1/auth/logout',
  '/api/v1/files',
  '/api/v1/uploads',
  '/api/v1/collections',
  '/api/v1/tokens',
  '/api/v1/me',
  '/api/v1/me/password',
  '/api/v1/me/2fa',
  '/api/v1/me/2fa/confirm',
  '/api/v1/sessions',
  '/api/v1/openapi.json',
  '/api/v1/webhooks',
  '/api/v1/requests',
  '/auth/oidc/start',
  '/auth/oidc/callback',
]);
const SEGMENT = '[^/]+';
const TEMPLATES: [RegExp, string][] = [
  ['/f/:id/raw', '/f/:id', '/f/:id/thumbnail', '/c/:id', '/c/:id/archive'],
  ['/api/v1/files/:id', '/api/v1/uploads/:id', '/api/v1/collections/:id', '/api/v1/collections/:id/files'],
  ['/api/v1/collections/:id/files/:fileId', '/api/v1/tokens/:id', '/api/v1/sessions/:id'],
  ['/api/v1/webhooks/:id', '/api/v1/webhooks/:id/deliveries', '/api/v1/webhooks/:id/deliveries/:deliveryId/resend'],
  ['/api/v1/requests/:id', '/r/:id'],
  ['/files/:id/delete', '/collections/:id/delete', '/uploads/:id/cancel', '/trpc/:procedure'],
]
  .flat()
  .map((template) => [new RegExp(`^${template.replace(/:\w+/g, SEGMENT)}$`), template]);

/** The route template of a request's URL: its path's, without the query. */
function routeTemplate(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (EXACT_ROUTES.has(path)) return path;
  if (path.startsWith('/build/')) return '/build/*';
  for (const [pattern, template] of TEMPLATES) if (pattern.test(path)) return template;
  return 'other';
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Requests whose body is an upload: counted in flight while they are received and answered. */
const UPLOADS = new Set([
  'POST /api/v1/files',
  'POST /upload',
  'POST /api/v1/uploads',
  'PATCH /api/v1/uploads/:id',
  'POST /r/:id',
]);

// ---------------------------------------------------------------------------- the request listener
/** Bytes of a connection already counted (keep-alive: each request counts what came since the last). */
const countedRead = new WeakMap<Socket, number>();
const countedWritten = new WeakMap<Socket, number>();

/**
 * The listener counting every request it answers, the fast paths' included: method, route
 * template, status, duration and bytes once the answer ends (or the connection closes).
 */
function withRequestMetrics(metrics: Metrics, listener: RequestListener): RequestListener {
  if (!(metrics instanceof PrometheusMetrics)) return listener;
  return (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    // Read now: Express rewrites req.url inside its routers.
    const route = routeTemplate(req.url ?? '');
    const method = METHODS.has(req.method ?? '') ? (req.method as string) : 'other';
    const upload = UPLOADS.has(`${method} ${route}`);
    if (upload) metrics.uploadsInFlight.inc();
    const socket = req.socket;
    res.once('close', () => {
      if (upload) metrics.uploadsInFlight.dec();
      const read = socket.bytesRead;
      const written = socket.bytesWritten;
      metrics.tally.count(
        method,
        route,
        res.statusCode,
        (performance.now() - started) / 1000,
        read - (countedRead.get(socket) ?? 0),
        written - (countedWritten.get(socket) ?? 0),
      );
      countedRead.set(socket, read);
      countedWritten.set(socket, written);
    });
    listener(req, res);
  };
}

// ---------------------------------------------------------------------------- GET /metrics
interface MetricsSettings {
  metrics: Metrics;
  config: { metrics: { token: string | null; port: number | null } };
}

/**
 * The service's listener with its requests counted and, when metrics are on without a port of
 * their own, GET /metrics answered ahead of everything else. Off, the listener as it is.
 */
export function withMetrics({ metrics, config }: MetricsSettings, listener: RequestListener): RequestListener {
  if (!(metrics instanceof PrometheusMetrics)) return listener;
  const { token, port } = config.metrics;
  const answer = port === null ? metricsEndpoint(metrics, token) : null;
  return withRequestMetrics(metrics, (req, res) => {
    if (answer && isMetricsPath(req.url)) answer(req, res);
    else listener(req, res);
  });
}

/** The listener of METRICS_PORT: /metrics (behind the token when there is one), 404 for the rest. */
function metricsPortListener({ metrics, config }: MetricsSettings): RequestListener {
  const answer = metricsEndpoint(metrics, config.metrics.token);
  return (req, res) => {
    if (isMetricsPath(req.url)) return answer(req, res);
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
  };
}

const isMetricsPath = (url: string | undefined) => url === '/metrics' || url?.startsWith('/metrics?') === true;

/** GET or HEAD /metrics in the Prometheus text format; with a token, only for `Authorization: Bearer <token>`. */
function metricsEndpoint(metrics: Metrics, token: string | null): RequestListener {
  const expected = token === null ? null : digest(token);
  return (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('Method not allowed\n');
      return;
    }
    if (expected !== null && !bearerMatches(req.headers.authorization, expected)) {
      res
        .writeHead(401, { 'www-authenticate': 'Bearer realm="metrics"', 'content-type': 'text/plain; charset=utf-8' })
        .end('Unauthorized\n');
      return;
    }
    const registry = metrics.registry;
    if (!registry) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics unavailable\n');
      },
    );
  };
}

/** Compared as digests of equal length: the time taken says nothing about the token. */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The METRICS_PORT server, listening on HOST (ADR 0049); a port in use is one clear line naming the variable. */
export function listenForMetrics(settings: MetricsSettings & { config: { host: string } }): Promise<Server> {
  const { port } = settings.config.metrics;
  const server = createServer(metricsPortListener(settings));
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`cannot serve the metrics on METRICS_PORT ${port}: ${error.code ?? error.message}`)),
    );
    server.listen({ port: port ?? 0, host: settings.config.host }, () => resolve(server));
  });
}
