// The names of a ZIP archive's entries: relative paths that cannot leave the extraction folder,
// and distinct names where two entries would land on the same file (ADR 0036).
import { describe, expect, it } from 'vitest';
import { distinctArchiveNames, normaliseArchivePath } from '../../server/archive/archive-paths';

function refusal(input: string): string {
  const result = normaliseArchivePath(input);
  if (result.ok) throw new Error(`${JSON.stringify(input)} was accepted as ${JSON.stringify(result.path)}`);
  return result.message;
}

describe('normaliseArchivePath', () => {
  it.each([
    ['beach.jpg', 'beach.jpg'],
    ['photos/2026/beach.jpg', 'photos/2026/beach.jpg'],
    ['photos\\2026\\beach.jpg', 'photos/2026/beach.jpg'],
    ['résumé 📄.pdf', 'résumé 📄.pdf'],
    ['报告/季度.docx', '报告/季度.docx'],
    ['.env', '.env'],
    ['a..b/c...txt', 'a..b/c...txt'],
    ['file.', 'file.'],
    [' leading space', ' leading space'],
  ])('when the path is %j, then the entry name is %j', (input, path) => {
    expect(normaliseArchivePath(input)).toEqual({ ok: true, path });
  });

  it('when a name is spelt with a combining accent, then it is given in composed form (NFC)', () => {
    expect(normaliseArchivePath('cafe\u0301.txt')).toEqual({ ok: true, path: 'caf\u00e9.txt' });
  });

  it.each([
    ['../etc/passwd', '".."'],
    ['photos/../../etc/passwd', '".."'],
    ['photos/..', '".."'],
    ['..\\windows\\system.ini', '".."'],
    ['photos\\..\\..\\x', '".."'],
    ['/etc/passwd', 'relative'],
    ['\\windows\\system.ini', 'relative'],
    ['\\\\server\\share\\x', 'relative'],
    ['C:/Windows/x', 'drive letter'],
    ['C:\\Windows\\x', 'drive letter'],
    ['c:x', 'drive letter'],
    ['a\u0000b', 'control character'],
    ['line\nbreak.txt', 'control character'],
    ['tab\t.txt', 'control character'],
    ['del\u007f.txt', 'control character'],
    ['c1\u0085.txt', 'control character'],
    ['evil\u202Egpj.exe', 'control character'],
    ['photos//beach.jpg', 'empty folder name'],
    ['photos/', 'empty folder name'],
    ['./beach.jpg', '"."'],
    ['photos/./beach.jpg', '"."'],
    ['...', 'dots and spaces'],
    ['.. /x', 'dots and spaces'],
    ['photos/\uFF0E\uFF0E/x', 'dots and spaces'],
    ['', 'empty'],
    ['bad\uD800.txt', 'Unicode'],
  ])('when the path is %j, then it is refused, saying %s', (input, words) => {
    expect(refusal(input)).toContain(words);
  });

  it('when the path is over 1024 bytes or a name over 255 bytes, then it is refused with the limit', () => {
    const folder = 'f'.repeat(200);
    expect(normaliseArchivePath(`${Array(5).fill(folder).join('/')}/x.txt`).ok).toBe(true);
    expect(refusal(Array(6).fill(folder).join('/'))).toContain('1024 bytes');
    expect(normaliseArchivePath(`${'n'.repeat(251)}.txt`).ok).toBe(true);
    expect(refusal(`${'n'.repeat(252)}.txt`)).toContain('255 bytes');
    // Bytes, not characters: 128 two-byte letters are 256 bytes.
    expect(refusal('é'.repeat(128))).toContain('255 bytes');
  });

  it('when any path is accepted, then it has no "..", no leading "/", no backslash and no control character', () => {
    const inputs = ['a/b', 'x\\..\\y', 'a/./b', '//x', 'C:', 'ok/name', 'a/\u0001', '..\\..', 'a/b/..'];
    for (const input of inputs) {
      const result = normaliseArchivePath(input);
      if (!result.ok) continue;
      expect(result.path.split('/')).not.toContain('..');
      expect(result.path).not.toMatch(/^\/|\\|\p{Cc}/u);
    }
  });
});

describe('distinctArchiveNames', () => {
  it('when every path is distinct, then every name is kept', () => {
    const paths = ['a.txt', 'photos/a.txt', 'photos/b.txt', 'b.txt'];
    expect(distinctArchiveNames(paths)).toEqual(paths);
  });

  it('when two paths are the same, then the later one is numbered before its extension', () => {
    expect(distinctArchiveNames(['beach.jpg', 'beach.jpg', 'beach.jpg'])).toEqual([
      'beach.jpg',
      'beach (2).jpg',
      'beach (3).jpg',
    ]);
  });

  it('when two paths differ only in case, then they count as the same (as Windows and macOS extract)', () => {
    expect(distinctArchiveNames(['Photos/Beach.JPG', 'photos/beach.jpg'])).toEqual([
      'Photos/Beach.JPG',
      'photos/beach (2).jpg',
    ]);
  });

  it('when a numbered name is already an entry of its own, then that entry keeps it and the duplicate takes the next number', () => {
    expect(distinctArchiveNames(['a.jpg', 'a.jpg', 'a (2).jpg'])).toEqual(['a.jpg', 'a (3).jpg', 'a (2).jpg']);
  });

  it('when a name has no extension or is a hidden file, then the number goes at its end', () => {
    expect(distinctArchiveNames(['README', 'README', '.env', '.env', 'dir/x.tar.gz', 'dir/x.tar.gz'])).toEqual([
      'README',
      'README (2)',
      '.env',
      '.env (2)',
      'dir/x.tar.gz',
      'dir/x.tar (2).gz',
    ]);
  });

  it('when a file has the path of another entry’s folder, then the file is renamed and the folder kept', () => {
    expect(distinctArchiveNames(['photos', 'photos/beach.jpg', 'Photos/x'])).toEqual([
      'photos (2)',
      'photos/beach.jpg',
      'Photos/x',
    ]);
  });

  it('when a duplicate’s name is at the length limit, then its stem is shortened so the name stays within 255 bytes', () => {
    const long = `${'é'.repeat(125)}.txt`;
    const [, renamed] = distinctArchiveNames([long, long]);
    expect(renamed.endsWith(' (2).txt')).toBe(true);
    expect(Buffer.byteLength(renamed)).toBeLessThanOrEqual(255);
    expect(normaliseArchivePath(renamed)).toEqual({ ok: true, path: renamed });
  });

  it('when the same list is given twice, then the same names come back', () => {
    const paths = ['x.txt', 'X.TXT', 'x (2).txt', 'y/x.txt', 'x.txt'];
    expect(distinctArchiveNames(paths)).toEqual(distinctArchiveNames([...paths]));
    expect(new Set(distinctArchiveNames(paths).map((name) => name.toLowerCase())).size).toBe(paths.length);
  });
});

describe('distinctArchiveNames with many alike paths', () => {
  // Trying each number in turn against every name is quadratic: 2,000 copies of one long path
  // took 15 s of the event loop. These lists take well under a second of CPU.
  const FAST_MS = 2_000;

  /** The work's result and the CPU time it took (not the wall time, which a busy machine stretches). */
  function timed<T>(work: () => T): { result: T; ms: number } {
    const start = process.cpuUsage();
    const result = work();
    const { user, system } = process.cpuUsage(start);
    return { result, ms: (user + system) / 1000 };
  }

  it('when 10,000 paths are the same, then they are named x, x (2) … x (10000), at once', () => {
    const { result, ms } = timed(() => distinctArchiveNames(Array(10_000).fill('x')));
    expect(result).toEqual(['x', ...Array.from({ length: 9_999 }, (_, i) => `x (${i + 2})`)]);
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('when 10,000 paths are the same long path, then each gets its own name within 255 bytes, at once', () => {
    const long = `photos/2026/${'x'.repeat(250)}.jpg`;
    const { result, ms } = timed(() => distinctArchiveNames(Array(10_000).fill(long)));
    expect(ms).toBeLessThan(FAST_MS);
    expect(new Set(result).size).toBe(10_000);
    expect(result[1]).toBe(`photos/2026/${'x'.repeat(247)} (2).jpg`);
    expect(result[9_999]).toBe(`photos/2026/${'x'.repeat(243)} (10000).jpg`);
    for (const name of result) expect(normaliseArchivePath(name)).toEqual({ ok: true, path: name });
  });

  it('when 10,000 paths differ only in case, then they are numbered as one name, at once', () => {
    const spellings = Array.from(
      { length: 10_000 },
      (_, n) =>
        `${[...'abcdefghijklmn'].map((letter, bit) => ((n >> bit) & 1 ? letter.toUpperCase() : letter)).join('')}.txt`,
    );
    const { result, ms } = timed(() => distinctArchiveNames(spellings));
    expect(ms).toBeLessThan(FAST_MS);
    expect(result.map((name) => name.toLowerCase())).toEqual([
      'abcdefghijklmn.txt',
      ...Array.from({ length: 9_999 }, (_, i) => `abcdefghijklmn (${i + 2}).txt`),
    ]);
  });

  it('when the numbered names are entries already, then the duplicates take the numbers after them, at once', () => {
    const paths = [...Array.from({ length: 5_000 }, (_, i) => `a (${i + 2}).txt`), ...Array(5_000).fill('a.txt')];
    const { result, ms } = timed(() => distinctArchiveNames(paths));
    expect(ms).toBeLessThan(FAST_MS);
    expect(result.slice(5_000)).toEqual(['a.txt', ...Array.from({ length: 4_999 }, (_, i) => `a (${i + 5_002}).txt`)]);
  });

  it('when random lists of tricky names are given, then the names are those of trying each number in turn', () => {
    // Letters whose case or Unicode form changes length or merges with a neighbour: sigma, sharp
    // s, the Kelvin sign, a fullwidth solidus (NFKC makes it "/"), combining marks, Hangul jamo.
    const alphabet = [
      ...'aAxX2. ()/',
      'Σ',
      'ς',
      'ß',
      'ẞ',
      '\u212A',
      'ſ',
      'İ',
      'ﬀ',
      '\uFF0F',
      '℀',
      '\u0301',
      'é',
      '２',
      '\u1100',
      '\u1161',
      'ﾞ',
    ];
    let seed = 51;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return (seed >>> 8) % below;
    };
    const word = () => Array.from({ length: 1 + random(4) }, () => alphabet[random(alphabet.length)]).join('');
    for (let round = 0; round < 3_000; round++) {
      const pool = Array.from({ length: 1 + random(5) }, word);
      const paths = Array.from({ length: 1 + random(12) }, () => pool[random(pool.length)]);
      // Long names too, where the number shortens the stem.
      if (random(4) === 0) paths.push(`${'é'.repeat(124)}${pool[0]}`, `${'é'.repeat(124)}${pool[0]}`);
      expect(distinctArchiveNames(paths), JSON.stringify(paths)).toEqual(numberedOneByOne(paths));
    }
  });
});

/**
 * The naming rule stated as directly as possible (each number tried in turn against every name),
 * for small lists: the rule distinctArchiveNames keeps.
 */
function numberedOneByOne(paths: readonly string[]): string[] {
  const comparable = (path: string) => path.toUpperCase().toLowerCase().normalize('NFKC');
  const folders = new Set<string>();
  for (const path of paths) {
    const segments = path.split('/');
    for (let i = 1; i < segments.length; i++) folders.add(comparable(segments.slice(0, i).join('/')));
  }
  const reserved = new Set(paths.map(comparable));
  const taken = new Set<string>();
  return paths.map((path) => {
    const key = comparable(path);
    if (!taken.has(key) && !folders.has(key)) {
      taken.add(key);
      return path;
    }
    const slash = path.lastIndexOf('/');
    const name = path.slice(slash + 1);
    const dot = name.lastIndexOf('.');
    const [stem, extension] = dot <= 0 ? [name, ''] : [name.slice(0, dot), name.slice(dot)];
    for (let n = 2; ; n++) {
      const suffix = ` (${n})${extension}`;
      const codePoints = Array.from(stem);
      while (codePoints.length > 0 && Buffer.byteLength(codePoints.join('') + suffix) > 255) codePoints.pop();
      const candidate = path.slice(0, slash + 1) + codePoints.join('') + suffix;
      const candidateKey = comparable(candidate);
      if (taken.has(candidateKey) || reserved.has(candidateKey) || folders.has(candidateKey)) continue;
      taken.add(candidateKey);
      return candidate;
    }
  });
}
