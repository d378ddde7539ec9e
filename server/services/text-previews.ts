// The colours of a share page's text preview (ADR 0045): highlight.js's HTML, made in the
// highlighter's thread within its time budget (ADR 0054). A text it cannot colour in time is
// shown uncoloured; that is the file's doing (anyone may upload one), so it is told at warn level
// and never with the text.
import type { ServiceContext } from '../context';
import type { Colouring, Rendering } from '../highlight/highlighter';

export async function colourText(ctx: ServiceContext, input: { text: string; language: string }): Promise<Colouring> {
  const colouring = await ctx.highlighter.colour(input.text, input.language);
  if (colouring.kind === 'uncoloured' && colouring.reason === 'over-budget') {
    ctx.log.warn(
      { language: input.language, characters: input.text.length, budgetMs: ctx.highlighter.budgetMs },
      'text preview shown uncoloured: colouring it took longer than its budget',
    );
  } else if (colouring.kind === 'uncoloured' && colouring.reason === 'failed') {
    ctx.log.warn(
      { language: input.language, characters: input.text.length, error: colouring.error },
      'text preview shown uncoloured: the colouring thread failed',
    );
  }
  return colouring;
}

/**
 * A Markdown file's preview rendered (ADR 0069), in the same threads within the same budget. Past
 * it, or failed, the page shows the text: told at warn level, never with the text, as a colouring is.
 */
export async function renderMarkdown(ctx: ServiceContext, input: { text: string }): Promise<Rendering> {
  const rendering = await ctx.highlighter.renderMarkdown(input.text);
  if (rendering.kind === 'not-rendered' && rendering.reason === 'over-budget') {
    ctx.log.warn(
      { characters: input.text.length, budgetMs: ctx.highlighter.budgetMs },
      'Markdown preview shown as text: rendering it took longer than its budget',
    );
  } else if (rendering.kind === 'not-rendered' && rendering.reason === 'failed') {
    ctx.log.warn(
      { characters: input.text.length, error: rendering.error },
      'Markdown preview shown as text: the rendering thread failed',
    );
  }
  return rendering;
}
