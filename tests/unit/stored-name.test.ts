// The stored name's extension and the cleaning of uploaders' names (the file object's storedName, docs/api.md).
import { describe, expect, it } from 'vitest';
import { cleanFileName, storedExtension } from '../../server/services/files';

describe('storedExtension', () => {
  it.each([
    ['a.txt', '.txt'],
    ['archive.tar.gz', '.gz'],
    ['a.PNG', '.PNG'],
    ['Photo.JpEg', '.JpEg'],
    ['video.mp4', '.mp4'],
    ['x.7z', '.7z'],
    ['report.pdf.exe', '.exe'],
    ['.hidden.txt', '.txt'],
    ['dir/.config.json', '.json'],
  ])('when the original name is %j, then the extension kept is %j (case kept)', (name, extension) => {
    expect(storedExtension(name)).toBe(extension);
  });

  it.each([
    'noext',
    '.bashrc',
    'dir/.env',
    'dir\\.env',
    'evil.p/hp',
    'x.ph p',
    '..',
    '.',
    'a.',
    'a.jpé',
    'a.ｔｘｔ',
    'a.tx_t',
    'a.tx-t',
    'a.txt ',
    'a.txt/',
    'a.txt\u0000',
    '../../etc/passwd',
    'shell.php\\',
    '',
  ])('when the original name is %j, then no extension is kept (storedName is the id alone)', (name) => {
    expect(storedExtension(name)).toBe('');
  });

  it('when any name is given, then the extension is empty or a dot followed by ASCII letters and digits only', () => {
    const names = ['a.b.c', 'a/b.c', 'a\\b.c', 'a..b', 'a.b/../c', 'x.%2e%2e', 'a.b\r\nc', 'a.\u202Egnp', 'a.🙂'];
    for (const name of names) expect(storedExtension(name)).toMatch(/^(\.[A-Za-z0-9]+)?$/);
  });
});

describe('cleanFileName', () => {
  it('when the name is ordinary UTF-8, then it is kept exactly', () => {
    for (const name of ['résumé 📄.pdf', '报告.docx', 'a b  c.txt', 'O\'Brien "quote".txt'])
      expect(cleanFileName(name)).toBe(name);
  });

  it('when the name holds control or bidi-override characters, then they are removed', () => {
    expect(cleanFileName('evil\u202Egpj.exe')).toBe('evilgpj.exe');
    expect(cleanFileName('line\r\nbreak\u0000.txt')).toBe('linebreak.txt');
  });

  it('when nothing is left of the name, then it becomes "file"', () => {
    expect(cleanFileName('   ')).toBe('file');
    expect(cleanFileName('\u0001\u0002')).toBe('file');
  });

  it('when the name is longer than 255 characters, then it is cut at 255 characters without splitting one', () => {
    const cleaned = cleanFileName('📄'.repeat(300));

    expect(Array.from(cleaned)).toHaveLength(255);
    expect(cleaned).toBe('📄'.repeat(255));
  });

  it('when a name longer than 255 characters has an extension, then its stem is shortened and the extension kept', () => {
    expect(cleanFileName(`${'a'.repeat(296)}.txt`)).toBe(`${'a'.repeat(251)}.txt`);
    expect(cleanFileName(`${'📄'.repeat(300)}.tar.gz`)).toBe(`${'📄'.repeat(252)}.gz`);
    // A stem cut at a space does not end in one.
    expect(cleanFileName(`${'abcd '.repeat(60)}.jpeg`)).toBe(`${'abcd '.repeat(49)}abcd.jpeg`);
    expect(Array.from(cleanFileName(`${'x'.repeat(400)}.jpeg`))).toHaveLength(255);
    // What follows the last dot is no extension when it is long or holds a space: cut as any name.
    expect(cleanFileName(`${'b'.repeat(300)}.this is not an extension`)).toBe('b'.repeat(255));
  });

  it('when an upload has a name longer than 255 characters, then the stored name keeps its extension', () => {
    expect(storedExtension(cleanFileName(`${'a'.repeat(296)}.png`))).toBe('.png');
  });
});
