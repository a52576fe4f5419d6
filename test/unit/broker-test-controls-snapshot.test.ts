/**
 * Snapshots: a broker's topics (ids, configs, records at their offsets), committed offsets,
 * transactions and group configs come back in a broker started from its snapshot; a
 * consumer resumes there from its committed offset. A log that does not start at offset 0
 * cannot be restored, and says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Broker, ErrorCode, silentLogger } from '../../src/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import type { ProduceRequestData } from '../../src/protocol/messages/index.js';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';

const T = { timeout: 20_000 };

function produce(topic: string, partition: number, values: string[], txn?: { id: string; producerId: bigint; epoch: number }): ProduceRequestData {
  return {
    transactionalId: txn?.id ?? null, acks: -1, timeoutMs: 5000,
    topicData: [{
      name: topic,
      partitionData: [{
        index: partition,
        records: encodeRecordBatch({
          records: values.map((v) => ({ value: Buffer.from(v) })),
          ...(txn === undefined ? {} : { producerId: txn.producerId, producerEpoch: txn.epoch, baseSequence: 0, isTransactional: true }),
        }),
      }],
    }],
  };
}

const describe = (broker: Broker): string[] => broker.records('fixtures').map((r) => `${r.partition}:${r.offset}:${r.value!.toString()}`);

test('a broker started from a snapshot has the topics, records, committed offsets, transactions and group configs; a consumer resumes there', T, async (t) => {
  const source = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', source.port, { timeoutMs: 5000 });
  source.createTopic('fixtures', 2, { configs: { 'retention.ms': '123456789' } });
  assert.equal((await conn.request('Produce', 9, produce('fixtures', 0, ['a', 'b', 'c'])))!.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  await conn.request('Produce', 9, produce('fixtures', 1, ['x']));
  const commit = await conn.request('OffsetCommit', 8, {
    groupId: 'readers', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: 'fixtures', partitions: [{ partitionIndex: 0, committedOffset: 2n, committedLeaderEpoch: -1, committedMetadata: 'm' }] }],
  });
  assert.equal(commit.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  // A committed transaction: its marker takes an offset, which the restored log keeps.
  const init = await conn.request('InitProducerId', 4, { transactionalId: 'fx-tx', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  await conn.request('AddPartitionsToTxn', 3, { v3AndBelowTransactionalId: 'fx-tx', v3AndBelowProducerId: init.producerId, v3AndBelowProducerEpoch: init.producerEpoch, v3AndBelowTopics: [{ name: 'fixtures', partitions: [1] }] });
  await conn.request('Produce', 9, produce('fixtures', 1, ['y'], { id: 'fx-tx', producerId: init.producerId, epoch: init.producerEpoch }));
  assert.equal((await conn.request('EndTxn', 3, { transactionalId: 'fx-tx', producerId: init.producerId, producerEpoch: init.producerEpoch, committed: true })).errorCode, ErrorCode.NONE);
  const altered = await conn.request('IncrementalAlterConfigs', 1, { resources: [{ resourceType: 32, resourceName: 'readers', configs: [{ name: 'consumer.session.timeout.ms', configOperation: 0, value: '50000' }] }], validateOnly: false });
  assert.equal(altered.responses[0]!.errorCode, ErrorCode.NONE);
  const topicId = source.context.storage.topic('fixtures')!.topicId;
  const before = describe(source);

  const snapshot = structuredClone(await source.snapshot());
  conn.close();
  await source.stop();
  assert.deepEqual(before, ['0:0:a', '0:1:b', '0:2:c', '1:0:x', '1:1:y']);

  const restored = await Broker.restore(snapshot, { host: '127.0.0.1', port: 0, dataDir: null, log: silentLogger });
  const again = await RawConnection.connect('127.0.0.1', restored.port, { timeoutMs: 5000 });
  t.after(async () => {
    again.close();
    await restored.stop();
  });
  assert.deepEqual(describe(restored), before);
  assert.equal(restored.context.storage.topic('fixtures')!.topicId, topicId);
  assert.deepEqual(restored.context.storage.topic('fixtures')!.configs, { 'retention.ms': '123456789' });
  assert.equal(restored.context.storage.partition('fixtures', 1)!.logEndOffset, 3n, 'x, y and the commit marker');
  assert.deepEqual(restored.committed('readers'), { fixtures: { 0: 2n } });
  assert.deepEqual(restored.context.groupConfigs.get('readers'), { 'consumer.session.timeout.ms': '50000' });
  const txn = await again.request('DescribeTransactions', 0, { transactionalIds: ['fx-tx'] });
  assert.deepEqual([txn.transactionStates[0]!.transactionState, txn.transactionStates[0]!.producerId], ['CompleteCommit', init.producerId]);
  const fresh = await again.request('InitProducerId', 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  assert.ok(fresh.producerId > init.producerId, `a new producer id (${fresh.producerId}) above the restored ones`);

  // A consumer resumes: its committed offset, then the records from there (read_committed sees y).
  const fetched = await again.request('OffsetFetch', 7, { groupId: 'readers', topics: [{ name: 'fixtures', partitionIndexes: [0] }], requireStable: true });
  const from = fetched.topics![0]!.partitions[0]!.committedOffset;
  assert.equal(from, 2n);
  assert.equal(fetched.topics![0]!.partitions[0]!.metadata, 'm');
  const read = await again.request('Fetch', 12, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 1, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
    topics: [{ topic: 'fixtures', partitions: [0, 1].map((partition) => ({ partition, fetchOffset: partition === 0 ? from : 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n })) }],
  });
  assert.deepEqual(read.responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.highWatermark, p.lastStableOffset]), [[0, ErrorCode.NONE, 3n, 3n], [1, ErrorCode.NONE, 3n, 3n]]);
});

test('a log that does not start at offset 0 cannot be restored; a snapshot restores only into an empty broker', T, async (t) => {
  const source = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', source.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await source.stop();
  });
  source.createTopic('fixtures', 1);
  await conn.request('Produce', 9, produce('fixtures', 0, ['a']));
  await conn.request('Produce', 9, produce('fixtures', 0, ['b']));
  const clean = await source.snapshot();
  const deleted = await conn.request('DeleteRecords', 2, { topics: [{ name: 'fixtures', partitions: [{ partitionIndex: 0, offset: 1n }] }], timeoutMs: 5000 });
  assert.equal(deleted.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  const truncated = await source.snapshot();
  await assert.rejects(Broker.restore(truncated, { port: 0, dataDir: null, log: silentLogger }), /cannot restore fixtures-0/);
  const storage = source.context.storage;
  await assert.rejects(Broker.restore(clean, { port: 0, storage, log: silentLogger }), /empty broker/);
});
