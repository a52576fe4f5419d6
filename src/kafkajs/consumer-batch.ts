/** Brook's records as KafkaJS's messages and batches, and the small helpers of the run loop. */
import type { ConsumerRecord } from '../client/consumer/index.js';
import type { Batch, KafkaMessage, OffsetsByTopicPartition } from './consumer-types.js';

export const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/** A record as KafkaJS gives it: offsets and timestamps as strings, repeated headers as arrays. */
export function toKafkaMessage(r: ConsumerRecord): KafkaMessage {
  const headers: Record<string, Buffer | Buffer[]> = {};
  for (const h of r.headers) {
    const value = h.value ?? Buffer.alloc(0);
    const seen = headers[h.key];
    headers[h.key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  const size = (r.key?.length ?? 0) + (r.value?.length ?? 0);
  // magicByte 2 and isControlRecord false: the record batch format Brook's fetches read, as KafkaJS labels its messages.
  return { magicByte: 2, key: r.key, value: r.value, timestamp: String(r.timestamp), attributes: 0, offset: String(r.offset), size, headers, isControlRecord: false };
}

/** One partition's records of a poll as KafkaJS's Batch; `highWatermark` from the last fetch (the batch's end when unknown). */
export function toBatch(records: readonly ConsumerRecord[], highWatermark: bigint | null): Batch {
  const messages = records.map(toKafkaMessage);
  const first = records[0]!.offset;
  const last = records[records.length - 1]!.offset;
  const hw = highWatermark ?? last + 1n;
  const lagAfter = (offset: bigint): string => String(hw - 1n - offset < 0n ? 0n : hw - 1n - offset);
  return {
    topic: records[0]!.topic, partition: records[0]!.partition, highWatermark: String(hw), messages,
    isEmpty: () => messages.length === 0,
    firstOffset: () => messages[0]?.offset ?? null,
    lastOffset: () => String(last),
    offsetLag: () => lagAfter(last),
    offsetLagLow: () => lagAfter(first),
  };
}

/**
 * Offsets grouped by topic, KafkaJS's OffsetsByTopicPartition. KafkaJS keys its resolved offsets
 * by partition in an object, so the partitions it reports of them (uncommittedOffsets(), the
 * COMMIT_OFFSETS event of an automatic commit) are strings at run time, its typings aside.
 */
export function byTopic(offsets: readonly { topic: string; partition: number; offset: string }[], partitionAsString = false): OffsetsByTopicPartition {
  const topics = new Map<string, { partition: number; offset: string }[]>();
  for (const o of offsets) {
    let list = topics.get(o.topic);
    if (!list) topics.set(o.topic, list = []);
    list.push({ partition: (partitionAsString ? String(o.partition) : o.partition) as number, offset: o.offset });
  }
  return { topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })) };
}

/** Waits `ms`, or less when `signal` aborts (stop() does not wait out a retry's pause). */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
