// The process: config → folders and secret on disk → database → app → listen, and a graceful close (README: Health, logs and stopping).
import http, { type ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { createApp } from './app';
import { discoverOidcProvider, type OidcProvider } from './auth/oidc-client';
import { ConfigError, describeDatabase, loadConfig, type Config } from './config';
import { applyServerTimeouts } from './http/server-timeouts';
import { errorSummary } from './utilities/logged-errors';
import { listenForMetrics } from './metrics';
import { createDeps, type Deps, startHousekeeping } from './deps';
import { createServiceContext } from './context';
import { countAdmins, NO_ADMIN_HINT } from './services/admins';
import { provision } from './provision';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config: Config;
  let oidc: OidcProvider | null;
  try {
    config = provision(loadConfig());
    // The provider is asked for its configuration now: a wrong OIDC_ISSUER stops the start.
    oidc = await discoverOidcProvider(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  let deps: Deps;
  try {
    deps = await createDeps(config);
  } catch (error) {
    throw new Error(
      `cannot open the database ${describeDatabase(config)} (${config.databaseVariable}): ${errorSummary(error)}`,
    );
  }
  const { log } = deps;
  for (const warning of config.startupWarnings) log.warn(warning);
  if ((await countAdmins(createServiceContext(deps))) === 0) log.info(NO_ADMIN_HINT);
  const stopHousekeeping = await startHousekeeping(deps);

  // config.ts is the only reader of the environment (.env.example lists it): the build sits in ./build.
  const buildPath = path.resolve('build/index.js');
  const build = (await import(pathToFileURL(buildPath).href)) as ServerBuild;
  const app = createApp({ ...deps, build, assetsDir: path.resolve('public/build'), oidc });

  const server = http.createServer(app);
  await listen(server, config);
  // Prometheus metrics on a port of their own (ADR 0049): then the service's port has no /metrics.
  const metricsServer = config.metrics.port === null ? null : await listenForMetrics(deps);
  applyServerTimeouts(server, config);

  // Keep-alive connections must not hold the exit up for their idle timeout once their last
  // answer is out: while closing, every answer closes its connection (`Connection: close`).
  let closing = false;
  const inFlight = new Set<ServerResponse>();
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (closing) res.shouldKeepAlive = false;
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });

  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    // Deliveries under way end within their timeout, as the requests do within the grace period.
    const housekeepingStopped = stopHousekeeping();
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    log.info({ signal, inFlight: inFlight.size }, 'shutting down: finishing in-flight requests');
    for (const res of inFlight) {
      if (!res.headersSent) res.shouldKeepAlive = false;
      // Already answering as keep-alive (a long download): close the connection once it is idle.
      else res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
    }
    const forced = setTimeout(() => {
      log.warn('grace period over: closing remaining connections');
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    forced.unref();
    server.close(async () => {
      clearTimeout(forced);
      await housekeepingStopped;
      await deps.close();
      log.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  // Said last: whoever waits for this line may send SIGTERM at once, and until the handlers
  // above exist, a SIGTERM kills the process without the graceful close.
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (!config.baseUrlSet) {
    log.info(
      `BASE_URL is not set: pages show links at the address each visitor opened; the API and webhooks use ${config.baseUrl}`,
    );
  }
  log.info({ port, host: config.host, baseUrl: config.baseUrl }, 'listening');
}

/** Listens on HOST:PORT; a port in use or a host that is not this machine's is one clear line naming the variable. */
function listen(server: http.Server, config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => reject(new Error(listenFailure(error, config)));
    server.once('error', refused);
    server.listen(config.port, config.host, () => {
      server.off('error', refused);
      resolve();
    });
  });
}

function listenFailure(error: NodeJS.ErrnoException, config: Config): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return `PORT ${config.port} is already in use on HOST ${config.host}: stop what uses it, or choose another PORT`;
    case 'EACCES':
      return `PORT ${config.port} needs privileges this process does not have: choose a PORT above 1023`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${config.host} is not an address of this machine (${error.code}): use 0.0.0.0, 127.0.0.1 or one of its addresses`;
    default:
      return `cannot listen on HOST ${config.host}, PORT ${config.port}: ${error.message}`;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${errorSummary(error)}\n`);
  process.exit(1);
});
