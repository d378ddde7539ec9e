// Where to go after login: only ever a path on this site (no open redirect).
// Refused: absolute URLs, protocol-relative `//host`, `/\host` (browsers read `\` as `/`),
// `javascript:` and anything with control characters.
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = '/files'): string {
  if (typeof to !== 'string' || !to.startsWith('/') || to.startsWith('//')) return fallback;
  if (/[\\\u0000-\u001f\u007f]/.test(to)) return fallback;
  try {
    const base = 'http://local.invalid';
    const url = new URL(to, base);
    if (url.origin !== base) return fallback;
    return url.pathname + url.search + url.hash;
  } catch {
    return fallback;
  }
}
