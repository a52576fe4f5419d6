/**
 * Brook's consumer against Brook's broker over real sockets: a group of three splits a
 * six-partition topic and consumes every record exactly once; a member that stops without
 * LeaveGroup loses its partitions after the session timeout; a closed member's partitions
 * move at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Consumer, type ConsumerOptions } from '../../src/index.js';
import { createTopic, produceSpread, valueOf } from '../support/consumer-helpers.js';

function consumer(bootstrap: string, extra: Partial<ConsumerOptions> = {}): Consumer {
  return new Consumer({
    bootstrapServers: bootstrap, groupId: 'g1', assignors: ['range'], autoOffsetReset: 'earliest',
    heartbeatIntervalMs: 100, sessionTimeoutMs: 6_000, fetchMaxWaitMs: 100, ...extra,
  });
}

const PARTITIONS = [0, 1, 2, 3, 4, 5];
const PER_PARTITION = 200;

/** The partitions the consumers hold, all together, sorted (a partition held twice appears twice). */
function assigned(consumers: Consumer[]): number[] {
  return consumers.flatMap((c) => c.assignment().map((tp) => tp.partition)).sort((a, b) => a - b);
}

/** Polls every consumer concurrently until `stop()` says enough; returns values per consumer. */
async function pollAll(consumers: Consumer[], stop: (seen: number) => boolean, timeoutMs = 30_000): Promise<string[][]> {
  const seen = consumers.map(() => [] as string[]);
  const deadline = Date.now() + timeoutMs;
  let total = 0;
  await Promise.all(consumers.map(async (c, i) => {
    while (!stop(total) && Date.now() < deadline) {
      const records = await c.poll({ timeoutMs: 100 });
      for (const r of records) seen[i]!.push(valueOf(r));
      total += records.length;
    }
  }));
  return seen;
}

test('three consumers split a 6-partition topic and consume every record exactly once', { timeout: 120_000 }, async () => {
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 300 });
  const consumers: Consumer[] = [];
  try {
    await createTopic(broker.bootstrap, 't6', 6);
    consumers.push(...[0, 1, 2].map(() => consumer(broker.bootstrap)));
    for (const c of consumers) c.subscribe(['t6']);
    // Everyone joins before records exist, so the split is the final one.
    await pollAll(consumers, () => consumers.every((c) => c.assignment().length === 2), 20_000);
    assert.deepEqual(consumers.map((c) => c.assignment().length), [2, 2, 2]);
    // 2 each is not enough: together they hold every partition once (no partition twice, none left out).
    assert.deepEqual(assigned(consumers), PARTITIONS);
    const all = await produceSpread(broker.bootstrap, 't6', 6, PER_PARTITION);
    const seen = await pollAll(consumers, (n) => n >= all.length);
    const flat = seen.flat();
    assert.equal(flat.length, all.length, 'every record exactly once');
    assert.deepEqual(new Set(flat), new Set(all));
    for (const [i, values] of seen.entries()) {
      const partitions = new Set(values.map((v) => v.split('-')[0]));
      assert.deepEqual([...partitions].sort(), consumers[i]!.assignment().map((tp) => `p${tp.partition}`).sort());
    }
    // Coming back for more (nothing is left) says the last batch is finished; then commitSync()
    // without offsets commits it.
    for (const c of consumers) assert.deepEqual(await c.poll({ timeoutMs: 0 }), []);
    for (const c of consumers) await c.commitSync();
    // Every partition of the topic, not only one member's (which could be empty): each member
    // committed its own partitions' consumed offset, 200 = the records produced to each (a new topic).
    const committed = await consumers[0]!.committed(PARTITIONS.map((partition) => ({ topic: 't6', partition })));
    assert.deepEqual([...committed.keys()].sort(), PARTITIONS.map((p) => `t6:${p}`));
    assert.deepEqual(committed, new Map(PARTITIONS.map((p) => [`t6:${p}`, BigInt(PER_PARTITION)])));
    // A closed member's partitions move at once (LeaveGroup), nothing consumed twice.
    await consumers[2]!.close();
    await pollAll(consumers.slice(0, 2), () => assigned(consumers.slice(0, 2)).length === 6, 10_000);
    assert.deepEqual(assigned(consumers.slice(0, 2)), PARTITIONS, 'the two left hold every partition once');
    const more = await produceSpread(broker.bootstrap, 't6', 6, 10, 'b');
    const seen2 = await pollAll(consumers.slice(0, 2), (n) => n >= more.length);
    assert.deepEqual(seen2.flat().sort(), [...more].sort(), 'after the move: only the new records, each once');
    for (const c of consumers.slice(0, 2)) await c.close();
  } finally {
    // Also after a failed assertion: open consumers' timers would keep the run from ending.
    await Promise.all(consumers.map((c) => c.close().catch(() => undefined)));
    await broker.stop();
  }
});
