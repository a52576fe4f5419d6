/**
 * A fetched record as a view of the fetch response (Consumer.pollViews): the fields that are
 * plain numbers and strings are set when it is taken; its offset (a bigint), key, value and
 * headers are made when first read (keys and values as views of the fetched bytes, never
 * copies) and then kept. A poll that only looks at some fields allocates nothing for the
 * others: no bigint, Buffer view or header array per record.
 *
 * It reads like a ConsumerRecord (the same fields, keys and values as raw bytes: the
 * consumer's deserializers do not apply), but the lazy fields are getters: spreading or
 * JSON-serializing a view leaves them out; `toRecord()` gives a plain ConsumerRecord. A view
 * keeps its whole fetched batch in memory for as long as it is kept.
 */
import { recordHeaders, view, type ConsumerRecord, type ConsumerRecordHeader, type RawRecord } from './record-spans.js';

const UNREAD = undefined;

export class ConsumerRecordView implements ConsumerRecord<Buffer, Buffer, Buffer> {
  readonly topic: string;
  readonly partition: number;
  /** The offset as a number (exact: the consumer refuses offsets beyond 2^53). */
  readonly offsetNumber: number;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  readonly timestampType: 'CreateTime' | 'LogAppendTime';
  readonly leaderEpoch: number;
  /** Bytes of the key and the value, -1 for null: known without reading them. */
  readonly keySize: number;
  readonly valueSize: number;
  private readonly buffer: Buffer;
  private readonly keyStart: number;
  private readonly valueStart: number;
  private readonly headersStart: number;
  private readonly headerCount: number;
  private keyRead: Buffer | null | undefined = UNREAD;
  private valueRead: Buffer | null | undefined = UNREAD;
  private headersRead: ConsumerRecordHeader[] | undefined = UNREAD;

  /** From the record PartitionRecords just decoded (its spans are copied: `raw` is reused). */
  constructor(raw: RawRecord) {
    this.topic = raw.topic;
    this.partition = raw.partition;
    this.offsetNumber = raw.offset;
    this.timestamp = raw.timestamp;
    this.timestampType = raw.timestampType;
    this.leaderEpoch = raw.leaderEpoch;
    this.buffer = raw.buffer;
    this.keyStart = raw.keyStart;
    this.keySize = raw.keyLength;
    this.valueStart = raw.valueStart;
    this.valueSize = raw.valueLength;
    this.headersStart = raw.headersStart;
    this.headerCount = raw.headerCount;
  }

  get offset(): bigint {
    return BigInt(this.offsetNumber);
  }

  get key(): Buffer | null {
    if (this.keyRead === UNREAD) this.keyRead = this.keySize < 0 ? null : view(this.buffer, this.keyStart, this.keySize);
    return this.keyRead;
  }

  get value(): Buffer | null {
    if (this.valueRead === UNREAD) this.valueRead = this.valueSize < 0 ? null : view(this.buffer, this.valueStart, this.valueSize);
    return this.valueRead;
  }

  get headers(): ConsumerRecordHeader[] {
    if (this.headersRead === UNREAD) {
      this.headersRead = this.headerCount === 0 ? [] : recordHeaders({
        topic: this.topic, partition: this.partition, offset: this.offsetNumber, buffer: this.buffer, keyStart: this.keyStart, keyLength: this.keySize,
        valueStart: this.valueStart, valueLength: this.valueSize, headersStart: this.headersStart, headerCount: this.headerCount,
        timestamp: this.timestamp, timestampType: this.timestampType, leaderEpoch: this.leaderEpoch,
      });
    }
    return this.headersRead;
  }

  /** The record as a plain ConsumerRecord (every field read). */
  toRecord(): ConsumerRecord {
    return {
      topic: this.topic, partition: this.partition, offset: this.offset, key: this.key, value: this.value, headers: this.headers,
      timestamp: this.timestamp, timestampType: this.timestampType, leaderEpoch: this.leaderEpoch,
    };
  }

  toJSON(): unknown {
    const r = this.toRecord();
    return { ...r, offset: r.offset.toString() };
  }
}
