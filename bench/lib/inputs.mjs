// The input files of the large-file measures, generated once per size into the run's input dir.
import { randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { log } from './log.mjs';
import { MiB } from './settings.mjs';
import { sizeLabel } from './stats.mjs';

/** A file of random bytes, written in 1 MiB chunks (never held in memory). */
function makeRandomFile(file, bytes) {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.allocUnsafe(Math.min(MiB, Math.max(bytes, 1)));
  try {
    for (let written = 0; written < bytes; ) {
      const n = Math.min(chunk.length, bytes - written);
      randomFillSync(chunk, 0, n);
      fs.writeSync(fd, chunk, 0, n);
      written += n;
    }
    // On disk before any measure: its writeback must not land in the middle of one.
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The input of a large-file measure, generated once per size and shared by the phases. */
export function largeInput(inputDir, mb) {
  const input = path.join(inputDir, `large-${mb}.bin`);
  if (!fs.existsSync(input)) {
    log(`${sizeLabel(mb)}: generating the input file`);
    makeRandomFile(input, mb * MiB);
  }
  return input;
}
