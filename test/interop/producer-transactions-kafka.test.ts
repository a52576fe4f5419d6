/**
 * Brook's transactional producer against Apache Kafka 4.4 (the oracle) and against Brook's
 * broker: a committed and an aborted transaction, read back by Kafka's console consumer
 * with isolation.level=read_committed and by Brook's consumer (read_committed sees the
 * committed records only, read_uncommitted all of them); consume-transform-produce with
 * sendOffsetsToTransaction, where the group's committed offsets (read by KafkaJS's admin
 * client) stay unset after an abort and move after the commit; and a second producer with
 * the same transactional id fencing the first (ProducerFencedError, then FATAL_ERROR).
 * Misuse (send or commit outside a transaction) is refused with IllegalStateError.
 *
 * Kafka 4.4 finalizes transaction.version 2; the producer speaks version 1 (EndTxn v4,
 * AddPartitionsToTxn v3, Produce v11), which Kafka still serves to such clients.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { kafkaAvailable, kafkaClasspath, startKafka } from '../support/kafka/kafka-broker.js';
import {
  Admin, Consumer, IllegalStateError, Producer, ProducerFencedError, stringDeserializers, stringSerializers, type ConsumerRecord,
} from '../../src/index.js';

const skip = kafkaAvailable() ? false : 'needs Java 17+ and the Kafka classpath (BROOK_KAFKA=0 or missing)';

/**
 * Kafka 4.4's console consumer: the values of `topic` a read_committed (or read_uncommitted)
 * consumer sees. It ends after 6 s without a record, which it logs as an error: logging is off.
 */
async function kafkaConsoleConsumer(bootstrap: string, topic: string, isolation: 'read_committed' | 'read_uncommitted'): Promise<string[]> {
  const r = await runProcess('java', ['-Xshare:auto', '-Dorg.apache.logging.log4j.level=OFF', '-cp', kafkaClasspath(), 'org.apache.kafka.tools.consumer.ConsoleConsumer',
    '--bootstrap-server', bootstrap, '--topic', topic, '--from-beginning', '--isolation-level', isolation, '--timeout-ms', '6000'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split('\n').filter((l) => l !== '');
}

/** Committed offsets of a group by KafkaJS's admin client: partition → offset (-1: none). */
async function kafkaJsGroupOffsets(bootstrap: string, groupId: string, topic: string): Promise<Map<number, number>> {
  const admin = kafkaJs(bootstrap).admin();
  await admin.connect();
  try {
    const [fetched] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return new Map(fetched!.partitions.map((p) => [p.partition, Number(p.offset)]));
  } finally {
    await admin.disconnect();
  }
}

async function readAll(bootstrap: string, topic: string, partitions: number, isolationLevel: 'read_committed' | 'read_uncommitted', expected: number): Promise<string[]> {
  const consumer = new Consumer({ bootstrapServers: bootstrap, isolationLevel, fetchMaxWaitMs: 100, deserializers: stringDeserializers });
  try {
    consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition })));
    consumer.seekToBeginning();
    const seen: string[] = [];
    const deadline = Date.now() + 30_000;
    while (seen.length < expected && Date.now() < deadline) for (const r of await consumer.poll({ timeoutMs: 200 })) seen.push(r.value!);
    // Nothing more comes (an aborted record would show up here).
    for (let i = 0; i < 5; i++) for (const r of await consumer.poll({ timeoutMs: 200 })) seen.push(r.value!);
    return seen.sort();
  } finally {
    await consumer.close();
  }
}

async function scenario(t: TestContext, bootstrap: string, prefix: string, cleanup: Cleanup): Promise<void> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  cleanup.add('close admin', () => admin.close());
  const out = `${prefix}-out`;
  const input = `${prefix}-in`;
  const transformed = `${prefix}-transformed`;
  for (const name of [out, input, transformed]) await admin.createTopic({ name, partitions: 2 });

  const producer = new Producer({ bootstrapServers: bootstrap, transactionalId: `${prefix}-txn`, serializers: stringSerializers, lingerMs: 0 });
  cleanup.add('close producer', () => producer.close());
  await assert.rejects(producer.send({ topic: out, value: 'early' }), IllegalStateError);
  await producer.initTransactions();
  assert.equal(producer.transactionState, 'READY');
  await assert.rejects(producer.send({ topic: out, value: 'outside' }), IllegalStateError);
  await assert.rejects(producer.commitTransaction(), IllegalStateError);

  const committed = Array.from({ length: 6 }, (_, i) => `committed-${i}`);
  await t.test('a committed and an aborted transaction: read_committed consumers see the committed records only', async () => {
    producer.beginTransaction();
    assert.throws(() => producer.beginTransaction(), IllegalStateError);
    await Promise.all(committed.map((v, i) => producer.send({ topic: out, key: `k${i}`, value: v })));
    await producer.commitTransaction();
    const aborted = Array.from({ length: 4 }, (_, i) => `aborted-${i}`);
    producer.beginTransaction();
    await Promise.all(aborted.map((v, i) => producer.send({ topic: out, key: `k${i}`, value: v })));
    await producer.abortTransaction();
    assert.equal(producer.transactionState, 'READY');

    assert.deepEqual(await kafkaConsoleConsumer(bootstrap, out, 'read_committed').then((v) => v.sort()), [...committed].sort());
    assert.deepEqual(await kafkaConsoleConsumer(bootstrap, out, 'read_uncommitted').then((v) => v.sort()), [...committed, ...aborted].sort());
    assert.deepEqual(await readAll(bootstrap, out, 2, 'read_committed', committed.length), [...committed].sort());
    assert.deepEqual(await readAll(bootstrap, out, 2, 'read_uncommitted', committed.length + aborted.length), [...committed, ...aborted].sort());
  });

  await t.test('consume-transform-produce: the group\'s offsets move with a committed transaction only', async () => {
    const seed = new Producer({ bootstrapServers: bootstrap, serializers: stringSerializers });
    cleanup.add('close seed producer', () => seed.close());
    const inputs = Array.from({ length: 8 }, (_, i) => `in-${i}`);
    await Promise.all(inputs.map((v, i) => seed.send({ topic: input, key: `k${i}`, value: v })));
    const group = `${prefix}-ctp`;
    const consumer = new Consumer({
      bootstrapServers: bootstrap, groupId: group, autoOffsetReset: 'earliest', enableAutoCommit: false, isolationLevel: 'read_committed',
      fetchMaxWaitMs: 100, deserializers: stringDeserializers,
    });
    cleanup.add('close consumer', () => consumer.close());
    consumer.subscribe([input]);
    const records: ConsumerRecord<string, string, string>[] = [];
    const deadline = Date.now() + 60_000;
    while (records.length < inputs.length && Date.now() < deadline) records.push(...await consumer.poll({ timeoutMs: 200 }));
    assert.equal(records.length, inputs.length);
    const next = new Map<number, bigint>();
    for (const r of records) next.set(r.partition, r.offset + 1n);
    const offsets = [...next].map(([partition, offset]) => ({ topic: input, partition, offset }));

    // The sends are settled at once: an abort may fail batches still waiting to be sent, and
    // a rejection nobody handles yet would fail the test by itself.
    const transform = async (): Promise<Promise<PromiseSettledResult<unknown>[]>> => {
      producer.beginTransaction();
      const sent = Promise.allSettled(records.map((r) => producer.send({ topic: transformed, key: r.key, value: r.value!.toUpperCase() })));
      await producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
      return sent;
    };
    const abortedSends = await transform();
    await producer.abortTransaction();
    // Each record was written (in the aborted transaction) or failed with TransactionAbortedError.
    for (const r of await abortedSends) if (r.status === 'rejected') assert.equal((r.reason as Error).name, 'TransactionAbortedError');
    const afterAbort = await kafkaJsGroupOffsets(bootstrap, group, input);
    assert.deepEqual([...afterAbort.values()], [-1, -1], 'an aborted transaction commits no offsets');
    const committedSends = await transform();
    await producer.commitTransaction();
    for (const r of await committedSends) assert.equal(r.status, 'fulfilled', String((r as PromiseRejectedResult).reason));
    // Kafka completes the transaction's offsets once its markers are written, after EndTxn is
    // answered (the transaction coordinator writes them asynchronously): wait for them, briefly.
    let afterCommit = await kafkaJsGroupOffsets(bootstrap, group, input);
    for (let i = 0; i < 50 && [...afterCommit.values()].some((o) => o === -1); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      afterCommit = await kafkaJsGroupOffsets(bootstrap, group, input);
    }
    assert.deepEqual(new Map([...afterCommit].map(([p, o]) => [p, BigInt(o)])), next);
    assert.deepEqual(await kafkaConsoleConsumer(bootstrap, transformed, 'read_committed').then((v) => v.sort()), inputs.map((v) => v.toUpperCase()).sort());
  });

  await t.test('a second producer with the same transactional id fences the first', async () => {
    producer.beginTransaction();
    await producer.send({ topic: out, value: 'zombie' });
    const successor = new Producer({ bootstrapServers: bootstrap, transactionalId: `${prefix}-txn`, serializers: stringSerializers });
    cleanup.add('close successor', () => successor.close());
    await successor.initTransactions();
    await assert.rejects(producer.commitTransaction(), ProducerFencedError);
    assert.equal(producer.transactionState, 'FATAL_ERROR');
    assert.throws(() => producer.beginTransaction(), ProducerFencedError);
    successor.beginTransaction();
    await successor.send({ topic: out, value: 'successor' });
    await successor.commitTransaction();
    assert.deepEqual(await kafkaConsoleConsumer(bootstrap, out, 'read_committed').then((v) => v.sort()), [...committed, 'successor'].sort());
  });
}

test('Brook\'s transactional producer against Apache Kafka 4.4', { timeout: 300_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const kafka = await startKafka({ config: { 'group.initial.rebalance.delay.ms': '0' } });
  cleanup.add('stop kafka', () => kafka.stop());
  await scenario(t, kafka.bootstrap, 'kafka', cleanup);
});

test('Brook\'s transactional producer against Brook\'s broker', { timeout: 300_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  await scenario(t, broker.bootstrap, 'brook', cleanup);
});
