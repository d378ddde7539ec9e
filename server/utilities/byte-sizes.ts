/**
 * Sizes in words, and sizes as people write them (ADR 0065). Both unit systems are read: kB,
 * MB, GB, TB are powers of 1000, KiB, MiB, GiB, TiB (and a bare K, M, G, T) powers of 1024. A
 * limit someone set (a quota, MAX_UPLOAD_BYTES, a file request's byte limit) reads back in the
 * system it is a round number in, so "1 GB" reads "1 GB" and "500MiB" reads "500 MiB"; what is
 * measured against a limit (used, free, over, left) reads in that limit's system. Any other size
 * (a file's) is said in binary units with their IEC names. Pure: the browser bundle takes it too
 * (app/utils/format.ts), so the pages, the services' messages and the CLI say sizes one way.
 */
export type SizeUnits = 'binary' | 'decimal';

const SYSTEMS: Record<SizeUnits, { base: number; names: string[] }> = {
  binary: { base: 1024, names: ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'] },
  decimal: { base: 1000, names: ['bytes', 'kB', 'MB', 'GB', 'TB'] },
};

/** The unit a size is said in: the largest one it reaches (0: bytes). */
function powerOf(bytes: number, base: number): number {
  let power = 0;
  while (bytes >= base ** (power + 1) && power < 4) power += 1;
  return power;
}

function inUnit(amount: number, power: number, units: SizeUnits): string {
  if (power === 0) return `${amount} ${amount === 1 ? 'byte' : 'bytes'}`;
  return `${amount} ${SYSTEMS[units].names[power]}`;
}

/**
 * An amount, rounded: one decimal under 10, whole above ("1.5 KiB", "578 MiB", "30 kB").
 * `down` never rounds up: room left is never said to be more than there is.
 */
export function formatBytes(
  bytes: number,
  units: SizeUnits = 'binary',
  rounding: 'nearest' | 'down' = 'nearest',
): string {
  const { base } = SYSTEMS[units];
  let power = powerOf(bytes, base);
  const round = rounding === 'down' ? Math.floor : Math.round;
  const rounded = (value: number) => (value >= 10 ? round(value) : round(value * 10) / 10);
  let amount = power === 0 ? bytes : rounded(bytes / base ** power);
  // 999,999 bytes round to 1000 kB: that is 1 MB.
  if (amount >= base && power < 4) {
    power += 1;
    amount = rounded(bytes / base ** power);
  }
  return inUnit(amount, power, units);
}

/** How many significant digits the exact amount of `bytes` has in its unit of `units` (500 MiB: 1; 524.288 MB: 6). */
function digitsIn(bytes: number, units: SizeUnits): number {
  const power = powerOf(bytes, SYSTEMS[units].base);
  // bytes / 1024^p is bytes * 5^(10p) / 10^(10p): its digits are those of the product, exactly.
  const digits = units === 'binary' ? BigInt(bytes) * 5n ** BigInt(10 * power) : BigInt(bytes);
  return digits.toString().replace(/0+$/, '').length || 1;
}

/**
 * The system a limit reads in: the one its amount is roundest in (10^9 bytes: 1 GB, not
 * 953.7 MiB; 2^30: 1 GiB). Between two as round, the larger unit (1000 bytes: 1 kB), then binary.
 */
export function unitsOf(limitBytes: number): SizeUnits {
  const decimal = digitsIn(limitBytes, 'decimal');
  const binary = digitsIn(limitBytes, 'binary');
  if (decimal !== binary) return decimal < binary ? 'decimal' : 'binary';
  return powerOf(limitBytes, 1000) > powerOf(limitBytes, 1024) ? 'decimal' : 'binary';
}

/** A limit as it was set: in its own system, its amount to three decimals ("500 MB", "1.5 GiB", "1.024 GB"). */
export function formatLimit(limitBytes: number): string {
  const units = unitsOf(limitBytes);
  const power = powerOf(limitBytes, SYSTEMS[units].base);
  return inUnit(Math.round((limitBytes / SYSTEMS[units].base ** power) * 1000) / 1000, power, units);
}

const POWERS = 'bkmgt';

/**
 * `500MB`, `500 MiB`, `2G`, `2GiB`, `1.5 GB`, `1048576`, whatever the case, in bytes. KB (kB), MB,
 * GB and TB are powers of 1000 (what disk makers and most people mean by them); KiB, MiB, GiB,
 * TiB and the bare K, M, G, T are powers of 1024 (a bare G is what `ls -h` and `df -h` print).
 * No unit, or B: bytes. Null: not a size, or more bytes than a database counts exactly.
 */
export function readSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:([kmgt])(i?b)?|b)?\s*$/i.exec(text);
  if (!match) return null;
  const [, amount, prefix, suffix] = match;
  const units: SizeUnits = prefix !== undefined && suffix?.toLowerCase() === 'b' ? 'decimal' : 'binary';
  const power = prefix ? POWERS.indexOf(prefix.toLowerCase()) : 0;
  const bytes = Math.round(Number(amount) * SYSTEMS[units].base ** power);
  return Number.isSafeInteger(bytes) ? bytes : null;
}
