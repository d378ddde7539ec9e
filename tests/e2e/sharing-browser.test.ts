// Sharing in a real browser (Debian's Chromium via playwright-core): a shared video plays and
// seeks over byte ranges, an uploaded HTML page never runs (its raw link downloads it), the
// share pages of each kind of file look right (screenshots under test-output/screenshots),
// and a multi-MiB download arrives byte for byte.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { hasChromium, SKIP_NOTE, screenshotPath } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { startSharingApp, type SharingApp, type Uploaded } from '../sharing/support';

let app: SharingApp;
let browser: Browser;
let context: BrowserContext;

setUpBrowserSuite({ start: () => startSharingApp(), timeout: 90_000 }, async (suite) => {
  ({ app, browser } = suite);
  context = await browser.newContext({ viewport: { width: 1100, height: 800 }, acceptDownloads: true });
});

afterAll(async () => {
  await context?.close();
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

// ---------------------------------------------------------------------------------------------
// Media made on the spot: a WebM (VP8) recorded from a canvas, a PNG drawn on a canvas, a PDF
// written by hand. Nothing is downloaded, nothing proprietary (Debian's Chromium has no H.264).

interface Recorded {
  webm: Buffer;
  mimeType: string;
  durationMs: number;
}

async function recordWebm(page: Page, seconds: number): Promise<Recorded> {
  const result = await page.evaluate(async (ms) => {
    const canvas = document.createElement('canvas');
    canvas.width = 320;
    canvas.height = 180;
    document.body.append(canvas);
    const g = canvas.getContext('2d')!;
    const mimeType = ['video/webm;codecs=vp8', 'video/webm;codecs=vp9', 'video/webm'].find((t) =>
      MediaRecorder.isTypeSupported(t),
    );
    if (!mimeType) throw new Error('MediaRecorder cannot write WebM here');
    const recorder = new MediaRecorder(canvas.captureStream(30), { mimeType, videoBitsPerSecond: 400_000 });
    const chunks: Blob[] = [];
    recorder.ondataavailable = (event) => chunks.push(event.data);
    let frame = 0;
    const paint = () => {
      frame += 1;
      g.fillStyle = `hsl(${(frame * 5) % 360} 70% 45%)`;
      g.fillRect(0, 0, 320, 180);
      g.fillStyle = '#fff';
      g.font = 'bold 40px sans-serif';
      g.fillText(`frame ${frame}`, 60, 105);
    };
    paint();
    const timer = setInterval(paint, 33);
    const started = performance.now();
    recorder.start(200);
    await new Promise((resolve) => setTimeout(resolve, ms));
    await new Promise((resolve) => {
      recorder.onstop = resolve;
      recorder.stop();
    });
    const durationMs = performance.now() - started;
    clearInterval(timer);
    const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { base64: btoa(binary), mimeType, durationMs };
  }, seconds * 1000);
  return {
    webm: withWebmDuration(Buffer.from(result.base64, 'base64'), result.durationMs),
    mimeType: result.mimeType,
    durationMs: result.durationMs,
  };
}

/** Reads an EBML variable-size integer. */
function readVint(buf: Buffer, pos: number): { length: number; value: number } {
  const first = buf[pos];
  let length = 1;
  let mask = 0x80;
  while (length <= 8 && !(first & mask)) {
    length += 1;
    mask >>= 1;
  }
  let value = first & (mask - 1);
  for (let i = 1; i < length; i += 1) value = value * 256 + buf[pos + i];
  return { length, value };
}

/**
 * MediaRecorder writes live WebM: no Duration in the segment Info, so a player sees an
 * infinite duration. Adds it (in TimecodeScale units: MediaRecorder uses 1 ms), as any
 * muxer finishing a file would; the segment's size is "unknown", so nothing else moves.
 */
function withWebmDuration(webm: Buffer, durationMs: number): Buffer {
  const at = webm.indexOf(Buffer.from([0x15, 0x49, 0xa9, 0x66])); // Segment > Info
  if (at < 0) throw new Error('no Info element in the recorded WebM');
  const size = readVint(webm, at + 4);
  const payloadStart = at + 4 + size.length;
  const payload = webm.subarray(payloadStart, payloadStart + size.value);
  const duration = Buffer.alloc(11);
  duration.set([0x44, 0x89, 0x88]); // Duration, 8-byte float
  duration.writeDoubleBE(durationMs, 3);
  const newSize = Buffer.alloc(8);
  newSize[0] = 0x01; // an 8-byte vint
  newSize.writeUIntBE(size.value + duration.length, 2, 6);
  return Buffer.concat([
    webm.subarray(0, at + 4),
    newSize,
    payload,
    duration,
    webm.subarray(payloadStart + size.value),
  ]);
}

async function drawPng(page: Page): Promise<Buffer> {
  const dataUrl = await page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 480;
    canvas.height = 300;
    const g = canvas.getContext('2d')!;
    const gradient = g.createLinearGradient(0, 0, 480, 300);
    gradient.addColorStop(0, '#ff8a00');
    gradient.addColorStop(1, '#7b2ff7');
    g.fillStyle = gradient;
    g.fillRect(0, 0, 480, 300);
    g.fillStyle = '#fff';
    g.font = 'bold 44px sans-serif';
    g.fillText('Shared image', 90, 165);
    return canvas.toDataURL('image/png');
  });
  return Buffer.from(dataUrl.split(',')[1], 'base64');
}

/** A one-page PDF with a line of text, offsets computed so that every reader accepts it. */
function makePdf(text: string): Buffer {
  const stream = `BT /F1 28 Tf 72 700 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(pdf.length);
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/**
 * Opens a share page; returns the page and every answer the browser got for the page's preview
 * address (what its image, player and PDF load: ADR 0066) and for the raw link.
 */
async function openSharePage(uploaded: Uploaded) {
  const page = await context.newPage();
  const previewAnswers: Array<{ status: number; range: string | undefined }> = [];
  const rawAnswers: number[] = [];
  page.on('response', (response) => {
    const { pathname } = new URL(response.url());
    if (pathname === `/f/${uploaded.file.id}/preview`) {
      previewAnswers.push({ status: response.status(), range: response.request().headers().range });
    }
    if (pathname === `/f/${uploaded.file.id}/raw`) rawAnswers.push(response.status());
  });
  const response = await page.goto(uploaded.url, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  return { page, previewAnswers, rawAnswers };
}

/** The file as its owner's API shows it: views of its page and downloads apart. */
async function ownerCounts(uploaded: Uploaded): Promise<{ views: number; downloads: number }> {
  const res = await fetch(`${app.url}/api/v1/files/${uploaded.file.id}`, { headers: { cookie: app.cookie } });
  const { file } = (await res.json()) as { file: { views: number; downloads: number } };
  return { views: file.views, downloads: file.downloads };
}

let scratch: Page;
async function scratchPage(): Promise<Page> {
  scratch ??= await context.newPage();
  return scratch;
}

describe(`sharing in Chromium${SKIP_NOTE}`, () => {
  it.skipIf(!hasChromium)(
    'when a WebM video is shared, then it plays in Chromium, has a duration, seeks, and was served with 206 ranges',
    async () => {
      const recorded = await recordWebm(await scratchPage(), 4);
      expect(recorded.webm.length).toBeGreaterThan(10_000);
      const uploaded = await app.upload(recorded.webm, 'canvas clip.webm', 'video/webm');
      const { page, previewAnswers } = await openSharePage(uploaded);

      const video = page.locator('section.preview video');
      await expect
        .poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 15_000 })
        .toBeGreaterThanOrEqual(1);
      const duration = await video.evaluate((v: HTMLVideoElement) => v.duration);
      expect(duration).toBeGreaterThan(0);
      expect(Number.isFinite(duration)).toBe(true);
      expect(duration).toBeCloseTo(recorded.durationMs / 1000, 0);

      // It plays: time moves.
      await video.evaluate(async (v: HTMLVideoElement) => {
        v.muted = true;
        await v.play();
      });
      await expect
        .poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 10_000 })
        .toBeGreaterThan(0.3);
      await video.evaluate((v: HTMLVideoElement) => v.pause());

      // It seeks to a later point, and `seeked` fires there.
      const target = Math.round(duration * 0.75 * 10) / 10;
      const seekedAt = await video.evaluate(
        (v: HTMLVideoElement, to: number) =>
          new Promise<number>((resolve, reject) => {
            const timer = setTimeout(
              () => reject(new Error(`no seeked event (error: ${v.error?.message ?? 'none'})`)),
              10_000,
            );
            v.addEventListener(
              'seeked',
              () => {
                clearTimeout(timer);
                resolve(v.currentTime);
              },
              { once: true },
            );
            v.currentTime = to;
          }),
        target,
      );
      expect(seekedAt).toBeCloseTo(target, 0);
      expect(await video.evaluate((v: HTMLVideoElement) => v.error)).toBeNull();

      // Chromium's media stack asked the preview address for byte ranges, and got them.
      expect(previewAnswers.some((answer) => answer.range !== undefined)).toBe(true);
      expect(previewAnswers.some((answer) => answer.status === 206)).toBe(true);
      expect(previewAnswers.every((answer) => answer.status === 200 || answer.status === 206)).toBe(true);

      await page.screenshot({ path: screenshotPath('share-video'), fullPage: true });
      await page.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    'when the raw link of an uploaded HTML page is opened, then it is downloaded and its script never runs',
    async () => {
      const evil = `<!doctype html><title>untouched</title>
<script>document.title = 'pwned'; fetch('/api/v1/files?from=uploaded-script'); window.opener && (window.opener.document.title = 'pwned');</script>
<h1>If you can read this as a page, the upload was rendered</h1>`;
      const uploaded = await app.upload(evil, 'evil.html', 'text/html');
      const { page } = await openSharePage(uploaded);
      const scriptRequests: string[] = [];
      context.on('request', (request) => {
        if (request.url().includes('from=uploaded-script')) scriptRequests.push(request.url());
      });

      // On the share page its source shows as text, never as a page of its own.
      expect(await page.locator('section.preview iframe, section.preview object, section.preview embed').count()).toBe(
        0,
      );
      await expect.poll(() => page.locator('section.preview pre.text-preview').innerText()).toBe(evil);

      // Following the raw link (as a user pasting it would): the navigation becomes a download.
      const downloading = page.waitForEvent('download', { timeout: 10_000 });
      await page.evaluate((url) => {
        window.location.href = url;
      }, uploaded.rawUrl);
      const download = await downloading;
      expect(download.suggestedFilename()).toBe('evil.html');
      expect(fs.readFileSync((await download.path())!, 'utf8')).toBe(evil);

      // Still on the share page, with its own title; the script never ran anywhere.
      await page.waitForTimeout(500);
      expect(new URL(page.url()).pathname).toBe(`/f/${uploaded.file.id}`);
      expect(await page.title()).toBe('evil.html · File sharing');
      expect(scriptRequests).toEqual([]);

      // Opening it directly in a fresh tab: a download again, never a document.
      const tab = await context.newPage();
      const again = tab.waitForEvent('download', { timeout: 10_000 });
      await tab.goto(uploaded.rawUrl).catch(() => undefined); // goto rejects: "Download is starting"
      expect((await again).suggestedFilename()).toBe('evil.html');
      expect(await tab.evaluate(() => document.title)).not.toBe('pwned');
      expect(scriptRequests).toEqual([]);

      await page.screenshot({ path: screenshotPath('share-html'), fullPage: true });
      await tab.close();
      await page.close();
    },
    45_000,
  );

  it.skipIf(!hasChromium)(
    'when an uploaded SVG with a script is opened by its raw link, then it is downloaded, not rendered',
    async () => {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg"><script>fetch('/api/v1/files?from=uploaded-script')</script></svg>`;
      const uploaded = await app.upload(svg, 'drawing.svg', 'image/svg+xml');
      const tab = await context.newPage();
      const requests: string[] = [];
      tab.on('request', (request) => requests.push(request.url()));
      const downloading = tab.waitForEvent('download', { timeout: 10_000 });
      await tab.goto(uploaded.rawUrl).catch(() => undefined);
      expect((await downloading).suggestedFilename()).toBe('drawing.svg');
      expect(requests.filter((url) => url.includes('from=uploaded-script'))).toEqual([]);
      await tab.close();
    },
    30_000,
  );

  it.skipIf(!hasChromium)(
    'when an image is shared, then its page shows the image, loaded',
    async () => {
      const png = await drawPng(await scratchPage());
      const uploaded = await app.upload(png, 'sunset gradient.png', 'image/png');
      const { page } = await openSharePage(uploaded);
      const img = page.locator('section.preview img');
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(480);
      expect(await img.evaluate((el: HTMLImageElement) => el.naturalHeight)).toBe(300);
      expect(await page.locator('h1').innerText()).toBe('sunset gradient.png');
      await page.screenshot({ path: screenshotPath('share-image'), fullPage: true });
      await page.close();
    },
    30_000,
  );

  it.skipIf(!hasChromium)(
    'when a text file is shared, then its page shows the text, with markup in it as plain text',
    async () => {
      const text =
        'Meeting notes\n=============\n\n- ship the share page\n- <script>alert("not run")</script> stays text\n- naïve café ☕\n';
      const uploaded = await app.upload(text, 'notes.txt', 'text/plain');
      const dialogs: string[] = [];
      const { page } = await openSharePage(uploaded);
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      expect(await page.locator('pre.text-preview').innerText()).toBe(text);
      await page.waitForTimeout(300);
      expect(dialogs).toEqual([]);
      await page.screenshot({ path: screenshotPath('share-text'), fullPage: true });
      await page.close();
    },
    30_000,
  );

  it.skipIf(!hasChromium)(
    'when a PDF named "résumé 📄.pdf" is shared, then its page shows the exact name, embeds the PDF and downloads it under that name',
    async () => {
      const pdf = makePdf('Hello from a shared PDF');
      const uploaded = await app.upload(pdf, 'résumé 📄.pdf', 'application/pdf');
      expect(uploaded.file.originalName).toBe('résumé 📄.pdf');
      const { page, previewAnswers } = await openSharePage(uploaded);
      expect(await page.locator('h1').innerText()).toBe('résumé 📄.pdf');
      expect(await page.title()).toBe('résumé 📄.pdf · File sharing');
      const frame = page.locator('section.preview iframe');
      expect(await frame.getAttribute('src')).toBe(`/f/${uploaded.file.id}/preview`);
      // The embedded viewer loaded the PDF from the preview address.
      await expect
        .poll(() => previewAnswers.some((answer) => answer.status === 200 || answer.status === 206), {
          timeout: 10_000,
        })
        .toBe(true);
      await page.waitForTimeout(1500); // let the viewer paint before the screenshot
      await page.screenshot({ path: screenshotPath('share-pdf'), fullPage: true });

      const downloading = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Download' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe('résumé 📄.pdf');
      expect(sha256(fs.readFileSync((await download.path())!))).toBe(sha256(pdf));
      await page.close();
    },
    30_000,
  );

  it.skipIf(!hasChromium)(
    'when a multi-MiB file is downloaded from its share page, then the browser saves exactly the uploaded bytes',
    async () => {
      const content = randomBytes(5 * 1024 * 1024 + 777);
      const uploaded = await app.upload(content, 'dataset.bin', 'application/octet-stream');
      const { page } = await openSharePage(uploaded);
      const downloading = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Download' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe('dataset.bin');
      const saved = fs.readFileSync((await download.path())!);
      expect(saved.length).toBe(content.length);
      expect(sha256(saved)).toBe(sha256(content));
      await page.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    'when a visitor opens the share pages of a video and an image with JavaScript on and the media load, then the owner sees 1 view and 0 downloads of each; clicking Download then counts 1',
    async () => {
      const recorded = await recordWebm(await scratchPage(), 2);
      const video = await app.upload(recorded.webm, 'watched.webm', 'video/webm');
      const image = await app.upload(await drawPng(await scratchPage()), 'looked at.png', 'image/png');

      const watching = await openSharePage(video);
      const player = watching.page.locator('section.preview video');
      await expect
        .poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 15_000 })
        .toBeGreaterThanOrEqual(1);
      // Played and sought, as a viewer would: every range the player asks is a look, not a download.
      await player.evaluate(async (v: HTMLVideoElement) => {
        v.muted = true;
        await v.play();
        v.pause();
        await new Promise<void>((resolve) => {
          v.addEventListener('seeked', () => resolve(), { once: true });
          v.currentTime = v.duration * 0.8;
        });
      });
      const looking = await openSharePage(image);
      const picture = looking.page.locator('section.preview img');
      await expect.poll(() => picture.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(480);

      expect(watching.previewAnswers.length).toBeGreaterThan(0);
      expect(looking.previewAnswers.map((answer) => answer.status)).toEqual([200]);
      expect([...watching.rawAnswers, ...looking.rawAnswers]).toEqual([]);
      await expect.poll(() => ownerCounts(video)).toEqual({ views: 1, downloads: 0 });
      await expect.poll(() => ownerCounts(image)).toEqual({ views: 1, downloads: 0 });

      const downloading = looking.page.waitForEvent('download');
      await looking.page.getByRole('link', { name: 'Download' }).click();
      expect((await downloading).suggestedFilename()).toBe('looked at.png');
      await expect.poll(() => ownerCounts(image)).toEqual({ views: 1, downloads: 1 });
      expect(await ownerCounts(video)).toEqual({ views: 1, downloads: 0 });
      await watching.page.close();
      await looking.page.close();
    },
    60_000,
  );
});
