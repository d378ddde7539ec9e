#!/bin/sh
# Starts the server with the node flags and environment it runs with in production: `npm start`
# and the container's CMD run this file (`sh scripts/start-server.sh <entry file>`), and the tests
# and `npm run bench`, which start the server themselves, read the flags and variables from it
# (scripts/server-node-flags.mjs). It is the one place they are written (ADR 0074). `exec`: node
# replaces this shell, so no process stays behind, and signals reach the server.
#
# One variable per `export NAME=value` line, one flag per indented `--flag \` line: the reader
# in server-node-flags.mjs takes exactly those lines.

# MALLOC_ARENA_MAX=2: glibc gives each thread that allocates (V8's compiler and collector
# helpers, libuv's pool) a memory arena of its own, and each keeps what was freed in it. Two
# arenas in all hold the server ~8 MB lower while it takes an upload, for no CPU we could
# measure (ADR 0053).
export MALLOC_ARENA_MAX=2

# MALLOC_MMAP_THRESHOLD_=131072: glibc maps a block of 128 KiB or more on its own and gives it
# back when it is freed, but by default it then raises that threshold to the size of the block
# (up to 32 MiB), after which such blocks come from the arenas and stay there. libvips makes a
# thumbnail with rows of some hundreds of KiB: with the threshold held at glibc's starting
# value the server comes back within ~15 MB of where it was after a burst of thumbnails, not
# ~50 MB above it (ADR 0061).
export MALLOC_MMAP_THRESHOLD_=131072

# Both are read by glibc when the process starts: environment variables, set before node, not flags.
#
# --max-semi-space-size=1: V8 lets its young generation grow to 2 × 16 MiB, and keeps it; the
# server reaches that size while starting and then idles ~15 MB heavier. Streaming allocates
# a fresh buffer per socket read, freed only by a young collection: a smaller young generation
# collects them sooner, so an upload's peak is lower too (ADR 0007 chose 2 MiB, ADR 0053 1 MiB).
#
# --minor-gc-task-trigger=20: V8 schedules a young collection, between two turns of the event
# loop, once 20 % of the young generation is used (80 % by default). A body's buffers are
# outside V8's heap and its few small objects fill the young generation slowly: at 80 % the
# dead buffers of an upload piled up to ~40 MB between two collections, at 20 % they stay
# under 10 MB (ADR 0053).
#
# --heap-growing-percent=100: after a full collection V8 lets the old generation grow to twice
# what survived before it collects again. V8 counts the socket buffers of a streamed body
# (dead, but not yet collected) against that room; with the quarter of the live heap we gave it
# before (=25), a large upload started a full collection every ~30 MiB and paid twice the bare
# server's CPU per GiB. Twice the live heap leaves room for them: the same CPU as the bare
# server, for 25-35 MB more after bursts of small requests (docs/performance.md, ADR 0052;
# ADR 0020 chose 25).
#
# --expose-gc: the server asks for a young-generation collection every 2 MiB of a body whose
# chunks nothing keeps (uploads to and downloads from S3, refused bodies), so they are freed
# before they pile up (server/young-collection-pacer.ts, ADR 0023): it holds a 1 GiB S3
# download ~10 MB lower. Without the flag the server works the same.
#
# On the command line, not in NODE_OPTIONS: Node refuses --minor-gc-task-trigger and
# --heap-growing-percent there, and NODE_OPTIONS would pass them on to every node the server starts.
exec node \
  --max-semi-space-size=1 \
  --minor-gc-task-trigger=20 \
  --heap-growing-percent=100 \
  --expose-gc \
  "$@"
