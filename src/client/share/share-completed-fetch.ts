/**
 * One partition's records from a ShareFetch response (Kafka's ShareCompletedFetch): the
 * fetched batches decoded by the consumer's record decoding (../consumer/record-decoding.ts,
 * control batches skipped), matched against the offsets the broker acquired for this
 * member. Only acquired records are given out, each with its delivery count; an acquired
 * offset without a record (a control record, a compacted gap) is acknowledged as GAP at
 * once, as Kafka's client does. A record that cannot be deserialized is released and its
 * error thrown (the records before it are given out first); corrupt data rejects every
 * acquired offset left, as Kafka rejects a corrupt batch.
 */
import type { AcquiredRecords } from '../../protocol/messages/share-fetch.js';
import { deserializeRecord, type AnyDeserializers } from '../consumer/deserialize.js';
import { RecordDeserializationError } from '../consumer/errors.js';
import { PartitionRecords, type ConsumerRecord } from '../consumer/record-decoding.js';
import { AcknowledgeTypeCode } from './acknowledgements.js';
import type { SharePartition } from './share-membership.js';

/** A record of a share group: a ConsumerRecord with the number of times it has been delivered (Kafka's deliveryCount()). */
export type ShareConsumerRecord<K = Buffer, V = Buffer, H = Buffer> = ConsumerRecord<K, V, H> & { readonly deliveryCount: number };

/** Where acknowledgements the fetch makes by itself (GAP, RELEASE, REJECT) go. */
export type AcknowledgeSink = (partition: SharePartition, offset: number, code: number) => void;

export class ShareCompletedFetch {
  /** Acquired offsets not yet given out or acknowledged, in order: [offset, deliveryCount]. */
  private readonly acquired: [number, number][] = [];
  private next = 0;
  private readonly records: PartitionRecords | null;
  private peeked: ConsumerRecord | null = null;
  private recordsDone = false;
  private pendingError: Error | null = null;

  constructor(
    readonly partition: SharePartition,
    /** The leader the records came from: its share session acknowledges them. */
    readonly nodeId: number,
    records: Buffer | null,
    acquired: readonly AcquiredRecords[],
    private readonly deserializers: AnyDeserializers | null,
    private readonly sink: AcknowledgeSink,
  ) {
    for (const a of [...acquired].sort((x, y) => (x.firstOffset < y.firstOffset ? -1 : 1))) {
      for (let o = Number(a.firstOffset); o <= Number(a.lastOffset); o++) this.acquired.push([o, a.deliveryCount]);
    }
    const first = this.acquired[0]?.[0];
    this.records = first === undefined || records === null || records.length === 0
      ? null
      : new PartitionRecords(partition.topic, partition.partition, BigInt(first), 0, records, -1n, false, null, null);
  }

  /** Every acquired offset was given out or acknowledged. */
  get drained(): boolean {
    return this.next >= this.acquired.length && this.pendingError === null;
  }

  /** Acquired offsets not given out yet (close() and unsubscribe() release them). */
  remaining(): number[] {
    return this.acquired.slice(this.next).map(([o]) => o);
  }

  /** Marks everything left as handled (after remaining() was released). */
  discard(): void {
    this.next = this.acquired.length;
    this.pendingError = null;
  }

  /** Appends up to `max` acquired records to `out`; returns how many. */
  take(max: number, out: ShareConsumerRecord<unknown, unknown, unknown>[]): number {
    if (this.pendingError !== null) {
      const err = this.pendingError;
      this.pendingError = null;
      throw err;
    }
    let n = 0;
    while (n < max && this.next < this.acquired.length) {
      const [offset, deliveryCount] = this.acquired[this.next]!;
      let record: ConsumerRecord | null;
      try {
        record = this.peek();
      } catch (err) {
        // Corrupt data: nothing after this point can be read, so what is left is rejected.
        for (const o of this.remaining()) this.sink(this.partition, o, AcknowledgeTypeCode.REJECT);
        this.next = this.acquired.length;
        if (n === 0) throw err;
        this.pendingError = err as Error;
        return n;
      }
      if (record === null || Number(record.offset) > offset) {
        this.sink(this.partition, offset, AcknowledgeTypeCode.GAP);
        this.next++;
        continue;
      }
      this.peeked = null;
      if (Number(record.offset) < offset) continue;
      this.next++;
      try {
        const built = this.deserializers === null ? record : deserializeRecord(this.deserializers, record);
        out.push({ ...built, deliveryCount });
        n++;
      } catch (err) {
        // As Kafka: the record is released for another delivery and the error goes to the application.
        this.sink(this.partition, offset, AcknowledgeTypeCode.RELEASE);
        const failure = new RecordDeserializationError(record, err instanceof RecordDeserializationError ? err.origin : 'value',
          err instanceof RecordDeserializationError ? err.cause : err, 'the record was released, to be delivered again');
        if (n === 0) throw failure;
        this.pendingError = failure;
        return n;
      }
    }
    return n;
  }

  /** The next decoded record (not taken), or null when the batches hold no more. */
  private peek(): ConsumerRecord | null {
    if (this.peeked !== null) return this.peeked;
    if (this.records === null || this.recordsDone) return null;
    const one: ConsumerRecord[] = [];
    if (this.records.take(1, one) === 0) {
      this.recordsDone = true;
      return null;
    }
    this.peeked = one[0]!;
    return this.peeked;
  }
}
