// Bytes that begin as files of a type do (its signature), for tests that need a file of that type
// without a real one: a file's type is read from its first bytes (ADR 0064), so "png bytes" sent as
// image/png is text. Each sample is padded with NUL bytes to the size asked for.
const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

const SIGNATURES: Readonly<Record<string, () => Buffer>> = {
  // The signature and an IHDR chunk (1 × 1, RGB) with its CRC.
  'image/png': () => hex('89504e470d0a1a0a 0000000d 49484452 00000001 00000001 08 02 000000 907753de'),
  'image/jpeg': () => hex('ffd8ffe0 0010 4a464946 00 0101 0000 0001 0001 0000'),
  'image/gif': () => Buffer.concat([Buffer.from('GIF89a'), hex('0100 0100 8000 00')]),
  'image/webp': () => Buffer.concat([Buffer.from('RIFF'), hex('24000000'), Buffer.from('WEBPVP8 '), hex('18000000')]),
  'audio/mpeg': () => Buffer.concat([Buffer.from('ID3'), hex('0300 00 00000000'), hex('fffb9064')]),
  'audio/ogg': () =>
    Buffer.concat([
      Buffer.from('OggS'),
      hex('00 02 0000000000000000 01000000 00000000 00000000 01 1e'),
      Buffer.from('\x01vorbis', 'latin1'),
      hex('00000000 01 44ac0000 00000000 00ee0200 00000000 b8 01'),
    ]),
  'audio/wav': () =>
    Buffer.concat([
      Buffer.from('RIFF'),
      hex('24000000'),
      Buffer.from('WAVEfmt '),
      hex('10000000 0100 0100 44ac0000 88580100 0200 1000'),
    ]),
  'video/quicktime': () =>
    Buffer.concat([hex('00000014'), Buffer.from('ftypqt  '), hex('00000000'), Buffer.from('qt  ')]),
  'video/mp4': () =>
    Buffer.concat([hex('00000018'), Buffer.from('ftypisom'), hex('00000200'), Buffer.from('isomiso2')]),
  // An EBML header whose DocType is "webm".
  'video/webm': () =>
    hex('1a45dfa3 9f 4286 81 01 42f7 81 01 42f2 81 04 42f3 81 08 4282 84 7765626d 4287 81 04 4285 81 02'),
  'application/pdf': () => Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
  // A local file header of a stored entry "a.txt".
  'application/zip': () =>
    Buffer.concat([
      hex('504b0304 1400 0000 0000 0000 0000 00000000 05000000 05000000 0500 0000'),
      Buffer.from('a.txthello'),
    ]),
  'application/x-shockwave-flash': () =>
    Buffer.concat([Buffer.from('FWS'), hex('0a 40000000 78 00 05 5f 00 00 0f a0 00')]),
};

/** `size` bytes (at least the signature's) that begin as a file of `type` does. */
export function sampleOf(type: string, size = 0): Buffer {
  const make = SIGNATURES[type];
  if (!make) throw new Error(`no sample of ${type}`);
  const signature = make();
  return signature.length >= size ? signature : Buffer.concat([signature, Buffer.alloc(size - signature.length)]);
}
