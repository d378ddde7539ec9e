// Where to go after login: only ever a path on this site (no open redirect).
// Refused: absolute URLs, protocol-relative `//host`, `/\host` (browsers read `\` as `/`),
// `javascript:` and anything with control characters.
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = '/files'): string {
  if (typeof to !== 'string' || !to.startsWith('/') || to.startsWith('//')) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\\\u0000-\u001f\u007f]/.test(to)) return fallback;
  try {
    const base = 'http://local.invalid';
    const url = new URL(to, base);
    if (url.origin !== base) return fallback;
    const local = url.pathname + url.search + url.hash;
    // Dot segments collapse: "/.//evil.com" resolves to the path "//evil.com", which a browser
    // reads as another host. Judge what is sent, not what was given.
    return local.startsWith('//') ? fallback : local;
  } catch {
    return fallback;
  }
}
