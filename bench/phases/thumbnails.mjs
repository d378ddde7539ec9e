// The thumbnails phase: BENCH_THUMBNAILS photos of 12 MP uploaded, their thumbnails made.
import { randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { download, runConcurrent, uploadFromDisk } from '../client.mjs';
import { assert, log } from '../lib/log.mjs';
import { record } from '../lib/results.mjs';
import { SET_UP_CLIENTS } from '../lib/service.mjs';
import { MiB, S } from '../lib/settings.mjs';
import { elapsedMs, round } from '../lib/stats.mjs';

const require = createRequire(import.meta.url);

/**
 * BENCH_THUMBNAILS JPEGs of 4000 × 3000 (12 MP), each a gradient under noise (a few MB, as a
 * phone photo: not trivially compressible), made with sharp into the input dir.
 */
async function thumbnailInputs(inputDir) {
  const sharp = require('sharp');
  const [width, height] = [4000, 3000];
  const files = [];
  const pixels = Buffer.allocUnsafe(width * height * 3);
  const noise = Buffer.allocUnsafe(pixels.length);
  log(`thumbnails: generating ${S.thumbnails} JPEGs of ${width} × ${height}`);
  for (let n = 0; n < S.thumbnails; n++) {
    const file = path.join(inputDir, `photo-${n}.jpg`);
    files.push(file);
    if (fs.existsSync(file)) continue;
    randomFillSync(noise);
    for (let y = 0, p = 0; y < height; y++) {
      for (let x = 0; x < width; x++, p += 3) {
        pixels[p] = ((x * 255) / width + n * 5 + (noise[p] & 31)) & 255;
        pixels[p + 1] = ((y * 255) / height + (noise[p + 1] & 31)) & 255;
        pixels[p + 2] = (((x + y) * 128) / width + (noise[p + 2] & 31)) & 255;
      }
    }
    await sharp(pixels, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 85 })
      .toFile(file);
  }
  return files;
}

/**
 * Thumbnails (ADR 0041): the images uploaded by SET_UP_CLIENTS clients, then each one's
 * /f/<id>/thumbnail asked until it answers 200 (a request for one being made waits for it).
 * The rate is the images over the time from the first upload to the last thumbnail; the
 * service's peak RSS is over the same time.
 */
export async function measureThumbnails({ port, cookie, inputDir, serviceRss }) {
  const files = await thumbnailInputs(inputDir);
  const inputBytes = files.reduce((sum, file) => sum + fs.statSync(file).size, 0);
  log(`thumbnails: ${files.length} uploads (${round(inputBytes / MiB)} MiB), then their thumbnails`);
  serviceRss.start();
  const t0 = process.hrtime.bigint();
  const stored = new Array(files.length);
  await runConcurrent(files.length, SET_UP_CLIENTS, async (i) => {
    const res = await uploadFromDisk({
      port,
      path: '/api/v1/files',
      file: files[i],
      filename: `photo-${i}.jpg`,
      cookie,
    });
    assert(res.status === 201, `image upload ${res.status}: ${JSON.stringify(res.body)}`);
    stored[i] = res.body.file;
  });
  const uploadedMs = elapsedMs(t0);
  let thumbnailBytes = 0;
  await runConcurrent(files.length, 2, async (i) => {
    for (let attempt = 0; ; attempt++) {
      const res = await download({ port, path: `/f/${stored[i].id}/thumbnail`, cookie });
      if (res.status === 200) {
        thumbnailBytes += res.bytes;
        return;
      }
      assert(attempt < 600, `thumbnail of ${stored[i].id}: still ${res.status} after a minute`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  const ms = elapsedMs(t0);
  const rss = serviceRss.stop();
  const note = `${files.length} JPEGs of 4000 × 3000 (${round(inputBytes / MiB / files.length, 1)} MiB each on average) uploaded by ${SET_UP_CLIENTS} clients in ${round(uploadedMs / 1000, 1)} s, then each /f/<id>/thumbnail until 200 (${round(thumbnailBytes / files.length / 1024, 1)} KiB each)`;
  record({
    group: 'thumbnails',
    measure: `thumbnails/s, ${files.length} images of 12 MP`,
    unit: '1/s',
    service: round(files.length / (ms / 1000), 2),
    note: `${note}; from the first upload to the last thumbnail, ${round(ms / 1000, 1)} s; informational`,
  });
  record({
    group: 'thumbnails',
    measure: 'peak RSS making thumbnails (MB)',
    unit: 'MB',
    service: rss.peakMb,
    target: '< 250 MB',
    check: (s) => s < 250,
    note: 'from the first upload to the last thumbnail; VmHWM reset before',
    detail: rss,
  });
}
