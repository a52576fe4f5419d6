/**
 * A consumer group under failures, for the multi-broker interop tests: three Brook consumers
 * in one group consume a topic while a Brook producer keeps producing (acks=all) and the test
 * disrupts the cluster (broker kills, leader/coordinator moves, injected errors). Checks:
 * every acked record consumed at least once, no partition owned by two members in the same
 * generation, and after the final commits the committed offsets equal the end offsets.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Consumer, Producer } from '../../src/index.js';
import type { TopicPartition } from '../../src/assignors/types.js';
import { valueOf } from './consumer-helpers.js';
import { tpKey } from '../../src/client/consumer/subscription-state.js';

export interface GroupRun {
  /** Values acked by the producer so far. */
  readonly acked: Set<string>;
  /** Values consumed so far (any member). */
  readonly consumed: Set<string>;
  readonly consumers: Consumer[];
  /** Errors poll() threw, by message (they are retried). */
  readonly pollErrors: string[];
  /** Resolves once `count` more records were consumed than when called, with the ms it took. */
  progress(count: number, timeoutMs: number): Promise<number>;
  /** Stops producing, waits for every acked record, commits, checks offsets; returns counts. */
  finish(timeoutMs: number): Promise<{ acked: number; consumed: number; duplicates: number }>;
}

export interface GroupRunOptions {
  readonly bootstrap: string;
  readonly topic: string;
  readonly partitions: number;
  readonly groupId: string;
  readonly assignors?: readonly string[];
  /** Pause between produce rounds (one record per partition each). */
  readonly produceIntervalMs?: number;
  readonly log?: (line: string) => void;
}

// The consumer's key for a partition in committed() maps.
const key = (tp: TopicPartition): string => tpKey(tp.topic, tp.partition);

export async function startGroupRun(options: GroupRunOptions): Promise<GroupRun> {
  const log = options.log ?? (() => {});
  const acked = new Set<string>();
  const consumed = new Set<string>();
  const pollErrors: string[] = [];
  let duplicates = 0;
  const violations: string[] = [];
  // generation -> partition -> member that was given it in that generation.
  const owners = new Map<number, Map<string, string>>();
  const consumers = [0, 1, 2].map(() => new Consumer({
    bootstrapServers: options.bootstrap, groupId: options.groupId, assignors: options.assignors ?? ['range'],
    autoOffsetReset: 'earliest', fetchMaxWaitMs: 100, autoCommitIntervalMs: 300, sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 500, requestTimeoutMs: 5_000, retryBackoffMs: 100, metadataMaxAgeMs: 2_000,
  }));
  consumers.forEach((c) => c.subscribe([options.topic], {
    onPartitionsAssigned() {
      // Everything the member owns now (cooperative: only the additions are passed in).
      const partitions = c.assignment();
      const { generationId, memberId } = c.groupMetadata();
      let byPartition = owners.get(generationId);
      if (!byPartition) owners.set(generationId, byPartition = new Map());
      for (const tp of partitions) {
        const other = byPartition.get(key(tp));
        if (other !== undefined && other !== memberId) violations.push(`${key(tp)} owned by ${other} and ${memberId} in generation ${generationId}`);
        byPartition.set(key(tp), memberId);
      }
    },
  }));

  let stopConsuming = false;
  let waiters: { target: number; resolve: () => void }[] = [];
  const loops = consumers.map(async (c) => {
    while (!stopConsuming) {
      try {
        for (const r of await c.poll({ timeoutMs: 200 })) {
          const v = valueOf(r);
          if (consumed.has(v)) duplicates++;
          else consumed.add(v);
        }
      } catch (e) {
        pollErrors.push((e as Error).message);
        await sleep(100);
      }
      waiters = waiters.filter((w) => (consumed.size >= w.target ? (w.resolve(), false) : true));
    }
  });

  // Wait for the group: every member holds partitions.
  const formed = Date.now();
  while (consumers.some((c) => c.assignment().length === 0)) {
    if (Date.now() - formed > 30_000) throw new Error(`group not formed: ${consumers.map((c) => c.assignment().length).join(',')}; errors ${pollErrors.slice(-3).join(' | ')}`);
    await sleep(50);
  }
  log(`group formed in ${Date.now() - formed} ms: ${consumers.map((c) => c.assignment().length).join('/')}`);

  const producer = new Producer({ bootstrapServers: options.bootstrap, lingerMs: 5, requestTimeoutMs: 5_000, retryBackoffMs: 100 });
  let stopProducing = false;
  let outstanding = 0;
  const sendErrors: string[] = [];
  const producing = (async () => {
    for (let i = 0; !stopProducing; i++) {
      for (let p = 0; p < options.partitions; p++) {
        const value = `${options.groupId}/p${p}-${i}`;
        outstanding++;
        producer.send({ topic: options.topic, partition: p, value: Buffer.from(value) })
          .then(() => { acked.add(value); }, (e: Error) => { sendErrors.push(e.message); })
          .finally(() => { outstanding--; });
      }
      // Bounded, but a partition whose leader is away does not hold up the others.
      while (outstanding > 3_000 && !stopProducing) await sleep(10);
      await sleep(options.produceIntervalMs ?? 5);
    }
    await producer.flush();
  })();

  const run: GroupRun = {
    acked, consumed, consumers, pollErrors,
    progress(count, timeoutMs) {
      const target = consumed.size + count;
      const since = Date.now();
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no progress to ${target} in ${timeoutMs} ms (at ${consumed.size}, acked ${acked.size}, sends outstanding ${outstanding}); errors ${pollErrors.slice(-3).join(' | ')}`)), timeoutMs);
        waiters.push({ target, resolve: () => { clearTimeout(timer); resolve(Date.now() - since); } });
      });
    },
    async finish(timeoutMs) {
      try {
        const deadline = Date.now() + timeoutMs;
        stopProducing = true;
        await producing;
        await producer.close();
        log(`produced ${acked.size} acked, ${sendErrors.length} send errors${sendErrors.length ? `: ${sendErrors[0]}` : ''}`);
        while ([...acked].some((v) => !consumed.has(v))) {
          if (Date.now() > deadline) {
            const missing = [...acked].filter((v) => !consumed.has(v));
            throw new Error(`${missing.length} acked records never consumed (e.g. ${missing.slice(0, 5).join(',')}); errors ${pollErrors.slice(-3).join(' | ')}`);
          }
          await sleep(50);
        }
        // The group settles: everyone has a stable assignment covering the topic, then commits.
        const all: TopicPartition[] = Array.from({ length: options.partitions }, (_, partition) => ({ topic: options.topic, partition }));
        const ends = await endOffsets(options.bootstrap, all);
        let committed = new Map<string, bigint | null>();
        for (;;) {
          await Promise.all(consumers.map((c) => c.commitSync().catch((e: Error) => { pollErrors.push(`commit: ${e.message}`); })));
          committed = await consumers[0]!.committed(all).catch((e: Error) => { pollErrors.push(`committed: ${e.message}`); return new Map(); });
          if (all.every((tp) => committed.get(key(tp)) === ends.get(key(tp)))) break;
          if (Date.now() > deadline) break;
          await sleep(200);
        }
        for (const tp of all) assert.equal(committed.get(key(tp)), ends.get(key(tp)), `committed offset of ${key(tp)} = end offset; errors ${pollErrors.slice(-3).join(' | ')}`);
        assert.deepEqual(violations, [], 'no partition owned by two members in one generation');
        return { acked: acked.size, consumed: consumed.size, duplicates };
      } finally {
        // Also when a check failed: consumers left running would keep the test process alive.
        stopConsuming = true;
        await Promise.all(loops);
        for (const c of consumers) await c.close().catch(() => undefined);
      }
    },
  };
  return run;
}

/** End offsets seen by a group-less consumer (assign + seekToEnd + position). */
async function endOffsets(bootstrap: string, partitions: TopicPartition[]): Promise<Map<string, bigint>> {
  const c = new Consumer({ bootstrapServers: bootstrap, requestTimeoutMs: 5_000 });
  try {
    c.assign(partitions);
    c.seekToEnd(partitions);
    const ends = new Map<string, bigint>();
    for (const tp of partitions) ends.set(key(tp), await c.position(tp));
    return ends;
  } finally {
    await c.close();
  }
}
