// The node flags the server runs with, wherever it runs as it would in production: the
// container's CMD, `npm start`, `npm run bench` and the tests that start it like the container.
// tests/ops/deploy-files.test.ts checks that the Dockerfile and package.json say the same.
//
// --max-semi-space-size=2: V8 lets its young generation grow to 2 × 16 MiB, and keeps it; the
// server reaches that size while starting and then idles ~15 MB heavier. Streaming allocates
// a fresh buffer per socket read; a smaller young generation collects them sooner, so an
// upload's peak is lower too. Measured in docs/performance.md, decided in ADR 0007.
//
// --heap-growing-percent=25: after a full collection V8 lets the old generation grow to up to
// four times what survived before it collects again. Under many small requests what survives
// the small young generation is mostly garbage promoted while requests were in flight, so the
// server grew to 190 MB and stayed there. Collecting at 1.25 times the live heap kept it at
// 113 MB under 32 uploading clients, for about the same CPU (docs/performance.md, ADR 0020).
//
// --expose-gc: the server asks for a young-generation collection every 2 MiB of a streamed
// upload body, so its buffers are freed before V8 counts them against the old generation's
// room and starts a full collection (server/young-collection-pacer.ts, ADR 0023). It
// halved the CPU of a resumable 1 GiB upload. Without the flag the server works the same.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=2', '--heap-growing-percent=25', '--expose-gc'];
