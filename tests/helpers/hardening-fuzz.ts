// The multipart fuzz generator (tests/hardening/multipart-fuzz.test.ts): one valid upload
// body, mutated by a seeded PRNG, so any case can be rebuilt from the seed and its index.

const FUZZ_BOUNDARY = 'fuzz-boundary-Xq3v9';
const BOUNDARY = FUZZ_BOUNDARY;

export type Random = () => number;
const int = (random: Random, max: number) => Math.floor(random() * max);
const pick = <T>(random: Random, items: readonly T[]): T => items[int(random, items.length)];

const FILENAME_STARS = [
  "UTF-8''a%0D%0Ab.txt",
  "UTF-8''%0D%0ASet-Cookie%3A%20x%3D1",
  "utf-8'en'r%C3%A9sum%C3%A9%20%F0%9F%93%84.pdf",
  "ISO-8859-1''caf%E9.txt",
  "UTF-8''%FF%FE%00.bin",
  "UTF-8''%E0%A4%A",
  "x-unknown''name.txt",
  "UTF-8''..%2F..%2Fetc%2Fpasswd",
  "UTF-8''%22quoted%22%3B%20filename%3D%22b.exe",
  "''",
  "UTF-8''%",
  "UTF-8''%C0%AE%C0%AE%2F",
];
const HEADERS = [
  'Content-Type: text/html',
  'Content-Type: ',
  'Content-Type: multipart/mixed; boundary=inner',
  'Content-Transfer-Encoding: base64',
  'Content-Transfer-Encoding: quoted-printable',
  'Content-Disposition: form-data; name="file"; filename="second.txt"',
  'Content-Disposition: attachment',
  'Content-Disposition: form-data',
  'Content-Disposition: form-data; name=file; filename=unquoted.txt',
  `Content-Disposition: form-data; name="file"; filename="${'L'.repeat(400)}.txt"`,
  'X-Junk: \u00ff\u00fe',
  ': no name',
  'no colon at all',
  `X-Long: ${'z'.repeat(2_000)}`,
];
const CONTENT_TYPES = [
  `multipart/form-data; boundary=${BOUNDARY}`,
  `multipart/form-data; boundary="${BOUNDARY}"`,
  `multipart/form-data; charset=utf-8; boundary=${BOUNDARY}`,
  `multipart/form-data; boundary=${BOUNDARY}x`,
  `multipart/form-data; boundary=${BOUNDARY.slice(0, -1)}`,
  'multipart/form-data; boundary=',
  `MULTIPART/FORM-DATA; BOUNDARY=${BOUNDARY}`,
];

function baseBody(random: Random): Buffer {
  const content = Buffer.alloc(1 + int(random, 3_000));
  for (let i = 0; i < content.length; i++) content[i] = int(random, 256);
  const nameParam =
    random() < 0.5 ? `filename="base-${int(random, 1000)}.bin"` : `filename*=${pick(random, FILENAME_STARS)}`;
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; ${nameParam}\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

const MUTATIONS: Array<(random: Random, body: Buffer) => Buffer> = [
  // Flip a few bytes.
  (random, body) => {
    const copy = Buffer.from(body);
    for (let i = 1 + int(random, 8); i > 0 && copy.length; i--) copy[int(random, copy.length)] ^= 1 << int(random, 8);
    return copy;
  },
  // Insert random bytes (sometimes CR LF or dashes, which matter to the parser).
  (random, body) => {
    const at = int(random, body.length + 1);
    const insert = pick(random, [
      Buffer.from('\r\n'),
      Buffer.from('--'),
      Buffer.from('\r\n\r\n'),
      Buffer.from([int(random, 256), int(random, 256)]),
    ]);
    return Buffer.concat([body.subarray(0, at), insert, body.subarray(at)]);
  },
  // Delete a range.
  (random, body) => {
    const at = int(random, body.length);
    return Buffer.concat([body.subarray(0, at), body.subarray(at + 1 + int(random, 64))]);
  },
  // Truncate.
  (random, body) => body.subarray(0, int(random, body.length)),
  // Duplicate a boundary line somewhere.
  (random, body) => {
    const at = int(random, body.length + 1);
    const line = pick(random, [
      `\r\n--${BOUNDARY}\r\n`,
      `--${BOUNDARY}--\r\n`,
      `\r\n--${BOUNDARY}`,
      `--${BOUNDARY}\r\n\r\n`,
    ]);
    return Buffer.concat([body.subarray(0, at), Buffer.from(line, 'latin1'), body.subarray(at)]);
  },
  // A random header inside the file part's header block.
  (random, body) => {
    const marker = body.indexOf('Content-Type: application/octet-stream\r\n');
    if (marker < 0) return body;
    return Buffer.concat([
      body.subarray(0, marker),
      Buffer.from(`${pick(random, HEADERS)}\r\n`, 'latin1'),
      body.subarray(marker),
    ]);
  },
  // Replace the filename parameter with a random filename* encoding.
  (random, body) => {
    const text = body.toString('latin1');
    return Buffer.from(
      text.replace(/filename\*?=("[^"]*"|[^\r\n;]*)/, `filename*=${pick(random, FILENAME_STARS)}`),
      'latin1',
    );
  },
  // Drop the closing boundary, or repeat it.
  (random, body) => {
    const close = Buffer.from(`--${BOUNDARY}--`);
    const at = body.lastIndexOf(close);
    if (at < 0) return body;
    return random() < 0.5 ? body.subarray(0, at) : Buffer.concat([body, close, Buffer.from('\r\n')]);
  },
];

export interface FuzzCase {
  body: Buffer;
  contentType: string;
  /** Offsets where the body is cut into separately sent pieces: busboy's behaviour depends on chunking. */
  splitAt: number[];
}

export function fuzzCase(random: Random): FuzzCase {
  let body = baseBody(random);
  for (let i = 1 + int(random, 4); i > 0; i--) body = pick(random, MUTATIONS)(random, body);
  const contentType = random() < 0.85 ? CONTENT_TYPES[0] : pick(random, CONTENT_TYPES);
  const splitAt =
    random() < 0.5
      ? []
      : Array.from({ length: 1 + int(random, 3) }, () => int(random, body.length)).sort((a, b) => a - b);
  return { body, contentType, splitAt };
}
