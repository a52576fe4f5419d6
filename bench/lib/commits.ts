/**
 * Raw OffsetCommit traffic for scenarios 7 and 8: a "simple" group (generation -1, no member
 * id, as Kafka's admin and standalone consumers commit), over Brook's KafkaConnection,
 * pipelined. The broker answers only when the commit is durable (Brook: after the fsync of
 * its __consumer_offsets append; Kafka: after the append is acknowledged, acks=all).
 */
import { KafkaConnection, parseBootstrap } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { percentile } from './stats.js';

export async function connect(bootstrap: string, clientId = 'brook-bench-commits'): Promise<KafkaConnection> {
  const { host, port } = parseBootstrap(bootstrap)[0]!;
  return KafkaConnection.connect({ host, port, clientId, requestTimeoutMs: 60_000 });
}

/** One OffsetCommit of `partitions` partitions (0..partitions-1) of `topic` at `offset`. */
export async function commit(conn: KafkaConnection, group: string, topic: string, partitions: number, offset: bigint): Promise<void> {
  const response = await conn.request(Api.OffsetCommit, {
    groupId: group, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: topic, partitions: Array.from({ length: partitions }, (_, p) => ({ partitionIndex: p, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' })) }],
  }, { version: 8 });
  for (const t of response.topics) {
    for (const p of t.partitions) if (p.errorCode !== 0) throw new Error(`OffsetCommit ${t.name}-${p.partitionIndex}: error ${p.errorCode}`);
  }
}

/** Commits as fast as `inFlight` pipelined requests allow, `count` requests; returns requests/s. */
export async function commitThroughput(conn: KafkaConnection, group: string, topic: string, partitionsPerCommit: number, count: number, inFlight: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      await commit(conn, group, topic, partitionsPerCommit, BigInt(i));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return count / ((performance.now() - start) / 1000);
}

/**
 * Open-loop commits at `ratePerSec` for `durationMs` (one partition each): every commit is
 * sent at its scheduled time, whether or not earlier ones were answered, and its latency runs
 * from that scheduled time (so a stalled broker shows up as latency, not as a slower rate).
 */
export async function commitLatency(conn: KafkaConnection, group: string, topic: string, ratePerSec: number, durationMs: number): Promise<{ p50: number; p99: number; sent: number }> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const interval = 1000 / ratePerSec;
  const total = Math.floor((durationMs / 1000) * ratePerSec);
  const start = performance.now();
  let i = 0;
  while (i < total) {
    const now = performance.now();
    // Send every commit whose time has come (timers are coarse: catch up in bursts).
    while (i < total && start + i * interval <= now) {
      const scheduled = start + i * interval;
      pending.push(commit(conn, group, topic, 1, BigInt(i)).then(() => { latencies.push(performance.now() - scheduled); }));
      i++;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), sent: total };
}

/** The committed offset of partition 0 of `topic` for `group` (OffsetFetch v7), or null while unavailable (loading, error). */
export async function fetchCommitted(conn: KafkaConnection, group: string, topic: string): Promise<bigint | null> {
  const response = await conn.request(Api.OffsetFetch, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], requireStable: false }, { version: 7 });
  if ((response.errorCode ?? 0) !== 0) return null;
  const p = response.topics?.[0]?.partitions[0];
  return p === undefined || p.errorCode !== 0 ? null : p.committedOffset;
}
