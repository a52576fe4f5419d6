/**
 * The sends waiting for metadata or memory, oldest first: a send loop that runs past
 * `bufferMemory` queues most of its records here. Each field is a column, in chunks of a
 * fixed size (numbers in Float64Arrays), so a waiting send costs a slot in each column, not
 * an object of its own, and the queue never copies what it holds: a million waiting records
 * used to be a million objects, promoted to V8's old generation while they waited, and
 * collected from there.
 */
import type { DeliveryTag, DeliveryTarget } from './delivery.js';
import type { Bytes, HeadersInput } from './record-writer.js';
import type { ProducerRecord } from './producer.js';

/** Sends per chunk. */
const CHUNK = 4096;

/** One chunk of the columns. */
class Chunk {
  readonly records = new Array<ProducerRecord<unknown, unknown, unknown> | undefined>(CHUNK);
  readonly keys = new Array<Bytes | undefined>(CHUNK);
  readonly values = new Array<Bytes | undefined>(CHUNK);
  readonly headers = new Array<HeadersInput | undefined>(CHUNK);
  readonly targets = new Array<DeliveryTarget | undefined>(CHUNK);
  readonly tags = new Array<DeliveryTag>(CHUNK);
  readonly upperBounds = new Float64Array(CHUNK);
  readonly timestamps = new Float64Array(CHUNK);
  readonly deadlines = new Float64Array(CHUNK);
}

export class BlockedSends {
  /** The chunks in use, oldest first: the first from `head`, the last up to `tail`. */
  private chunks: Chunk[] = [];
  private head = 0;
  private tail = CHUNK;
  private count = 0;
  /** A chunk emptied, kept for the next one needed (a send loop fills and empties them in turn). */
  private spare: Chunk | null = null;

  get length(): number {
    return this.count;
  }

  /** A send as measured at `send` (key, value and headers as serialized then). */
  push(
    record: ProducerRecord<unknown, unknown, unknown>, key: Bytes, value: Bytes, headers: HeadersInput | undefined,
    upperBound: number, timestamp: number, deadlineMs: number, target: DeliveryTarget, tag: DeliveryTag,
  ): void {
    if (this.tail === CHUNK) {
      this.chunks.push(this.spare ?? new Chunk());
      this.spare = null;
      this.tail = 0;
    }
    const c = this.chunks[this.chunks.length - 1]!;
    const at = this.tail++;
    c.records[at] = record;
    c.keys[at] = key;
    c.values[at] = value;
    c.headers[at] = headers;
    c.upperBounds[at] = upperBound;
    c.timestamps[at] = timestamp;
    c.deadlines[at] = deadlineMs;
    c.targets[at] = target;
    c.tags[at] = tag;
    this.count++;
  }

  // The first waiting send (only while length > 0).
  get record(): ProducerRecord<unknown, unknown, unknown> {
    return this.chunks[0]!.records[this.head]!;
  }

  get key(): Bytes {
    return this.chunks[0]!.keys[this.head]!;
  }

  get value(): Bytes {
    return this.chunks[0]!.values[this.head]!;
  }

  get headersInput(): HeadersInput | undefined {
    return this.chunks[0]!.headers[this.head];
  }

  get upperBound(): number {
    return this.chunks[0]!.upperBounds[this.head]!;
  }

  get timestamp(): number {
    return this.chunks[0]!.timestamps[this.head]!;
  }

  get deadlineMs(): number {
    return this.chunks[0]!.deadlines[this.head]!;
  }

  get target(): DeliveryTarget {
    return this.chunks[0]!.targets[this.head]!;
  }

  get tag(): DeliveryTag {
    return this.chunks[0]!.tags[this.head]!;
  }

  /** Drops the first waiting send. */
  shift(): void {
    const c = this.chunks[0]!;
    const at = this.head++;
    // Let go of what the slot holds: the caller's record and callback.
    c.records[at] = undefined;
    c.keys[at] = undefined;
    c.values[at] = undefined;
    c.headers[at] = undefined;
    c.targets[at] = undefined;
    c.tags[at] = null;
    this.count--;
    if (this.head === CHUNK || this.count === 0) this.dropFirstChunk();
  }

  /** Removes every waiting send; calls `each` with each one's target and tag, oldest first. */
  drain(each: (target: DeliveryTarget, tag: DeliveryTag) => void): void {
    const chunks = this.chunks;
    const head = this.head;
    const tail = this.tail;
    this.chunks = [];
    this.head = 0;
    this.tail = CHUNK;
    this.count = 0;
    chunks.forEach((c, i) => {
      const to = i === chunks.length - 1 ? tail : CHUNK;
      for (let at = i === 0 ? head : 0; at < to; at++) each(c.targets[at]!, c.tags[at]!);
    });
  }

  private dropFirstChunk(): void {
    const c = this.chunks.shift()!;
    this.head = 0;
    // Empty: the next push starts a chunk of its own.
    if (this.chunks.length === 0) this.tail = CHUNK;
    this.spare = c;
  }
}
