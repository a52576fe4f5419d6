/**
 * Positions from the log itself (Java's OffsetFetcher): ListOffsets for partitions whose
 * position must be reset (auto.offset.reset, seekToBeginning/End, OFFSET_OUT_OF_RANGE),
 * one request per leader.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import type { Cluster } from '../cluster.js';
import { NoOffsetForPartitionError } from './errors.js';
import type { ResolvedConsumerOptions } from './options.js';
import type { TopicPartitionState } from './subscription-state.js';

const EARLIEST = -2n;
const LATEST = -1n;

/**
 * Resets each partition's position by its pending strategy. Partitions whose leader fails
 * stay pending (the caller retries); 'none' throws NoOffsetForPartitionError.
 */
export async function resetPositions(cluster: Cluster, options: ResolvedConsumerOptions, states: readonly TopicPartitionState[], signal?: AbortSignal): Promise<void> {
  const none = states.filter((s) => s.resetStrategy === 'none');
  if (none.length > 0) {
    // A position that is set was rejected by the leader (OFFSET_OUT_OF_RANGE; Java's OffsetOutOfRangeException); say which case it is.
    const why = (s: TopicPartitionState): string => s.position === null ? 'no committed offset' : `fetch position ${s.position} out of range`;
    throw new NoOffsetForPartitionError(`auto.offset.reset=none: ${none.map((s) => `${s.topic}-${s.partition} (${why(s)})`).join(', ')}`);
  }
  const byLeader = new Map<number, TopicPartitionState[]>();
  for (const s of states) {
    const leader = await cluster.leaderFor(s.topic, s.partition, signal);
    let list = byLeader.get(leader);
    if (!list) byLeader.set(leader, list = []);
    list.push(s);
  }
  let failed: unknown = null;
  await Promise.all([...byLeader].map(async ([leader, list]) => {
    try {
      await listOffsetsFrom(cluster, options, leader, list, signal);
    } catch (err) {
      failed = err;
    }
  }));
  if (failed) throw failed;
}

async function listOffsetsFrom(cluster: Cluster, options: ResolvedConsumerOptions, leader: number, states: TopicPartitionState[], signal?: AbortSignal): Promise<void> {
  const connection = await cluster.connectionToNode(leader, signal);
  const sent = states.map((s) => ({ s, epoch: s.epoch, strategy: s.resetStrategy }));
  const topics = new Map<string, { name: string; partitions: { partitionIndex: number; currentLeaderEpoch: number; timestamp: bigint }[] }>();
  for (const { s, strategy } of sent) {
    let t = topics.get(s.topic);
    if (!t) topics.set(s.topic, t = { name: s.topic, partitions: [] });
    t.partitions.push({ partitionIndex: s.partition, currentLeaderEpoch: -1, timestamp: strategy === 'earliest' ? EARLIEST : LATEST });
  }
  const response = await connection.request(Api.ListOffsets, {
    replicaId: -1,
    isolationLevel: options.isolationLevel === 'read_committed' ? 1 : 0,
    topics: [...topics.values()],
    timeoutMs: options.requestTimeoutMs,
  }, { signal });
  let retry: KafkaProtocolError | null = null;
  for (const t of response.topics) {
    for (const p of t.partitions) {
      const entry = sent.find((e) => e.s.topic === t.name && e.s.partition === p.partitionIndex);
      if (!entry || entry.s.epoch !== entry.epoch) continue; // sought meanwhile
      if (p.errorCode !== ErrorCode.NONE) {
        cluster.invalidateTopic(t.name);
        retry = new KafkaProtocolError(p.errorCode, `ListOffsets ${t.name}-${p.partitionIndex}`);
        continue;
      }
      const offset = p.offset ?? -1n;
      if (offset < 0n) continue;
      entry.s.seek(offset, p.leaderEpoch ?? -1);
    }
  }
  if (retry) throw retry;
}
