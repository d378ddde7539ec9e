// Small helpers for the browser tests of the pages (tests/e2e).
import type { Page } from 'playwright-core';
import { screenshotPath } from './browser';

/**
 * Waits until React has hydrated the page (the main form or main element carries React's
 * props), so a click runs the page's JavaScript instead of the plain HTML behaviour.
 */
export async function waitForHydration(page: Page, selector = 'main'): Promise<void> {
  await page.waitForFunction(
    (sel) => {
      const el = document.querySelector(sel);
      return !!el && Object.keys(el).some((key) => key.startsWith('__reactProps$'));
    },
    selector,
    { timeout: 30_000 },
  );
}

/** A full-page screenshot under test-output/screenshots/<name>.png. */
export async function snap(page: Page, name: string): Promise<string> {
  const file = screenshotPath(name);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Whether the page scrolls sideways (`document.documentElement.scrollWidth > window.innerWidth`),
 * and if so the outermost elements that reach past the window's right edge, to say what to fix.
 */
export async function sidewaysScroll(page: Page): Promise<{ scrolls: boolean; widths: string; culprits: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const windowWidth = window.innerWidth;
    const describe = (el: Element) =>
      `<${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? ` class="${el.className}"` : ''}> "${(el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 50)}"`;
    const past = (el: Element | null) => !!el && el.getBoundingClientRect().right > windowWidth + 0.5;
    const culprits: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      // The outermost: its parent ends inside the window. One inside a box that scrolls or clips
      // makes the page no wider, and is left out.
      if (!past(el) || past(el.parentElement) || culprits.length >= 5) continue;
      let clipped = false;
      for (let up = el.parentElement; up && up !== document.body && !clipped; up = up.parentElement)
        clipped = getComputedStyle(up).overflowX !== 'visible';
      if (!clipped) culprits.push(`${describe(el)} reaches ${Math.round(el.getBoundingClientRect().right)} px`);
    }
    return {
      scrolls: root.scrollWidth > windowWidth,
      widths: `${root.scrollWidth} px wide in a ${windowWidth} px window`,
      culprits,
    };
  });
}

/** What `textLayout` finds wrong with the text of a page: one line each. */
export interface TextLayout {
  /** Two pieces of text drawn one over the other. */
  overlaps: string[];
  /** Text hidden past the left or right side of a box that scrolls or clips it. */
  cutOff: string[];
}

/**
 * The texts of the page that overlap, or are cut off at the side. A text is the text a visible
 * element holds itself (its non-blank text nodes), measured line by line where it is drawn,
 * even where it spills out of its element's box. Two texts whose elements are not one inside the
 * other overlap when a line of one covers a line of the other by more than `tolerance` px both
 * across and down, after cutting each to the boxes that clip it (`overflow` other than visible).
 * A text is cut off when it reaches more than `tolerance` px past the side of such a box, unless
 * that box ends it with an ellipsis or is preformatted text (a code preview scrolls by design).
 * Left out: what is not drawn (display none, a closed <details>, visibility hidden, opacity 0,
 * `clip`/`clip-path` such as the visually-hidden class, the options of a <select>), and text
 * squeezed to `tolerance` px or less.
 */
export async function textLayout(page: Page, tolerance = 2): Promise<TextLayout> {
  return page.evaluate((tolerance) => {
    window.scrollTo(0, 0);
    type Box = { left: number; top: number; right: number; bottom: number };
    type Area = Box & { clipper: Element | null };
    const EVERYWHERE: Area = { left: -Infinity, top: -Infinity, right: Infinity, bottom: Infinity, clipper: null };
    const NOT_DRAWN = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE', 'SELECT', 'OPTION', 'OPTGROUP']);
    const name = (el: Element) =>
      `<${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().replace(/\s+/g, '.')}` : ''}>`;
    // The part of the page in which an element's content can be seen (null: none of it), and the
    // nearest box that clips it sideways.
    const seenIn = new Map<Element, Area | null>();
    const areaOf = (el: Element): Area | null => {
      const known = seenIn.get(el);
      if (known !== undefined) return known;
      const outer = el.parentElement ? areaOf(el.parentElement) : EVERYWHERE;
      let area = outer;
      if (outer) {
        const style = getComputedStyle(el);
        const positioned = style.position === 'absolute' || style.position === 'fixed';
        if ((positioned && style.clip !== 'auto') || style.clipPath !== 'none') area = null;
        else if (style.overflowX !== 'visible' || style.overflowY !== 'visible') {
          const box = el.getBoundingClientRect();
          const clipsX = style.overflowX !== 'visible';
          const clipsY = style.overflowY !== 'visible';
          area = {
            left: clipsX ? Math.max(outer.left, box.left) : outer.left,
            right: clipsX ? Math.min(outer.right, box.right) : outer.right,
            top: clipsY ? Math.max(outer.top, box.top) : outer.top,
            bottom: clipsY ? Math.min(outer.bottom, box.bottom) : outer.bottom,
            clipper: clipsX ? el : outer.clipper,
          };
        }
      }
      seenIn.set(el, area);
      return area;
    };
    const texts: Array<{ el: Element; text: string; boxes: Box[]; all: Box }> = [];
    const cutOff: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      if (NOT_DRAWN.has(el.tagName) || el.closest('select, datalist')) continue;
      const nodes = Array.from(el.childNodes).filter(
        (node) => node.nodeType === Node.TEXT_NODE && (node.textContent ?? '').trim() !== '',
      );
      if (nodes.length === 0) continue;
      if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true }))
        continue;
      const area = areaOf(el);
      if (!area) continue;
      const text = nodes
        .map((node) => node.textContent)
        .join('')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 60);
      const lines = nodes.flatMap((node) => {
        const range = document.createRange();
        range.selectNodeContents(node);
        return Array.from(range.getClientRects()).filter((rect) => rect.width > tolerance && rect.height > tolerance);
      });
      const clipper = area.clipper;
      if (
        clipper &&
        lines.some((line) => line.right > area.right + tolerance || line.left < area.left - tolerance) &&
        getComputedStyle(clipper).textOverflow !== 'ellipsis' &&
        !el.closest('pre')
      ) {
        const box = clipper.getBoundingClientRect();
        const widest = Math.max(...lines.map((line) => line.right));
        cutOff.push(
          `"${text}" ${name(el)} reaches ${Math.round(widest)} px, past the side of ${name(clipper)} at ${Math.round(box.right)} px`,
        );
      }
      const boxes = lines
        .map((line) => ({
          left: Math.max(line.left, area.left),
          top: Math.max(line.top, area.top),
          right: Math.min(line.right, area.right),
          bottom: Math.min(line.bottom, area.bottom),
        }))
        .filter((box) => box.right - box.left > tolerance && box.bottom - box.top > tolerance);
      if (boxes.length === 0) continue;
      const all = {
        left: Math.min(...boxes.map((box) => box.left)),
        top: Math.min(...boxes.map((box) => box.top)),
        right: Math.max(...boxes.map((box) => box.right)),
        bottom: Math.max(...boxes.map((box) => box.bottom)),
      };
      texts.push({ el, text, boxes, all });
    }
    // From the top down: a text is compared only with those that begin above its bottom.
    texts.sort((a, b) => a.all.top - b.all.top);
    const overlaps: string[] = [];
    for (let i = 0; i < texts.length; i++) {
      const a = texts[i];
      for (let j = i + 1; j < texts.length && texts[j].all.top < a.all.bottom - tolerance; j++) {
        const b = texts[j];
        if (Math.min(a.all.right, b.all.right) - Math.max(a.all.left, b.all.left) <= tolerance) continue;
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        let worst: { across: number; down: number; at: Box } | null = null;
        for (const boxA of a.boxes) {
          for (const boxB of b.boxes) {
            const across = Math.min(boxA.right, boxB.right) - Math.max(boxA.left, boxB.left);
            const down = Math.min(boxA.bottom, boxB.bottom) - Math.max(boxA.top, boxB.top);
            if (across > tolerance && down > tolerance && (!worst || across * down > worst.across * worst.down))
              worst = { across, down, at: boxB };
          }
        }
        if (worst)
          overlaps.push(
            `"${a.text}" ${name(a.el)} overlaps "${b.text}" ${name(b.el)} by ${Math.round(worst.across)}×${Math.round(worst.down)} px at (${Math.round(worst.at.left)}, ${Math.round(worst.at.top)})`,
          );
      }
    }
    return { overlaps, cutOff };
  }, tolerance);
}

/**
 * Answers the page's own question before a delete (app/components/confirm-dialog.tsx) with its
 * `button` ("Delete", "Cancel"…), and returns the question it asked.
 */
export async function answerDialog(page: Page, button: string): Promise<string> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const question = (await dialog.locator('.confirm-question').textContent()) ?? '';
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  return question;
}
