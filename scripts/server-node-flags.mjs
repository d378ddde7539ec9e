// The node flags the server runs with, wherever it runs as it would in production: the
// container's CMD, `npm start`, `npm run bench` and the tests that start it like the container.
// tests/ops/deploy-files.test.ts checks that the Dockerfile and package.json say the same.
//
// --max-semi-space-size=2: V8 lets its young generation grow to 2 × 16 MiB, and keeps it; the
// server reaches that size while starting and then idles ~15 MB heavier. Streaming allocates
// a fresh buffer per socket read; a smaller young generation collects them sooner, so an
// upload's peak is lower too. Measured in docs/performance.md, decided in ADR 0007.
//
// --heap-growing-percent=100: after a full collection V8 lets the old generation grow to twice
// what survived before it collects again. V8 counts the socket buffers of a streamed body
// (dead, but not yet collected) against that room; with the quarter of the live heap we gave it
// before (=25), a large upload started a full collection every ~30 MiB and paid twice the bare
// server's CPU per GiB. Twice the live heap leaves room for them: the same CPU as the bare
// server and the same upload peaks, for 25-35 MB more after bursts of small requests
// (docs/performance.md, ADR 0052; ADR 0020 chose 25).
//
// --expose-gc: the server asks for a young-generation collection every 2 MiB of a body whose
// chunks nothing keeps (uploads to and downloads from S3, refused bodies), so they are freed
// before they pile up (server/young-collection-pacer.ts, ADR 0023): it holds a 1 GiB S3
// transfer ~30 MB lower. Without the flag the server works the same.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=2', '--heap-growing-percent=100', '--expose-gc'];
