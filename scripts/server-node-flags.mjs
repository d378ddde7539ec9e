// The node flags the server runs with, wherever it runs as it would in production: the
// container's CMD, `npm start`, `npm run bench` and the tests that start it like the container.
// tests/ops/deploy-files.test.ts checks that the Dockerfile and package.json say the same.
//
// --max-semi-space-size=2: V8 lets its young generation grow to 2 × 16 MiB, and keeps it; the
// server reaches that size while starting and then idles ~15 MB heavier. Streaming allocates
// a fresh buffer per socket read; a smaller young generation collects them sooner, so an
// upload's peak is lower too. Measured in docs/performance.md, decided in ADR 0007.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=2'];
