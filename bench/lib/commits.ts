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

const RETRIABLE = new Set([14, 15, 16]); // COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR

/**
 * Waits until the broker coordinates `group` (FindCoordinator answers without error). On a
 * fresh Kafka this creates __consumer_offsets, which takes a few seconds; Brook answers at once.
 */
export async function ensureCoordinator(conn: KafkaConnection, group: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await conn.request(Api.FindCoordinator, { keyType: 0, coordinatorKeys: [group] }, { version: 4 });
    const code = r.coordinators?.[0]?.errorCode ?? r.errorCode ?? 0;
    if (code === 0) return;
    if (Date.now() > deadline) throw new Error(`FindCoordinator(${group}): error ${code} after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** One OffsetCommit of `partitions` partitions (0..partitions-1) of `topic` at `offset`. */
export async function commit(conn: KafkaConnection, group: string, topic: string, partitions: number, offset: bigint): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await commitOnce(conn, group, topic, partitions, offset);
    } catch (err) {
      if (!(err instanceof CommitError) || !RETRIABLE.has(err.errorCode) || attempt >= 100) throw err;
      await new Promise((res) => setTimeout(res, 50));
    }
  }
}

class CommitError extends Error {
  constructor(message: string, readonly errorCode: number) {
    super(message);
  }
}

async function commitOnce(conn: KafkaConnection, group: string, topic: string, partitions: number, offset: bigint): Promise<void> {
  const response = await conn.request(Api.OffsetCommit, {
    groupId: group, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: topic, partitions: Array.from({ length: partitions }, (_, p) => ({ partitionIndex: p, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' })) }],
  }, { version: 8 });
  for (const t of response.topics) {
    for (const p of t.partitions) if (p.errorCode !== 0) throw new CommitError(`OffsetCommit ${t.name}-${p.partitionIndex}: error ${p.errorCode}`, p.errorCode);
  }
}

/**
 * Commits as fast as `inFlight` pipelined requests on each of `conns` allow, `count` requests
 * in all, each connection committing for its own group; returns requests/s. (Kafka handles
 * one request per connection at a time, so pipelining alone does not load its coordinator.)
 */
export async function commitThroughput(conns: readonly KafkaConnection[], group: string, topic: string, partitionsPerCommit: number, count: number, inFlight: number): Promise<number> {
  let next = 0;
  await Promise.all(conns.map((c, i) => ensureCoordinator(c, `${group}-${i}`)));
  const start = performance.now();
  const worker = async (conn: KafkaConnection, g: string): Promise<void> => {
    while (next < count) {
      const i = next++;
      await commit(conn, g, topic, partitionsPerCommit, BigInt(i));
    }
  };
  await Promise.all(conns.flatMap((c, i) => Array.from({ length: inFlight }, () => worker(c, `${group}-${i}`))));
  return count / ((performance.now() - start) / 1000);
}

/**
 * Open-loop commits at `ratePerSec` for `durationMs` (one partition each): every commit is
 * sent at its scheduled time, whether or not earlier ones were answered, and its latency runs
 * from that scheduled time (so a stalled broker shows up as latency, not as a slower rate).
 * Commits go round-robin over `conns`, each for its own group, as many consumers would send them.
 */
export interface CommitLatency {
  /** From each commit's scheduled send time: includes the generator's own lateness. */
  p50: number;
  p99: number;
  /** From the moment each commit was actually written to its connection: the commit's own latency. */
  sentP50: number;
  sentP99: number;
  /** How late the generator sent, p99 (timer granularity, its own event loop). */
  lateP99: number;
  sent: number;
}

export async function commitLatency(conns: readonly KafkaConnection[], group: string, topic: string, ratePerSec: number, durationMs: number): Promise<CommitLatency> {
  const samples = await openLoopCommits(conns, group, topic, ratePerSec, { durationMs });
  return summarize(samples);
}

/** One commit of an open-loop run. */
export interface CommitSample {
  /** Scheduled send time, wall clock (ms since the epoch), to line up with a broker's log. */
  scheduledAt: number;
  /** From the scheduled send time to the answer. */
  latency: number;
  /** From the actual send to the answer. */
  fromSend: number;
  /** How late the generator sent it. */
  late: number;
}

export interface OpenLoopOptions {
  /** Stop scheduling after this long... */
  durationMs: number;
  /** ...or earlier, once this returns true (checked every timer tick). */
  until?: () => boolean;
}

/** The open loop of commitLatency, every commit's sample kept (scenarios that look at part of the window). */
export async function openLoopCommits(conns: readonly KafkaConnection[], group: string, topic: string, ratePerSec: number, options: OpenLoopOptions): Promise<CommitSample[]> {
  await Promise.all(conns.map((c, k) => ensureCoordinator(c, `${group}-${k}`)));
  const samples: CommitSample[] = [];
  const pending: Promise<void>[] = [];
  const interval = 1000 / ratePerSec;
  const total = Math.floor((options.durationMs / 1000) * ratePerSec);
  const start = performance.now();
  const startWall = Date.now() - (performance.now() - start);
  let i = 0;
  while (i < total && !(options.until?.() ?? false)) {
    const now = performance.now();
    // Send every commit whose time has come (timers are coarse: catch up in bursts).
    while (i < total && start + i * interval <= now) {
      const scheduled = start + i * interval;
      const late = now - scheduled;
      const k = i % conns.length;
      const sentAt = performance.now();
      const scheduledAt = startWall + i * interval;
      pending.push(commit(conns[k]!, `${group}-${k}`, topic, 1, BigInt(i)).then(() => {
        const end = performance.now();
        samples.push({ scheduledAt, latency: end - scheduled, fromSend: end - sentAt, late });
      }));
      i++;
    }
    // A 1 ms timer, not a spin: on 2 cores a generator spinning for precise send times took
    // the broker's CPU (p99 11 ms instead of 4.5). Its lateness is reported instead.
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  return samples;
}

export function summarize(samples: readonly CommitSample[]): CommitLatency {
  const latencies = samples.map((s) => s.latency);
  const fromSend = samples.map((s) => s.fromSend);
  return {
    p50: percentile(latencies, 50), p99: percentile(latencies, 99), sentP50: percentile(fromSend, 50), sentP99: percentile(fromSend, 99),
    lateP99: percentile(samples.map((s) => s.late), 99), sent: samples.length,
  };
}

/** The committed offset of partition 0 of `topic` for `group` (OffsetFetch v7), or null while unavailable (loading, error). */
export async function fetchCommitted(conn: KafkaConnection, group: string, topic: string): Promise<bigint | null> {
  const response = await conn.request(Api.OffsetFetch, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], requireStable: false }, { version: 7 });
  if ((response.errorCode ?? 0) !== 0) return null;
  const p = response.topics?.[0]?.partitions[0];
  return p === undefined || p.errorCode !== 0 ? null : p.committedOffset;
}
