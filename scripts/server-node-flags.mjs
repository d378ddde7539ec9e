// The node flags and environment the server runs with, read from scripts/start-server.sh (the
// one place they are written, with why each is there: ADR 0074), for what starts the server
// itself as the container would: `npm run bench`, vitest's workers and the tests that spawn it.
import fs from 'node:fs';

const starter = fs.readFileSync(new URL('./start-server.sh', import.meta.url), 'utf8');

/** The `--flag \` lines of the `exec node` command, in order. */
export const SERVER_NODE_FLAGS = [...starter.matchAll(/^\s+(--[a-z-]+(?:=\S+)?) \\$/gm)].map((match) => match[1]);

/** The `export NAME=value` lines. */
export const SERVER_ENV = Object.fromEntries(
  [...starter.matchAll(/^export ([A-Z_]+)=(\S+)$/gm)].map((match) => [match[1], match[2]]),
);
