/**
 * Brook's consumer against Apache Kafka 4.1.2 (single-node KRaft): three Brook consumers
 * split a 6-partition topic and consume every record exactly once, commits included; and a
 * mixed group on Brook's broker: Java KafkaConsumer (kafka-clients 4.1.2) members next to
 * Brook consumers with 'range' (Brook side: the test range assignor, which reproduces Java's
 * RangeAssignor result; the real assignors are merged separately).
 * Needs: java 17+ (test/support/kafka and test/support/java built).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startKafka } from '../support/kafka/kafka-broker.js';
import { startBrook } from '../support/brook.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { runProcess } from '../support/clients/run.js';
import { Consumer } from '../../src/index.js';
import { createTopic, produceSpread, valueOf } from '../support/consumer-helpers.js';

async function pollAll(consumers: Consumer[], stop: () => boolean, sink: string[][], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await Promise.all(consumers.map(async (c, i) => {
    while (!stop() && Date.now() < deadline) for (const r of await c.poll({ timeoutMs: 200 })) sink[i]!.push(valueOf(r));
  }));
}

test('Apache Kafka 4.1.2: three Brook consumers split a 6-partition topic, every record exactly once, commits land', async () => {
  const kafka = await startKafka({ config: { 'group.initial.rebalance.delay.ms': '300' } });
  try {
    await createTopic(kafka.bootstrap, 'k6', 6);
    const consumers = [0, 1, 2].map(() => new Consumer({
      bootstrapServers: kafka.bootstrap, groupId: 'kg', assignors: ['range'], autoOffsetReset: 'earliest', fetchMaxWaitMs: 100,
    }));
    for (const c of consumers) c.subscribe(['k6']);
    const seen: string[][] = [[], [], []];
    await pollAll(consumers, () => consumers.every((c) => c.assignment().length === 2), seen, 30_000);
    assert.deepEqual(consumers.map((c) => c.assignment().length), [2, 2, 2]);
    const all = await produceSpread(kafka.bootstrap, 'k6', 6, 300);
    await pollAll(consumers, () => seen.flat().length >= all.length, seen, 30_000);
    assert.equal(seen.flat().length, all.length);
    assert.deepEqual(new Set(seen.flat()), new Set(all));
    for (const c of consumers) await c.commitSync();
    const committed = await consumers[1]!.committed(consumers[1]!.assignment());
    for (const v of committed.values()) assert.equal(v, 300n);
    for (const c of consumers) await c.close();
  } finally {
    await kafka.stop();
  }
});

test('mixed group on Brook: a Java KafkaConsumer and two Brook consumers with range share the topic, each record once', async () => {
  // The interop suite's contract is that its peers are installed (.ci/run does it): no silent skips.
  assert.ok(javaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 1_000 });
  try {
    await createTopic(broker.bootstrap, 'mx', 6);
    const total = 600;
    const consumers = [0, 1].map(() => new Consumer({
      bootstrapServers: broker.bootstrap, groupId: 'mixed', assignors: ['range'], autoOffsetReset: 'earliest', fetchMaxWaitMs: 100,
      autoCommitIntervalMs: 500,
    }));
    for (const c of consumers) c.subscribe(['mx']);
    const java = runProcess('java', ['-cp', javaJar(), 'brook.conformance.GroupConsumer', broker.bootstrap, 'mx', 'mixed', 'range', String(total), '30000'], { timeoutMs: 60_000 });
    const seen: string[][] = [[], []];
    let javaDone = false;
    void java.then(() => { javaDone = true; });
    // Produce once the Java member is in: the Brook members then hold 2 partitions each.
    await pollAll(consumers, () => javaDone || consumers.every((c) => c.assignment().length === 2), seen, 40_000);
    assert.deepEqual(consumers.map((c) => c.assignment().length), [2, 2], 'range over three members: 2 partitions each');
    const values = await produceSpread(broker.bootstrap, 'mx', 6, total / 6);
    await pollAll(consumers, () => javaDone, seen, 50_000);
    const result = await java;
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(line, `java member: ${result.stderr.slice(-2000)}`);
    const summary = JSON.parse(line) as { records: [number, number][]; errors: string[] };
    assert.deepEqual(summary.errors, []);
    const brookCount = seen.flat().length;
    assert.equal(brookCount + summary.records.length, values.length, `Brook ${brookCount} + Java ${summary.records.length} = every record once`);
    assert.ok(summary.records.length > 0 && brookCount > 0, 'both kinds of member consumed');
    for (const c of consumers) await c.close();
  } finally {
    await broker.stop();
  }
});
