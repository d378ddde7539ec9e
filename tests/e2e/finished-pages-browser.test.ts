// Whether the pages look finished in Chromium, at 1280 px and on a 390 px phone, in the light and
// the dark colour scheme: nothing touches its neighbour, nothing scrolls sideways, the header does
// not move from page to page, no icon depends on an emoji font, and the file request form starts
// empty again after it made a request.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { fileForm, type TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { sampleOf } from '../helpers/file-samples';
import { snap, waitForHydration } from '../helpers/pages-browser';
import { makePng, postForm } from '../helpers/pages-fixtures';
import { tusClient } from '../helpers/tus';
import { type Receiver, startReceiver } from '../webhooks/receiver';

const STEP_TIMEOUT = 180_000;

let app: TestApp;
let browser: Browser;
let receiver: Receiver;
let cookie: string;
const ids = { locked: '', collection: '' };

async function upload(filename: string, type: string, content: string | Uint8Array, fields = {}) {
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm(content, filename, type, 'file', fields),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { file: { id: string } }).file.id;
}

async function newRequest(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${app.url}/api/v1/requests`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { request: { id: string } }).request.id;
}

async function guestSends(requestId: string, fields: Record<string, string>, name: string) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('file', new Blob([`content of ${name}`]), name);
  const res = await fetch(`${app.url}/r/${requestId}`, { method: 'POST', body: form });
  expect(res.status).toBe(201);
  await res.text();
}

setUpBrowserSuite(
  {
    env: { WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_RETRY_BASE_MS: '3600000' },
    users: ['mira'],
    timeout: STEP_TIMEOUT,
  },
  async (suite) => {
    ({ app, browser } = suite);
    [cookie] = suite.cookies;
    // The first delivery is answered 200, the next ones 503: the table has both kinds of row.
    receiver = await startReceiver((nth) => (nth === 1 ? 200 : 503));
    const hook = await postForm(
      app,
      '/settings',
      { intent: 'add-webhook', url: receiver.url, events: 'file.uploaded' },
      { cookie },
    );
    expect(hook.status).toBe(201);

    const notes = await upload('notes.txt', 'text/plain', 'a few notes');
    await upload(
      'Quarterly report for the board meeting in November.pdf',
      'application/pdf',
      sampleOf('application/pdf', 400),
    );
    await upload('IMG_20261122_174512_HDR_panorama_stitched.png', 'image/png', makePng(160, 90));
    await upload(
      'minutes.docx',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      sampleOf('application/zip', 3000),
    );
    ids.locked = await upload('plans.txt', 'text/plain', 'secret plans', { password: 'pony pony' });
    await upload('photo.png', 'image/png', makePng(120, 90));
    // An upload begun and not finished: its table stands above the collections.
    const begun = await tusClient(app.url, cookie).create(1000, { filename: 'holiday-video.mp4' }, new Uint8Array(100));
    expect(begun.status).toBe(201);
    const collection = await fetch(`${app.url}/api/v1/collections`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Holiday',
        password: 'pony pony',
        files: [
          { id: notes, path: 'docs/notes.txt' },
          { id: ids.locked, path: 'plans.txt' },
        ],
      }),
    });
    expect(collection.status).toBe(201);
    ids.collection = ((await collection.json()) as { collection: { id: string } }).collection.id;

    const receipts = await newRequest({ title: 'Receipts', requireName: true, maxFiles: 10 });
    await newRequest({ title: 'Photos of the party' });
    await guestSends(receipts, { name: 'Bob Guest', note: 'Here are my receipts' }, 'receipts-march.pdf');
    await guestSends(receipts, { name: 'Carla', note: '' }, 'IMG_20261122_174512_HDR_receipt_scan.jpeg');
    await receiver.waitFor(3);
  },
);

afterAll(async () => {
  await receiver?.close();
});

type Scheme = 'light' | 'dark';

async function loggedIn(width: number, colorScheme: Scheme, js = true): Promise<BrowserContext> {
  const context = await browser.newContext({ javaScriptEnabled: js, viewport: { width, height: 900 }, colorScheme });
  context.setDefaultTimeout(15_000);
  await context.addCookies([
    { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  return context;
}

async function open(page: Page, path: string, js = true) {
  const res = await page.goto(`${app.url}${path}`);
  expect(res?.status(), path).toBe(200);
  if (js) await waitForHydration(page);
}

/**
 * The neighbours that come closer than 4 px to each other, both across and down (so neither is
 * clearly beside nor clearly under the other): each pair of consecutive children, shown and in the
 * flow, of every element matching `selector`.
 */
function touching(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const describe = (el: Element) =>
      `<${el.tagName.toLowerCase()} class="${el.getAttribute('class') ?? ''}"> "${(el.textContent ?? '').trim().slice(0, 30)}"`;
    const out: string[] = [];
    for (const parent of Array.from(document.querySelectorAll(sel))) {
      const shown = Array.from(parent.children).filter((child) => {
        const style = getComputedStyle(child);
        const box = child.getBoundingClientRect();
        return style.display !== 'none' && !['absolute', 'fixed'].includes(style.position) && box.height > 0;
      });
      for (let i = 1; i < shown.length; i++) {
        const a = shown[i - 1].getBoundingClientRect();
        const b = shown[i].getBoundingClientRect();
        const across = Math.max(0, b.left - a.right, a.left - b.right);
        const down = Math.max(0, b.top - a.bottom, a.top - b.bottom);
        if (across < 4 && down < 4)
          out.push(
            `${describe(shown[i - 1])} and ${describe(shown[i])}: ${across.toFixed(1)} px across, ${down.toFixed(1)} px down`,
          );
      }
    }
    return out;
  }, selector);
}

/**
 * How the text of each element matching `selector` is laid out, as a reader sees it: its text,
 * where its lines break (the index of the first character of each line after the first), and the
 * characters that are not in view (outside the window, or cut off by a box that clips them).
 */
function textLayout(page: Page, selector: string) {
  return page.evaluate((sel) => {
    return Array.from(document.querySelectorAll(sel)).map((el) => {
      const chars: Array<{ ch: string; box: DOMRect | null; node: Text }> = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        for (let i = 0; i < node.data.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const box = Array.from(range.getClientRects()).find((rect) => rect.width > 0) ?? null;
          chars.push({ ch: node.data[i], box, node });
        }
      }
      const text = chars.map((c) => c.ch).join('');
      const breaks: number[] = [];
      let lastTop: number | null = null;
      chars.forEach((c, i) => {
        if (!c.box) return;
        if (lastTop !== null && c.box.top > lastTop + 2) breaks.push(i);
        lastTop = c.box.top;
      });
      const hidden: number[] = [];
      const width = document.documentElement.clientWidth;
      chars.forEach((c, i) => {
        if (!c.box || /\s/.test(c.ch)) return;
        const centre = c.box.left + c.box.width / 2;
        let cut = centre < 0 || centre > width;
        for (let box = c.node.parentElement; box && !cut; box = box.parentElement) {
          if (getComputedStyle(box).overflowX === 'visible') continue;
          const clip = box.getBoundingClientRect();
          cut = centre < clip.left || centre > clip.right;
          if (box === el) break;
        }
        if (cut) hidden.push(i);
      });
      return { text, breaks, hidden };
    });
  }, selector);
}

const EMOJI = /[\u{1F300}-\u{1FAFF}\u{2600}-\u{27BF}]/u;

describe.skipIf(!hasChromium)(`finished pages in Chromium${SKIP_NOTE}`, () => {
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 390]) {
      it(
        `when /files and /requests are opened at ${width} px in the ${scheme} colour scheme, then no block touches its neighbour and the request cards line up with the form`,
        async () => {
          const context = await loggedIn(width, scheme);
          try {
            const page = await context.newPage();
            await open(page, '/files');
            await snap(page, `finished-files-${width}-${scheme}`);
            expect.soft(await touching(page, 'main, main .heading-row, main > section'), '/files').toEqual([]);

            await open(page, '/requests');
            await snap(page, `finished-requests-${width}-${scheme}`);
            expect
              .soft(
                await touching(page, 'main, main > section, .file-request-list, .file-request-list > li'),
                '/requests',
              )
              .toEqual([]);
            const form = await page.getByRole('region', { name: 'New file request' }).evaluate((el) => {
              const box = el.getBoundingClientRect();
              return [Math.round(box.left), Math.round(box.right)];
            });
            const cards = await page
              .locator('[data-request-id]')
              .evaluateAll((els) =>
                els.map((el) => [
                  Math.round(el.getBoundingClientRect().left),
                  Math.round(el.getBoundingClientRect().right),
                ]),
              );
            expect(cards.length).toBeGreaterThanOrEqual(2);
            expect.soft(cards, 'the cards’ left and right edges, the form’s').toEqual(cards.map(() => form));
          } finally {
            await context.close();
          }
        },
        STEP_TIMEOUT,
      );
    }

    it(
      `when /requests shows a request with new files in the ${scheme} colour scheme, then its badges ("Open", "1 new", "new") stand out from the text around them, apart from it, and each guest's name and note are lines of their own under the file`,
      async () => {
        const id = await newRequest({ title: `Tax papers ${scheme}` });
        await guestSends(id, { name: 'Bob Guest', note: 'Here are my receipts' }, 'receipts-april.pdf');
        const context = await loggedIn(1280, scheme);
        try {
          const page = await context.newPage();
          await open(page, '/requests');
          await snap(page, `finished-requests-badges-${scheme}`);
          const card = page.locator(`[data-request-id="${id}"]`);
          const badges = await card.locator('.badge').evaluateAll((els) =>
            els.map((badge) => {
              const style = getComputedStyle(badge);
              let around = 'rgba(0, 0, 0, 0)';
              for (let el = badge.parentElement; el; el = el.parentElement) {
                around = getComputedStyle(el).backgroundColor;
                if (around !== 'rgba(0, 0, 0, 0)') break;
              }
              const border =
                parseFloat(style.borderTopWidth) > 0 && style.borderTopStyle !== 'none' ? style.borderTopColor : null;
              const filled = style.backgroundColor !== 'rgba(0, 0, 0, 0)' && style.backgroundColor !== around;
              return { text: badge.textContent, standsOut: filled || (border !== null && border !== around) };
            }),
          );
          expect(badges.map((badge) => badge.text)).toEqual(['Open', '1 new', 'new']);
          expect
            .soft(
              badges.filter((badge) => !badge.standsOut).map((badge) => badge.text),
              'badges like plain text',
            )
            .toEqual([]);

          // Each badge apart from the words before it: the title's own letters, the file's size.
          const gaps = await card.evaluate((el) => {
            const wordsBox = (node: Node) => {
              const range = document.createRange();
              const text = node.textContent ?? '';
              range.setStart(node, text.length - text.trimStart().length);
              range.setEnd(node, text.trimEnd().length);
              return range.getBoundingClientRect();
            };
            const title = el.querySelector('h2')?.firstChild as Node;
            const out: Record<string, number> = {};
            let before = wordsBox(title);
            for (const badge of Array.from(el.querySelectorAll('.badge'))) {
              const box = badge.getBoundingClientRect();
              const previous = badge.previousElementSibling;
              if (previous?.matches('.muted')) before = previous.getBoundingClientRect();
              out[badge.textContent ?? ''] = Math.round(box.left - before.right);
              before = box;
            }
            return out;
          });
          expect
            .soft(
              Object.entries(gaps).filter(([, gap]) => gap < 4),
              'badges closer than 4 px to the words before them',
            )
            .toEqual([]);

          const lines = await card.locator('.file-request-files li').evaluate((li) => {
            const box = (sel: string) => li.querySelector(sel)?.getBoundingClientRect() as DOMRect;
            return {
              nameUnderFile: box('.guest-name').top >= box('a').bottom - 1,
              noteUnderName: box('.guest-note').top >= box('.guest-name').bottom - 1,
            };
          });
          expect.soft(lines).toEqual({ nameUnderFile: true, noteUnderName: true });
        } finally {
          await context.close();
        }
      },
      STEP_TIMEOUT,
    );
  }

  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';
    it(
      `when a file request is made ${mode}, then the form is empty again, and the next request made with it takes nothing of the first`,
      async () => {
        const context = await loggedIn(1280, 'light', js);
        try {
          const page = await context.newPage();
          await open(page, '/requests', js);
          const first = `Contracts ${mode}`;
          await page.getByLabel('Title').fill(first);
          await page.getByLabel('Message to the people who send (optional)').fill('Only the signed ones, please.');
          await page.getByLabel('Stops taking files after').selectOption('86400');
          await page.getByLabel('Most files (optional)').fill('3');
          await page.getByLabel(/Most data in all/).fill('2 GB');
          await page.getByLabel('Password (optional)').fill('pony pony');
          await page.getByLabel('Ask for a name').check();
          await page.getByRole('button', { name: 'Make the link' }).click();
          await page.locator('[data-request-id]', { hasText: first }).waitFor();
          if (js) await waitForHydration(page);
          const fields = () =>
            page.getByRole('region', { name: 'New file request' }).evaluate((section) => {
              const value = (name: string) =>
                (section.querySelector(`[name="${name}"]`) as HTMLInputElement | HTMLSelectElement).value;
              return {
                title: value('title'),
                message: value('message'),
                expiresIn: value('expiresIn'),
                maxFiles: value('maxFiles'),
                maxSize: value('maxSize'),
                password: value('password'),
                requireName: (section.querySelector('[name="requireName"]') as HTMLInputElement).checked,
              };
            });
          const empty = {
            title: '',
            message: '',
            expiresIn: '604800',
            maxFiles: '',
            maxSize: '',
            password: '',
            requireName: false,
          };
          // Given a moment to empty itself; then what it holds is what the next request would take.
          await expect
            .poll(fields)
            .toEqual(empty)
            .catch(() => undefined);
          expect.soft(await fields(), 'the form after the request was made').toEqual(empty);

          const second = `Photos ${mode}`;
          await page.getByLabel('Title').fill(second);
          await page.getByRole('button', { name: 'Make the link' }).click();
          await page.locator('[data-request-id]', { hasText: second }).waitFor();
          const listed = await fetch(`${app.url}/api/v1/requests`, { headers: { cookie } });
          const { requests } = (await listed.json()) as {
            requests: Array<{ title: string; message: string; maxFiles: number | null; hasPassword: boolean }>;
          };
          expect.soft(requests.find((one) => one.title === second)).toMatchObject({
            message: '',
            maxFiles: null,
            hasPassword: false,
          });
        } finally {
          await context.close();
        }
      },
      STEP_TIMEOUT,
    );
  }

  it(
    'when a webhook’s deliveries are shown, then at 1280 px they are a table whose cells have room and whose rows have lines between them, and at 390 px each is a card of labelled values that does not scroll sideways',
    async () => {
      for (const width of [1280, 390]) {
        const context = await loggedIn(width, 'light');
        try {
          const page = await context.newPage();
          await open(page, '/settings');
          const table = page.locator('table.webhook-deliveries');
          await table.scrollIntoViewIfNeeded();
          await snap(page, `finished-webhook-deliveries-${width}`);
          const cells = await table.evaluate((el) =>
            Array.from(el.querySelectorAll('th, td')).map((cell) => {
              const style = getComputedStyle(cell);
              const before = getComputedStyle(cell, '::before').content;
              return {
                text: (cell.textContent ?? '').trim().slice(0, 20),
                header: cell.tagName === 'TH',
                label: cell.getAttribute('data-label'),
                padding: Math.min(parseFloat(style.paddingLeft), parseFloat(style.paddingTop)),
                textAlign: style.textAlign,
                lineUnder: parseFloat(style.borderBottomWidth),
                lastRow: cell.parentElement === el.querySelector('tbody tr:last-child'),
                before: before === 'none' || before === 'normal' ? '' : before,
              };
            }),
          );
          if (width === 1280) {
            const cramped = cells.filter(
              (cell) =>
                cell.padding < 4 ||
                (cell.header && !['left', 'start'].includes(cell.textAlign)) ||
                (!cell.header && !cell.lastRow && cell.lineUnder < 1),
            );
            expect
              .soft(cramped, 'cells without room, headers not over their column’s start, rows without a line between')
              .toEqual([]);
          } else {
            const wrap = await table.evaluate((el) => {
              const box = el.parentElement as HTMLElement;
              return { scroll: box.scrollWidth, client: box.clientWidth };
            });
            expect
              .soft(wrap.scroll, `deliveries ${wrap.scroll} px wide in a ${wrap.client} px box`)
              .toBeLessThanOrEqual(wrap.client);
            const unlabelled = cells.filter((cell) => cell.label && !cell.before.includes(cell.label));
            expect.soft(unlabelled, 'values without their label before them').toEqual([]);
          }
        } finally {
          await context.close();
        }
      }
    },
    STEP_TIMEOUT,
  );

  it(
    'when the pages with icons are opened, then no text on them is an emoji (which shows as an empty box without an emoji font): the padlocks, folders and file pictures are drawn',
    async () => {
      const context = await loggedIn(1280, 'light');
      try {
        const page = await context.newPage();
        const emoji: Record<string, string[]> = {};
        const undrawnLocks: string[] = [];
        for (const path of ['/files', '/files?view=gallery', `/c/${ids.collection}`, `/f/${ids.locked}`]) {
          await open(page, path);
          const found = await page.evaluate((source) => {
            const pattern = new RegExp(source, 'u');
            const out: string[] = [];
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              if (pattern.test(node.textContent ?? '')) out.push((node.textContent ?? '').trim());
            }
            return out;
          }, EMOJI.source);
          if (found.length > 0) emoji[path] = found;
          const locks = await page
            .locator('[aria-label="Password-protected"]')
            .evaluateAll((els) =>
              els.map((el) => el.querySelector('svg') !== null && el.getBoundingClientRect().width > 0),
            );
          if (locks.includes(false)) undrawnLocks.push(path);
        }
        expect.soft(emoji, 'emoji in the text of the pages').toEqual({});
        expect.soft(undrawnLocks, 'padlocks not drawn').toEqual([]);
      } finally {
        await context.close();
      }
    },
    STEP_TIMEOUT,
  );

  it(
    'when /files, /upload, /requests and /settings are opened one after another, then the logo stands at the same place on each, at 1280 and at 390 px',
    async () => {
      const places: Record<number, Record<string, string>> = {};
      for (const width of [1280, 390]) {
        const context = await loggedIn(width, 'light');
        try {
          const page = await context.newPage();
          places[width] = {};
          for (const path of ['/files', '/upload', '/requests', '/settings']) {
            await open(page, path);
            const box = await page.locator('.site-header .brand img').boundingBox();
            places[width][path] = `${box?.x},${box?.y}`;
          }
        } finally {
          await context.close();
        }
      }
      const placesPerWidth = Object.fromEntries(
        Object.entries(places).map(([width, at]) => [width, new Set(Object.values(at)).size]),
      );
      expect(placesPerWidth, JSON.stringify(places)).toEqual({ 1280: 1, 390: 1 });
    },
    STEP_TIMEOUT,
  );

  it(
    'when /files is opened at 1280 px, then "Upload a file" stands in the title’s row, beside "File requests"',
    async () => {
      const context = await loggedIn(1280, 'light');
      try {
        const page = await context.newPage();
        await open(page, '/files');
        const main = page.getByRole('main');
        const title = await main.getByRole('heading', { level: 1 }).boundingBox();
        const upload = await main.getByRole('link', { name: 'Upload a file' }).boundingBox();
        const requests = await main.getByRole('link', { name: /^File requests/ }).boundingBox();
        if (!title || !upload || !requests) throw new Error('the heading row is not shown');
        const middle = (box: { y: number; height: number }) => box.y + box.height / 2;
        const between = requests.x - (upload.x + upload.width);
        expect(
          {
            onTheTitlesLine:
              Math.abs(middle(upload) - middle(title)) <= 2 && Math.abs(middle(requests) - middle(title)) <= 2,
            besideFileRequests: between >= 4 && between <= 24,
          },
          JSON.stringify({ title, upload, requests }),
        ).toEqual({ onTheTitlesLine: true, besideFileRequests: true });
      } finally {
        await context.close();
      }
    },
    STEP_TIMEOUT,
  );

  it(
    'when /requests lists a file with a long name on a 390 px phone, then the page does not scroll sideways',
    async () => {
      const context = await loggedIn(390, 'light');
      try {
        const page = await context.newPage();
        await open(page, '/requests');
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
        ).toBe(true);
      } finally {
        await context.close();
      }
    },
    STEP_TIMEOUT,
  );

  for (const width of [1280, 390]) {
    it(
      `when file names and types wrap at ${width} px, then a type breaks after its "/" or dots, a name between its words, and no extension is split or hidden`,
      async () => {
        const context = await loggedIn(width, 'light');
        try {
          const page = await context.newPage();
          const names: Array<{ where: string; text: string; breaks: number[]; hidden: number[] }> = [];
          const typesBroken: string[] = [];
          const pages: Array<[string, string, string]> = [
            ['files', '/files', 'table.files td.name a'],
            ['gallery', '/files?view=gallery', '.file-card-name'],
            ['requests', '/requests', '.file-request-files a'],
            ['collection', `/c/${ids.collection}`, '.tree-name'],
          ];
          for (const [name, path, selector] of pages) {
            await open(page, path);
            await snap(page, `finished-names-${name}-${width}`);
            for (const layout of await textLayout(page, selector)) names.push({ where: path, ...layout });
            if (path === '/files') {
              for (const type of await textLayout(page, 'table.files td.type')) {
                const inWords = type.breaks.filter((at) => !/[/.+\-\s]/.test(type.text[at - 1]));
                if (inWords.length > 0) typesBroken.push(`"${type.text}" broken at ${inWords.join(', ')}`);
              }
            }
          }
          expect.soft(typesBroken, 'types broken inside a word').toEqual([]);
          expect(names.length).toBeGreaterThan(8);
          const badlyBroken = names.flatMap((name) => {
            const what = `"${name.text}" on ${name.where}: lines from ${name.breaks.join(', ') || '-'}, hidden ${name.hidden.join(', ') || '-'}`;
            const extension = name.text.lastIndexOf('.');
            const problems = [
              name.breaks.some((at) => at > extension) ? 'its extension split' : '',
              name.hidden.some((at) => at >= extension) ? 'its extension out of view' : '',
              name.text.includes(' ') && name.breaks.some((at) => !/[\s-]/.test(name.text[at - 1]))
                ? 'a word broken'
                : '',
            ].filter(Boolean);
            return problems.length > 0 ? [`${what}: ${problems.join(', ')}`] : [];
          });
          expect.soft(badlyBroken).toEqual([]);
        } finally {
          await context.close();
        }
      },
      STEP_TIMEOUT,
    );
  }
});
