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
