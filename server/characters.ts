// "Characters" as the rules count them (a password's 8, a secret's 32): Unicode code points.
// String.length counts UTF-16 units, two for an emoji.

/** The number of Unicode code points in `text`. */
export function countCharacters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
