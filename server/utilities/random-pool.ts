// Random bytes drawn 4 KiB at a time from the system's generator (as crypto.randomUUID does),
// for the small random values made on every request: CSP nonces, file ids, temporary file
// names. One call to the generator per few hundred values instead of one each, which showed
// in small requests' profiles. Each byte is handed out once, and a pool is never refilled in
// place, so a value a caller keeps never changes. Secrets (API tokens, the session secret)
// are drawn directly, never from here.
import { randomBytes } from 'node:crypto';

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let taken = 0;

/** `size` fresh random bytes (a view into the pool: read them, never write them). */
export function pooledRandomBytes(size: number): Buffer {
  if (size > POOL_BYTES) return randomBytes(size);
  if (taken + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    taken = 0;
  }
  taken += size;
  return pool.subarray(taken - size, taken);
}
