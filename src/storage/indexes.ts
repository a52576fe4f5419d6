/**
 * A segment's sparse indexes, kept in memory in Kafka's file format so persisting one is a
 * single write of its bytes:
 *   .index      entries of (relative offset int32, file position int32), 8 bytes
 *   .timeindex  entries of (timestamp int64, relative offset int32), 12 bytes
 * Relative offsets are to the segment's base offset; all big-endian, as Kafka writes them.
 * Like Kafka's LogSegment, an offset entry maps the LAST offset of a batch to the batch's
 * position, and a time entry holds the segment's largest timestamp so far and the last
 * offset of the batch that carried it.
 */
const OFFSET_ENTRY = 8;
const TIME_ENTRY = 12;

class GrowableEntries {
  protected buf: Buffer;
  protected count = 0;

  constructor(protected readonly entrySize: number, initial?: Buffer) {
    this.buf = Buffer.allocUnsafe(Math.max(entrySize * 32, initial?.length ?? 0));
    if (initial) {
      initial.copy(this.buf);
      this.count = initial.length / entrySize;
    }
  }

  get entries(): number {
    return this.count;
  }

  /** The file contents: a view, valid until the next append. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.count * this.entrySize);
  }

  protected slot(): number {
    const at = this.count * this.entrySize;
    if (at + this.entrySize > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, at + this.entrySize));
      this.buf.copy(bigger, 0, 0, at);
      this.buf = bigger;
    }
    this.count++;
    return at;
  }
}

export class OffsetIndex extends GrowableEntries {
  constructor(initial?: Buffer) {
    super(OFFSET_ENTRY, initial);
  }

  append(relativeOffset: number, position: number): void {
    const at = this.slot();
    this.buf.writeInt32BE(relativeOffset, at);
    this.buf.writeInt32BE(position, at + 4);
  }

  relativeOffsetAt(i: number): number {
    return this.buf.readInt32BE(i * OFFSET_ENTRY);
  }

  positionAt(i: number): number {
    return this.buf.readInt32BE(i * OFFSET_ENTRY + 4);
  }

  /** Position of the last entry whose offset is <= `relativeOffset` (Kafka's OffsetIndex.lookup), else 0. */
  lookup(relativeOffset: number): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.relativeOffsetAt(mid) <= relativeOffset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? 0 : this.positionAt(found);
  }

  /**
   * Kafka's fetchUpperBoundOffset: the relative offset of the first entry whose position is
   * >= `position`, else -1. Bounds the aborted transactions a read_committed fetch answers.
   */
  upperBoundOffset(position: number): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.positionAt(mid) >= position) {
        found = mid;
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    return found < 0 ? -1 : this.relativeOffsetAt(found);
  }

  /** The largest indexed batch position that is <= `position`, else 0. */
  floorPosition(position: number): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const p = this.positionAt(mid);
      if (p <= position) {
        found = p;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /**
   * A stored index if it is well-formed for a log of `logSize` bytes: whole entries, offsets
   * and positions strictly increasing, positions inside the log. Else null (rebuild it).
   */
  static load(data: Buffer | null, logSize: number): OffsetIndex | null {
    if (!data || data.length % OFFSET_ENTRY !== 0) return null;
    let lastOffset = -1;
    let lastPosition = -1;
    for (let at = 0; at < data.length; at += OFFSET_ENTRY) {
      const offset = data.readInt32BE(at);
      const position = data.readInt32BE(at + 4);
      if (offset <= lastOffset || position <= lastPosition || position >= logSize) return null;
      lastOffset = offset;
      lastPosition = position;
    }
    return new OffsetIndex(data);
  }
}

export class TimeIndex extends GrowableEntries {
  private lastTimestamp = -1n;

  constructor(initial?: Buffer) {
    super(TIME_ENTRY, initial);
    if (this.count > 0) this.lastTimestamp = this.timestampAt(this.count - 1);
  }

  timestampAt(i: number): bigint {
    return this.buf.readBigInt64BE(i * TIME_ENTRY);
  }

  relativeOffsetAt(i: number): number {
    return this.buf.readInt32BE(i * TIME_ENTRY + 8);
  }

  /** Kafka's TimeIndex.maybeAppend: only when the timestamp grew (an empty index starts at "no timestamp", -1). */
  maybeAppend(timestamp: bigint, relativeOffset: number): void {
    if (timestamp <= this.lastTimestamp) return;
    const at = this.slot();
    this.buf.writeBigInt64BE(timestamp, at);
    this.buf.writeInt32BE(relativeOffset, at + 8);
    this.lastTimestamp = timestamp;
  }

  /** The last entry, which after a seal or clean close is the segment's largest timestamp. */
  last(): { timestamp: bigint; relativeOffset: number } | null {
    if (this.count === 0) return null;
    return { timestamp: this.lastTimestamp, relativeOffset: this.relativeOffsetAt(this.count - 1) };
  }

  /**
   * The relative offset of the last entry whose timestamp is strictly below `timestamp`, or -1.
   * Every batch up to that offset has a max timestamp below the target, so a search for the
   * first timestamp >= target may start there.
   */
  offsetBefore(timestamp: bigint): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.timestampAt(mid) < timestamp) {
        found = this.relativeOffsetAt(mid);
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** A stored time index if well-formed: whole entries, timestamps and offsets increasing, offsets <= maxRelativeOffset. */
  static load(data: Buffer | null, maxRelativeOffset: number): TimeIndex | null {
    if (!data || data.length % TIME_ENTRY !== 0) return null;
    let lastTimestamp: bigint | null = null;
    let lastOffset = -1;
    for (let at = 0; at < data.length; at += TIME_ENTRY) {
      const timestamp = data.readBigInt64BE(at);
      const offset = data.readInt32BE(at + 8);
      if ((lastTimestamp !== null && timestamp <= lastTimestamp) || offset < lastOffset || offset > maxRelativeOffset) return null;
      lastTimestamp = timestamp;
      lastOffset = offset;
    }
    return new TimeIndex(data);
  }
}
