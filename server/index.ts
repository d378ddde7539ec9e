// The process: config → database → app → listen, and a graceful close (README: Health, logs and stopping).
import http, { type ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { applyServerTimeouts } from './http/server-timeouts';
import { createDeps, startHousekeeping } from './deps';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const deps = await createDeps(config);
  const { log } = deps;
  for (const warning of config.startupWarnings) log.warn(warning);
  const stopHousekeeping = await startHousekeeping(deps);

  // config.ts is the only reader of the environment (.env.example lists it): the build sits in ./build.
  const buildPath = path.resolve('build/index.js');
  const build = (await import(pathToFileURL(buildPath).href)) as ServerBuild;
  const app = createApp({ ...deps, build, assetsDir: path.resolve('public/build') });

  const server = http.createServer(app);
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    log.info({ port, host: config.host, baseUrl: config.baseUrl }, 'listening');
  });
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
    stopHousekeeping();
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
      await deps.close();
      log.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
