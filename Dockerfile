# syntax=docker/dockerfile:1
# The file-sharing service as a container image (docs/decisions/0005-container-and-production-start.md).
#
#   docker build -t filesharing .
#   docker run -d --name filesharing -p 3000:3000 -v filesharing-data:/data --env-file .env filesharing
#
# Two stages on the same pinned Node 22 LTS base: the build stage compiles sqlite3 from source,
# builds the app and drops the dev dependencies; the runtime stage gets only what
# `node dist/server/index.js` needs, and runs it as the unprivileged `node` user.
# tests/ops/production-start.test.ts runs the same steps (prune, start, health) without Docker.

# Bump both stages at once, to a tag that names the exact version (never `latest`).
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build

# node-gyp needs a compiler and python to build sqlite3.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# sqlite3 is compiled here against this image's own Node headers (/usr/local/include/node):
# no prebuilt binary from GitHub, no header download; only the npm registry is used.
ENV npm_config_build_from_source=sqlite3 \
    npm_config_nodedir=/usr/local \
    npm_config_audit=false \
    npm_config_fund=false \
    npm_config_update_notifier=false

# Dependencies first, so that a source change does not reinstall them. Install scripts must run
# (sqlite3 builds in its install script; package.json `allowScripts` approves sqlite3 and esbuild).
COPY package.json package-lock.json ./
RUN npm ci

COPY . .
RUN npm run build \
 && npm prune --omit=dev \
 && test ! -e node_modules/vitest \
 && test -e node_modules/sqlite3/build/Release/node_sqlite3.node

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime

ENV NODE_ENV=production \
    DATA_DIR=/data

WORKDIR /app

# The app's files belong to root and are read-only for the service; only /data is writable.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/build ./build
COPY --from=build /app/public ./public
COPY --from=build /app/scripts/start-server.sh ./scripts/start-server.sh

# Created before VOLUME so that a new named volume starts out owned by the `node` user.
RUN mkdir -p /data && chown node:node /data

# The `node` user of the official image (uid/gid 1000), numeric so that orchestrators can
# check it is not root. A bind mount for /data must be writable by uid 1000.
USER 1000:1000

VOLUME /data
EXPOSE 3000

# No curl in the slim image: Node's own fetch asks /healthz (200 only when the database answers
# and /data/uploads takes writes). Keep in step with the healthcheck in compose.yaml.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# SIGTERM (docker stop) lets in-flight uploads finish for up to 10 s: stop with a longer
# timeout (`docker stop -t 15`, compose `stop_grace_period: 15s`) so Docker does not kill it first.
STOPSIGNAL SIGTERM

# Exec form, and the script execs node: node is the process that receives SIGTERM (no shell
# stays in between). The script holds the node flags and the glibc variables the server runs
# with, as `npm start` does (ADR 0074). Migrations run at every start, idempotently, before the
# server listens.
CMD ["sh", "scripts/start-server.sh", "dist/server/index.js"]
