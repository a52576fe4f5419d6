/**
 * Where `brook consume --offset` starts on the partitions it assigned itself, as kcat's
 * `-o`: `earliest` (also `beginning`), `latest` (also `end`), an absolute offset N, or -N:
 * N records before each partition's end (from its start when it holds fewer). Also the end
 * offsets `--exit-at-end` stops at, read before the first fetch.
 */
import type { Consumer } from '../client/consumer/consumer.js';
import type { TopicPartition } from '../client/admin/index.js';
import { UsageError } from './options.js';

export type StartOffset =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  | { readonly kind: 'absolute'; readonly offset: bigint }
  | { readonly kind: 'tail'; readonly count: bigint };

export function parseStartOffset(raw: string): StartOffset {
  const text = raw.trim();
  if (text === 'earliest' || text === 'beginning') return { kind: 'earliest' };
  if (text === 'latest' || text === 'end') return { kind: 'latest' };
  if (/^\d+$/.test(text)) return { kind: 'absolute', offset: BigInt(text) };
  if (/^-\d+$/.test(text)) return { kind: 'tail', count: -BigInt(text) };
  throw new UsageError(`--offset must be earliest, latest, N or -N, got '${raw}'`);
}

/** `--partition 0 --partition 2,3` → [0, 2, 3], each checked against the topic's partitions. */
export function parsePartitions(values: readonly string[], topic: string, existing: readonly number[]): number[] {
  const out: number[] = [];
  for (const p of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '')) {
    if (!/^\d+$/.test(p)) throw new UsageError(`--partition expects partition numbers, got '${p}'`);
    const n = Number(p);
    if (!existing.includes(n)) throw new Error(`topic '${topic}' has no partition ${n} (partitions 0-${existing.length - 1})`);
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

async function positions(consumer: Consumer, partitions: readonly TopicPartition[], signal: AbortSignal): Promise<bigint[]> {
  const out: bigint[] = [];
  for (const tp of partitions) out.push(await consumer.position(tp, { signal }));
  return out;
}

/** The log end offsets of `partitions` now (moves their positions: call before positioning). */
export async function endOffsets(consumer: Consumer, partitions: readonly TopicPartition[], signal: AbortSignal): Promise<bigint[]> {
  consumer.seekToEnd(partitions);
  return positions(consumer, partitions, signal);
}

/** Positions every partition where `start` says. */
export async function seekToStart(consumer: Consumer, partitions: readonly TopicPartition[], start: StartOffset, signal: AbortSignal): Promise<void> {
  switch (start.kind) {
    case 'earliest':
      consumer.seekToBeginning(partitions);
      return;
    case 'latest':
      consumer.seekToEnd(partitions);
      return;
    case 'absolute':
      for (const tp of partitions) consumer.seek(tp, start.offset);
      return;
    case 'tail': {
      consumer.seekToBeginning(partitions);
      const starts = await positions(consumer, partitions, signal);
      const ends = await endOffsets(consumer, partitions, signal);
      partitions.forEach((tp, i) => {
        const from = ends[i]! - start.count;
        consumer.seek(tp, from < starts[i]! ? starts[i]! : from);
      });
      return;
    }
    default: {
      const never: never = start;
      throw new Error(`unknown start offset ${JSON.stringify(never)}`);
    }
  }
}
