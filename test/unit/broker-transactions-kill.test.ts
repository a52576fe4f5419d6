/**
 * kill -9 in the middle of transactions (`bin/brook broker` as a child process, SIGKILL):
 * transaction A (records, offsets for group g-a) is committed and the broker killed as soon
 * as EndTxn answers: its markers and CompleteCommit may or may not be durable by then (both
 * happen; the restart's log line says whether A was found in PrepareCommit, whose markers
 * are then written again), and the test holds either way; transaction B (records interleaved with A's, offsets
 * for g-b) is left Ongoing. After the restart A is complete (its records read_committed, g-a
 * at its offset), B holds the last stable offset until its transaction.timeout.ms passes and
 * the coordinator aborts it; then the LSO reaches the log end, KafkaJS's read_committed
 * consumer (the oracle) reads exactly A's records and g-b has no offset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Consumer } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import { spawnBrook, tempDir, type BrookProcess } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { until } from '../support/clients/run.js';

const TOPIC = 'kt';
/** B's transaction.timeout.ms: long enough to see it Ongoing after the restart, short enough to wait for. */
const B_TIMEOUT_MS = 12_000;

test('kill -9 during transactions: the committed one completes, the Ongoing one is aborted at its timeout, read_committed never sees half of one', { timeout: 90_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir('brook-txn-kill-');
  cleanup.add('remove data', () => dir.remove());
  const configDir = tempDir('brook-txn-kill-config-');
  cleanup.add('remove config', () => configDir.remove());
  const properties = join(configDir.path, 'broker.properties');
  writeFileSync(properties, 'transaction.abort.timed.out.transaction.cleanup.interval.ms=100\ntransaction.state.log.num.partitions=3\n');
  const args = ['--port', '0', '--data-dir', dir.path, '--group-initial-rebalance-delay-ms', '0', '--config', properties];
  let broker: BrookProcess = await spawnBrook(args);
  let conn = await KafkaConnection.connect({ host: broker.host, port: broker.port, clientId: 'txn-kill' });
  await conn.request(Api.CreateTopics, { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });

  const begin = async (id: string, timeoutMs: number) => {
    assert.equal((await conn.request(Api.FindCoordinator, { keyType: 1, coordinatorKeys: [id] }, { version: 4 })).coordinators![0]!.errorCode, ErrorCode.NONE);
    const init = await conn.request(Api.InitProducerId, { transactionalId: id, transactionTimeoutMs: timeoutMs, producerId: -1n, producerEpoch: -1 });
    assert.equal(init.errorCode, ErrorCode.NONE);
    const added = await conn.request(Api.AddPartitionsToTxn, {
      v3AndBelowTransactionalId: id, v3AndBelowProducerId: init.producerId, v3AndBelowProducerEpoch: init.producerEpoch,
      v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }],
    }, { version: 3 });
    assert.equal(added.resultsByTopicV3AndBelow![0]!.resultsByPartition[0]!.partitionErrorCode, ErrorCode.NONE);
    return { id, producerId: init.producerId, producerEpoch: init.producerEpoch, sequence: 0 };
  };
  type Txn = Awaited<ReturnType<typeof begin>>;
  const produce = async (txn: Txn, values: string[]): Promise<void> => {
    const records = encodeRecordBatch({
      records: values.map((v) => ({ value: Buffer.from(v), timestamp: Date.now() })),
      isTransactional: true, producerId: txn.producerId, producerEpoch: txn.producerEpoch, baseSequence: txn.sequence,
    });
    txn.sequence += values.length;
    const produced = await conn.request(Api.Produce, { transactionalId: txn.id, acks: -1, timeoutMs: 5000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] });
    assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  };
  const sendOffsets = async (txn: Txn, groupId: string, offset: bigint): Promise<void> => {
    const p = { transactionalId: txn.id, producerId: txn.producerId, producerEpoch: txn.producerEpoch };
    assert.equal((await conn.request(Api.AddOffsetsToTxn, { ...p, groupId })).errorCode, ErrorCode.NONE);
    const committed = await conn.request(Api.TxnOffsetCommit, {
      ...p, groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    assert.equal(committed.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  };

  const b = await begin('tid-b', B_TIMEOUT_MS);
  await produce(b, ['b1']); // offset 0
  const a = await begin('tid-a', 60_000);
  await produce(a, ['a1', 'a2']); // offsets 1, 2
  await produce(b, ['b2']); // offset 3
  await sendOffsets(a, 'g-a', 3n);
  await sendOffsets(b, 'g-b', 4n);
  const ended = await conn.request(Api.EndTxn, { transactionalId: a.id, producerId: a.producerId, producerEpoch: a.producerEpoch, committed: true });
  assert.equal(ended.errorCode, ErrorCode.NONE);
  await broker.kill(); // right after EndTxn's answer: A's markers may not be written yet
  conn.close();

  broker = await spawnBrook(args);
  cleanup.add('stop broker', () => broker.stop());
  conn = await KafkaConnection.connect({ host: broker.host, port: broker.port, clientId: 'txn-kill' });
  cleanup.add('close connection', () => conn.close());
  const loaded = broker.stderr().split('\n').find((l) => l.includes('transaction coordinator loaded'));
  t.diagnostic(`after the restart: ${loaded ?? '(no load line)'}`);

  const listOffset = async (topic: string, isolationLevel: number): Promise<bigint> =>
    (await conn.request(Api.ListOffsets, { replicaId: -1, isolationLevel, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }] }))
      .topics[0]!.partitions[0]!.offset!;
  const describe = async (id: string) => (await conn.request(Api.DescribeTransactions, { transactionalIds: [id] })).transactionStates[0]!;
  const groupOffset = async (groupId: string, requireStable: boolean) => {
    const fetched = await conn.request(Api.OffsetFetch, { groups: [{ groupId, memberId: null, memberEpoch: -1, topics: [{ name: TOPIC, partitionIndexes: [0] }] }], requireStable });
    const p = fetched.groups![0]!.topics[0]!.partitions[0]!;
    return [p.errorCode, p.committedOffset];
  };

  // A: its markers are (re)written at start-up; its offsets are committed.
  await until('A complete', 10_000, async () => ((await describe(a.id)).transactionState === 'CompleteCommit' ? true : undefined), 50);
  assert.deepEqual(await groupOffset('g-a', true), [ErrorCode.NONE, 3n]);
  // B: still Ongoing, holding the LSO at its first record, its offsets pending.
  const bState = await describe(b.id);
  assert.equal(bState.transactionState, 'Ongoing', `B's ${B_TIMEOUT_MS} ms have not passed yet`);
  assert.equal(await listOffset(TOPIC, 1), 0n, 'the LSO waits for B');
  assert.deepEqual(await groupOffset('g-b', true), [ErrorCode.UNSTABLE_OFFSET_COMMIT, -1n]);
  assert.deepEqual(await groupOffset('g-b', false), [ErrorCode.NONE, -1n]);

  // B's timeout: the coordinator aborts it under a bumped epoch.
  await until('B aborted at its timeout', B_TIMEOUT_MS + 10_000, async () => ((await describe(b.id)).transactionState === 'CompleteAbort' ? true : undefined), 100);
  assert.equal((await describe(b.id)).producerEpoch, b.producerEpoch + 1);
  const end = await listOffset(TOPIC, 0);
  // b1, a1, a2, b2, A's COMMIT and B's ABORT; A found in PrepareCommit gets its COMMIT again
  // (as Kafka rewrites a loaded PrepareCommit's markers), whether or not the first one was durable.
  const prepared = loaded?.includes('PrepareCommit') === true;
  assert.ok(end === 6n || (prepared && end === 7n), `log end ${end} (A found in PrepareCommit: ${prepared})`);
  assert.equal(await listOffset(TOPIC, 1), end, 'the LSO reaches the log end');
  assert.equal(await listOffset('__consumer_offsets', 1), await listOffset('__consumer_offsets', 0), 'and in __consumer_offsets');
  assert.deepEqual(await groupOffset('g-b', true), [ErrorCode.NONE, -1n], 'B\'s offsets are dropped');
  assert.deepEqual(await groupOffset('g-a', true), [ErrorCode.NONE, 3n]);

  const consumer: Consumer = kafkaJs(broker.bootstrap).consumer({ groupId: 'txn-kill-reader', readUncommitted: false, maxWaitTimeInMs: 100 });
  cleanup.add('kafkajs consumer', () => consumer.disconnect());
  const seen: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
  await until('the committed records read', 20_000, async () => (seen.length >= 2 ? true : undefined));
  await new Promise((r) => setTimeout(r, 500)); // anything more would show up now
  assert.deepEqual(seen, ['a1', 'a2']);
});
