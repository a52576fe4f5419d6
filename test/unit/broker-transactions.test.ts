/**
 * The transaction coordinator in the broker (file engine): a transaction left Ongoing when
 * the broker stops is found again after the restart (replay of `__transaction_state`) and
 * aborted once its transaction.timeout.ms has passed, with an ABORT marker under a bumped
 * epoch in its partition; describe and list report it. And a marker that WriteTxnMarkers
 * appends to `__consumer_offsets` completes the producer's transactional offsets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeControlRecordKey, decodeRecordBatch, encodeRecordBatch, iterateBatches } from '../../src/protocol/records/index.js';
import { startBrook, tempDir } from '../support/brook.js';
import { until } from '../support/clients/run.js';

test('an Ongoing transaction survives a restart and is aborted at its timeout', { timeout: 60_000 }, async (t) => {
  const dir = tempDir('brook-txn-');
  const options = { dataDir: dir.path, transactionAbortTimedOutTransactionCleanupIntervalMs: 100, transactionStateLogNumPartitions: 3 };
  let broker = await startBrook(options);
  let conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  await conn.request(Api.CreateTopics, { topics: [{ name: 'tx', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  const found = await conn.request(Api.FindCoordinator, { keyType: 1, coordinatorKeys: ['tid'] }, { version: 4 });
  assert.equal(found.coordinators![0]!.errorCode, ErrorCode.NONE);
  const init = await conn.request(Api.InitProducerId, { transactionalId: 'tid', transactionTimeoutMs: 1500, producerId: -1n, producerEpoch: -1 });
  assert.equal(init.errorCode, ErrorCode.NONE);
  const { producerId, producerEpoch } = init;
  const added = await conn.request(Api.AddPartitionsToTxn, {
    v3AndBelowTransactionalId: 'tid', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch,
    v3AndBelowTopics: [{ name: 'tx', partitions: [0] }],
  }, { version: 3 });
  assert.equal(added.resultsByTopicV3AndBelow![0]!.resultsByPartition[0]!.partitionErrorCode, ErrorCode.NONE);
  const records = encodeRecordBatch({ records: [{ value: Buffer.from('v') }], isTransactional: true, producerId, producerEpoch, baseSequence: 0 });
  const produced = await conn.request(Api.Produce, { transactionalId: 'tid', acks: -1, timeoutMs: 5000, topicData: [{ name: 'tx', partitionData: [{ index: 0, records }] }] });
  assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  conn.close();
  await broker.stop();

  broker = await startBrook(options);
  conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(async () => {
    conn.close();
    await broker.stop();
    dir.remove();
  });
  const listed = await conn.request(Api.ListTransactions, { stateFilters: [], producerIdFilters: [], durationFilter: -1n });
  assert.deepEqual(listed.transactionStates.map((s) => [s.transactionalId, s.producerId, s.transactionState]), [['tid', producerId, 'Ongoing']]);
  const state = async (): Promise<string> =>
    (await conn.request(Api.DescribeTransactions, { transactionalIds: ['tid'] })).transactionStates[0]!.transactionState;
  await until('the timed-out transaction is aborted', 20_000, async () => ((await state()) === 'CompleteAbort' ? true : undefined), 100);
  const described = (await conn.request(Api.DescribeTransactions, { transactionalIds: ['tid'] })).transactionStates[0]!;
  assert.equal(described.producerEpoch, producerEpoch + 1);

  const fetched = await conn.request(Api.Fetch, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic: 'tx', topicId: '', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
    forgottenTopicsData: [], rackId: '',
  }, { version: 4 });
  const batches = [...iterateBatches(fetched.responses[0]!.partitions[0]!.records as Buffer)].map((v) => decodeRecordBatch(v.buffer));
  assert.equal(batches.length, 2);
  const marker = batches[1]!;
  assert.ok(marker.header.isControl && marker.header.isTransactional);
  assert.equal(marker.header.baseOffset, 1n);
  assert.equal(marker.header.producerEpoch, producerEpoch + 1);
  assert.equal(decodeControlRecordKey(marker.records[0]!.key).type, 0); // ABORT
});

test('a marker written by WriteTxnMarkers into __consumer_offsets completes the transactional offsets: COMMIT makes them the group\'s, ABORT drops them', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook({ transactionStateLogNumPartitions: 3 });
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  await conn.request(Api.CreateTopics, { topics: [{ name: 'in', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  const committedOffset = async (): Promise<bigint> => {
    const fetched = await conn.request(Api.OffsetFetch, { groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: [{ name: 'in', partitionIndexes: [0] }] }], requireStable: false });
    return fetched.groups![0]!.topics[0]!.partitions[0]!.committedOffset;
  };
  const transaction = async (id: string, offset: bigint, commit: boolean): Promise<void> => {
    await conn.request(Api.FindCoordinator, { keyType: 1, coordinatorKeys: [id] }, { version: 4 });
    const { producerId, producerEpoch } = await conn.request(Api.InitProducerId, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
    assert.equal((await conn.request(Api.AddOffsetsToTxn, { transactionalId: id, producerId, producerEpoch, groupId: 'g' })).errorCode, ErrorCode.NONE);
    const sent = await conn.request(Api.TxnOffsetCommit, {
      transactionalId: id, groupId: 'g', producerId, producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    assert.equal(sent.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
    const written = await conn.request(Api.WriteTxnMarkers, {
      markers: [{ producerId, producerEpoch, transactionResult: commit, coordinatorEpoch: 0, topics: [{ name: '__consumer_offsets', partitionIndexes: [0] }] }],
    });
    assert.equal(written.markers[0]!.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  };
  assert.equal(await committedOffset(), -1n);
  await transaction('t-commit', 5n, true);
  assert.equal(await committedOffset(), 5n);
  await transaction('t-abort', 7n, false);
  assert.equal(await committedOffset(), 5n);
});
