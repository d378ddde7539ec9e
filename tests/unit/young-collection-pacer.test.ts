// The pace of young-generation collections during streamed bodies (ADR 0023): one collection
// per YOUNG_COLLECTION_EVERY_BYTES, counted over every request together, none without `gc`.
import { describe, expect, it } from 'vitest';
import { YOUNG_COLLECTION_EVERY_BYTES, YoungCollectionPacer } from '../../server/young-collection-pacer';

const CHUNK = 64 * 1024;

function counting() {
  const calls = { count: 0 };
  return { calls, collect: () => void calls.count++ };
}

describe('young-collection pacer', () => {
  it('when one interval of bytes goes by in 64 KiB chunks, then exactly one collection is asked for, at the last chunk', () => {
    const { calls, collect } = counting();
    const pacer = new YoungCollectionPacer(collect);
    const chunks = YOUNG_COLLECTION_EVERY_BYTES / CHUNK;
    for (let i = 1; i < chunks; i++) pacer.bytesPassed(CHUNK);
    expect(calls.count).toBe(0);
    pacer.bytesPassed(CHUNK);
    expect(calls.count).toBe(1);
  });

  it('when several bodies interleave, then their bytes share one pace (not one collection per body per interval)', () => {
    const { calls, collect } = counting();
    const pacer = new YoungCollectionPacer(collect);
    // Eight uploads sending one interval's bytes each, chunk by chunk in turn.
    for (let round = 0; round < YOUNG_COLLECTION_EVERY_BYTES / CHUNK; round++) {
      for (let upload = 0; upload < 8; upload++) pacer.bytesPassed(CHUNK);
    }
    expect(calls.count).toBe(8);
  });

  it('when the count restarts after a collection, then the next one comes a whole interval later', () => {
    const { calls, collect } = counting();
    const pacer = new YoungCollectionPacer(collect, 1000);
    pacer.bytesPassed(1500);
    expect(calls.count).toBe(1);
    pacer.bytesPassed(900);
    expect(calls.count).toBe(1);
    pacer.bytesPassed(100);
    expect(calls.count).toBe(2);
  });

  it('when node runs without --expose-gc, then nothing is collected and nothing fails', () => {
    const pacer = new YoungCollectionPacer(null);
    expect(() => pacer.bytesPassed(10 * YOUNG_COLLECTION_EVERY_BYTES)).not.toThrow();
  });
});
