/**
 * KafkaJS's checks of consumer call arguments (subscribe, pause, resume, commitOffsets), made
 * before anything is done, with KafkaJS's messages: a KafkaJSNonRetriableError naming what is
 * wrong, as KafkaJS 2.2.4 throws it.
 */
import { KafkaJSNonRetriableError } from './errors.js';

function fail(message: string): never {
  throw new KafkaJSNonRetriableError(message);
}

export function checkSubscribe(subscription: { topic?: unknown; topics?: unknown } | null | undefined): void {
  const { topic, topics } = subscription ?? {};
  if (!topic && !topics) fail('Missing required argument "topics"');
  if (topics !== null && topics !== undefined && !Array.isArray(topics)) fail('Argument "topics" must be an array');
  for (const t of (topics as unknown[] | undefined) ?? [topic]) {
    if (typeof t !== 'string' && !(t instanceof RegExp)) fail(`Invalid topic ${String(t)} (${typeof t}), the topic name has to be a String or a RegExp`);
  }
}

/** pause and resume: each entry a topic, with valid partitions if any; then run() must have been called. */
export function checkTopicPartitions(entries: unknown, ran: boolean, what: 'pause' | 'resume'): void {
  for (const e of (entries as { topic?: unknown; partitions?: unknown }[] | undefined) ?? []) {
    if (!e || !e.topic) fail(`Invalid topic ${String((e && e.topic) || e)}`);
    if (e.partitions !== undefined && (!Array.isArray(e.partitions) || e.partitions.some((p) => Number.isNaN(Number(p))))) {
      fail(`Array of valid partitions required to ${what} specific partitions instead of ${String(e.partitions)}`);
    }
  }
  if (!ran) fail('Consumer group was not initialized, consumer#run must be called first');
}

/** commitOffsets: topic, partition, an offset that is a long and not negative, metadata a string or null; then run() must have been called. */
export function checkCommitOffsets(offsets: unknown, ran: boolean): void {
  for (const o of (offsets as { topic?: unknown; partition?: unknown; offset?: unknown; metadata?: unknown }[] | undefined) ?? []) {
    if (!o.topic) fail(`Invalid topic ${String(o.topic)}`);
    if (Number.isNaN(Number(o.partition))) fail(`Invalid partition, expected a number received ${String(o.partition)}`);
    if (!/^-?\d+$/.test(String(o.offset).trim())) fail(`Invalid offset, expected a long received ${String(o.offset)}`);
    if (BigInt(String(o.offset).trim()) < 0n) fail('Offset must not be a negative number');
    if (o.metadata !== undefined && o.metadata !== null && typeof o.metadata !== 'string') fail(`Invalid offset metadata, expected string or null, received ${String(o.metadata)}`);
  }
  if (!ran) fail('Consumer group was not initialized, consumer#run must be called first');
}
