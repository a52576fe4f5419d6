/**
 * What an in-process broker stored, looked at directly: used only to confirm that a client's
 * compressed batches were really compressed (Fetch serves the stored batch bytes unchanged).
 */
import type { Broker } from '../../../src/broker/broker.js';

export const CODEC_ID = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;

/** The compression codec id (attributes bits 0-2) of every batch stored in one partition, in log order. */
export function storedBatchCodecs(broker: Broker, topic: string, partition: number): number[] {
  const log = broker.storage.partition(topic, partition);
  if (!log) throw new Error(`no partition ${topic}-${partition}`);
  const codecs: number[] = [];
  let position = 0n;
  for (;;) {
    const result = log.read(position, 1 << 30, { minOneBatch: true });
    const before = position;
    for (const chunk of result.records) {
      // batch: baseOffset int64, batchLength int32, leaderEpoch int32, magic int8, crc int32,
      // attributes int16 (at 21), lastOffsetDelta int32 (at 23), ...
      for (let at = 0; at + 61 <= chunk.length;) {
        codecs.push(chunk.readInt16BE(at + 21) & 0x07);
        position = chunk.readBigInt64BE(at) + BigInt(chunk.readInt32BE(at + 23)) + 1n;
        at += 12 + chunk.readInt32BE(at + 8);
      }
    }
    if (position >= result.highWatermark || position === before) return codecs;
  }
}

/** The distinct codec ids stored over partitions 0..partitions-1, sorted. */
export function storedCodecSet(broker: Broker, topic: string, partitions: number): number[] {
  const all = new Set<number>();
  for (let p = 0; p < partitions; p++) for (const c of storedBatchCodecs(broker, topic, p)) all.add(c);
  return [...all].sort((a, b) => a - b);
}
