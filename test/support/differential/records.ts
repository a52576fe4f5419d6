/**
 * Record batches for differential tests: deterministic batches (fixed timestamps, keys and
 * values, so both brokers store the same bytes), a legacy magic v1 message, hand-built
 * request frames, and the comparison of fetched record bytes across brokers whose producer
 * ids differ.
 */
import {
  encodeRecordBatch,
  iterateBatches,
  MAGIC_V2,
  PRODUCER_ID_OFFSET,
  updateBatchCrc,
} from '../../../src/protocol/records/index.js';

/** Timestamps of the test records: fixed, so the stored bytes are the same on both brokers. */
export const T0 = 1_700_000_000_000;

export interface BatchOptions {
  /** Record i gets timestamp T0 + (first + i) * 1000 and key/value derived from first + i. */
  readonly first?: number;
  readonly valueSize?: number;
  readonly producerId?: bigint;
  readonly producerEpoch?: number;
  readonly baseSequence?: number;
}

/** An uncompressed v2 batch of `count` records. */
export function testBatch(count: number, options: BatchOptions = {}): Buffer {
  const first = options.first ?? 0;
  const records = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`key-${first + i}`),
    value: Buffer.alloc(options.valueSize ?? 16, (first + i) & 0xff),
    headers: [{ key: 'h', value: Buffer.from(String(first + i)) }],
    timestamp: T0 + (first + i) * 1000,
  }));
  return encodeRecordBatch({
    records, producerId: options.producerId, producerEpoch: options.producerEpoch, baseSequence: options.baseSequence,
  });
}

let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE), the checksum of legacy messages. */
function crc32(data: Buffer): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of data) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** One valid legacy magic v1 message (offset, size, crc, magic 1, attributes, timestamp, key, value). */
export function legacyV1Message(value: string): Buffer {
  const v = Buffer.from(value);
  const body = Buffer.alloc(1 + 1 + 8 + 4 + 4 + v.length);
  body.writeInt8(1, 0);
  body.writeInt8(0, 1);
  body.writeBigInt64BE(BigInt(T0), 2);
  body.writeInt32BE(-1, 10);
  body.writeInt32BE(v.length, 14);
  v.copy(body, 18);
  const out = Buffer.alloc(8 + 4 + 4 + body.length);
  out.writeInt32BE(4 + body.length, 8);
  out.writeUInt32BE(crc32(body), 12);
  body.copy(out, 16);
  return out;
}

/**
 * A request frame (size prefix excluded) with a v1 request header (api key, version,
 * correlation id, null client id), plus a v2 header's empty tagged-field section when
 * `flexibleHeader`, followed by `body`.
 */
export function requestFrame(apiKey: number, version: number, correlationId: number, body: Buffer, flexibleHeader: boolean): Buffer {
  const header = Buffer.alloc(flexibleHeader ? 11 : 10);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(version, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(-1, 8);
  return Buffer.concat([header, body]);
}

/** `frame` behind its int32 size prefix, as it goes on the wire. */
export function withSizePrefix(frame: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(frame.length, 0);
  return Buffer.concat([size, frame]);
}

/**
 * Brook's fetched records with Brook's producer id replaced by Kafka's (and each changed
 * batch's CRC recomputed): the bytes Kafka should have sent if the two brokers handed out
 * the same producer id. Batches without that producer id are left as they are.
 */
export function withProducerId(records: Buffer, from: bigint, to: bigint): Buffer {
  if (from === to) return records;
  const out = Buffer.from(records);
  for (const batch of iterateBatches(out)) {
    if (batch.magic !== MAGIC_V2 || batch.buffer.readBigInt64BE(PRODUCER_ID_OFFSET) !== from) continue;
    batch.buffer.writeBigInt64BE(to, PRODUCER_ID_OFFSET);
    updateBatchCrc(out, batch.position);
  }
  return out;
}
