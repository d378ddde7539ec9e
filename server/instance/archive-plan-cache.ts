// The "Download all" archives an instance laid out lately, each kept with the state of its
// collection it was made from (ADR 0055): a request whose collection still says the same takes
// the plan as it is. Bounded by the memory the plans hold, the least recently used going first.
import type { ZipPlan } from '../archive/zip-plan';

/** All plans kept, at most: room for the largest a collection can have (10,000 paths of 1 KiB). */
const MAX_KEPT_BYTES = 16 * 1024 * 1024;

/** A collection's archive laid out: the plan, where each entry's content is stored, and its ETag. */
export interface PlannedArchive {
  plan: ZipPlan;
  /** Entry `i`'s content is the stored object `storedNames[i]`. */
  storedNames: string[];
  etag: string;
  /**
   * What would make it leave out another file: the first expiry of its files' own links (ms),
   * and how many of the collection's files had used up their downloads (null: none has a limit).
   */
  goneWhen: { firstExpiry: number; usedUp: number | null };
  /** About what all of it holds in memory. */
  heldBytes: number;
}

export class ArchivePlanCache {
  private readonly kept = new Map<string, { state: string; archive: PlannedArchive }>();
  private readonly underWay = new Map<string, Promise<PlannedArchive>>();
  private bytes = 0;

  constructor(private readonly maxBytes = MAX_KEPT_BYTES) {}

  /** The archive kept for the collection in `state`, if any. */
  find(collectionId: string, state: string): PlannedArchive | undefined {
    const kept = this.kept.get(collectionId);
    if (kept?.state !== state) return undefined;
    // Most recently used last: the first in the map is the next to go.
    this.kept.delete(collectionId);
    this.kept.set(collectionId, kept);
    return kept.archive;
  }

  /**
   * What `layOut` gives, kept when it says so (a collection changed while it was laid out is
   * not); requests for the same collection and state meanwhile share it.
   */
  layOut(
    collectionId: string,
    state: string,
    layOut: () => Promise<{ archive: PlannedArchive; keep: boolean }>,
  ): Promise<PlannedArchive> {
    const key = `${collectionId}\n${state}`;
    let underWay = this.underWay.get(key);
    if (!underWay) {
      underWay = layOut().then(({ archive, keep }) => {
        if (keep) this.keep(collectionId, state, archive);
        return archive;
      });
      this.underWay.set(key, underWay);
      const done = () => this.underWay.delete(key);
      underWay.then(done, done);
    }
    return underWay;
  }

  private keep(collectionId: string, state: string, archive: PlannedArchive): void {
    this.forget(collectionId);
    if (archive.heldBytes > this.maxBytes) return;
    this.kept.set(collectionId, { state, archive });
    this.bytes += archive.heldBytes;
    for (const [id] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(id);
    }
  }

  private forget(collectionId: string): void {
    const kept = this.kept.get(collectionId);
    if (!kept) return;
    this.kept.delete(collectionId);
    this.bytes -= kept.archive.heldBytes;
  }
}
