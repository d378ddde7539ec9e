// Parts of exactly the part size, copied into reused buffers, from chunks of any size.
import { describe, expect, it } from 'vitest';
import { PART_BYTES, PartAssembler } from '../../server/storage/part-assembler';

function bytes(from: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) buffer[i] = (from + i) % 251;
  return buffer;
}

describe('part assembler', () => {
  it('when chunks straddle part boundaries, then every part is exactly the part size, in order, and the rest is what is left', () => {
    const assembler = new PartAssembler(10, 4);
    const parts: Buffer[] = [];
    let sent = 0;
    for (const size of [3, 7, 1, 12, 5]) {
      for (let part = assembler.add(bytes(sent, size)); part; part = assembler.takeFull()) {
        parts.push(Buffer.from(part.body));
        part.release();
      }
      sent += size;
    }
    expect(parts.map((part) => part.length)).toEqual([10, 10]);
    expect(Buffer.concat([...parts, assembler.takeRest()])).toEqual(bytes(0, 28));
  });

  it('when content ends before the first buffer fills, then only that small buffer was taken and the rest is the content', () => {
    const assembler = new PartAssembler(8 * 1024 * 1024, 64 * 1024);
    expect(assembler.add(bytes(0, 4096))).toBeNull();
    expect(assembler.takeRest()).toEqual(bytes(0, 4096));
  });

  it('when a part is released, then the next part is filled in its buffer; while it is not, a new one is taken', () => {
    const assembler = new PartAssembler(4);
    const first = assembler.add(bytes(0, 4))!;
    const second = assembler.add(bytes(4, 4))!;
    expect(second.body).not.toBe(first.body);
    first.release();
    const third = assembler.add(bytes(8, 4))!;
    expect(third.body).toBe(first.body);
    expect(third.body).toEqual(bytes(8, 4));
  });

  it('when a chunk runs past a full part that is still on its way, then its rest waits for that part to be taken and fills a released buffer, not a new one', () => {
    const assembler = new PartAssembler(4);
    const first = assembler.add(bytes(0, 4))!;
    // Fills a second part and runs 2 bytes past it, while the first is not released.
    const second = assembler.add(bytes(4, 6))!;
    expect(second.body).toEqual(bytes(4, 4));
    first.release();
    expect(assembler.takeFull()).toBeNull();
    const third = assembler.add(bytes(10, 2))!;
    expect(third.body).toBe(first.body);
    expect(third.body).toEqual(bytes(8, 4));
  });

  it('when parts are still to be taken, then adding more or taking the rest is refused rather than losing bytes', () => {
    const assembler = new PartAssembler(4);
    assembler.add(bytes(0, 6));
    expect(() => assembler.add(bytes(6, 1))).toThrow(/not all taken/);
    expect(() => assembler.takeRest()).toThrow(/still to be taken/);
  });

  it('when the rest is taken, then it is a copy: adding more does not change it', () => {
    const assembler = new PartAssembler(8, 8);
    assembler.add(bytes(0, 3));
    const rest = assembler.takeRest();
    assembler.add(bytes(100, 3));
    expect(rest).toEqual(bytes(0, 3));
  });
});

describe('part buffers kept between uploads', () => {
  it('when an upload of full-size parts is over, then the next upload fills its buffers instead of new ones', () => {
    const first = new PartAssembler(PART_BYTES);
    const part = first.add(bytes(0, PART_BYTES))!;
    part.release();
    first.dispose();
    const next = new PartAssembler(PART_BYTES);
    expect(next.add(bytes(7, PART_BYTES))!.body).toBe(part.body);
  });

  it('when a part is still on its way at the end of its upload, then its buffer is never given to another upload', () => {
    const first = new PartAssembler(PART_BYTES);
    const onItsWay = first.add(bytes(0, PART_BYTES))!;
    first.dispose();
    const next = new PartAssembler(PART_BYTES);
    const filled = next.add(bytes(3, PART_BYTES))!;
    expect(filled.body).not.toBe(onItsWay.body);
    expect(onItsWay.body.equals(bytes(0, PART_BYTES))).toBe(true);
  });
});
