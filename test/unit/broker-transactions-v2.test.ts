/**
 * Transaction version 2 (KIP-890 part 2) through the broker's handlers, as Kafka 4.4's
 * KafkaApis serves it: a transactional Produce v12 adds its partition to the transaction and
 * a TxnOffsetCommit v5 the group's, without AddPartitionsToTxn / AddOffsetsToTxn; EndTxn v5
 * bumps the epoch, writes the markers under it and answers it; a stale epoch's Produce v12
 * or TxnOffsetCommit v5 gets INVALID_PRODUCER_EPOCH (AddPartitionsToTxnManager's mapping of
 * PRODUCER_FENCED), a retried EndTxn the bumped epoch. ApiVersions finalizes transaction.version 2, as a Kafka
 * 4.4 broker does (test/interop/broker-differential.test.ts compares the two).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeControlRecordKey, decodeRecordBatch, encodeRecordBatch, iterateBatches } from '../../src/protocol/records/index.js';
import { startBrook } from '../support/brook.js';
import { until } from '../support/clients/run.js';

test('transaction version 2: implicit adds by Produce v12 and TxnOffsetCommit v5, an epoch bump per EndTxn v5', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook({ transactionStateLogNumPartitions: 3 });
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  const versions = await conn.request(Api.ApiVersions, { clientSoftwareName: 'test', clientSoftwareVersion: '1' }, { version: 4 });
  assert.deepEqual(versions.finalizedFeatures?.find((f) => f.name === 'transaction.version'), { name: 'transaction.version', minVersionLevel: 2, maxVersionLevel: 2 });
  assert.deepEqual(versions.supportedFeatures?.find((f) => f.name === 'transaction.version'), { name: 'transaction.version', minVersion: 0, maxVersion: 2 });

  await conn.request(Api.CreateTopics, { topics: [{ name: 'tx', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  await conn.request(Api.FindCoordinator, { keyType: 1, coordinatorKeys: ['tid'] }, { version: 4 });
  const init = await conn.request(Api.InitProducerId, { transactionalId: 'tid', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  assert.equal(init.errorCode, ErrorCode.NONE);
  const { producerId } = init;
  assert.equal(init.producerEpoch, 0);

  const produce = async (epoch: number, sequence: number): Promise<number> => {
    const records = encodeRecordBatch({ records: [{ value: Buffer.from(`v${sequence}`) }], isTransactional: true, producerId, producerEpoch: epoch, baseSequence: sequence });
    const produced = await conn.request(Api.Produce, { transactionalId: 'tid', acks: -1, timeoutMs: 5000, topicData: [{ name: 'tx', partitionData: [{ index: 0, records }] }] }, { version: 12 });
    return produced.responses[0]!.partitionResponses[0]!.errorCode;
  };
  const describe = async (): Promise<{ state: string; epoch: number; partitions: string[] }> => {
    const d = (await conn.request(Api.DescribeTransactions, { transactionalIds: ['tid'] })).transactionStates[0]!;
    return { state: d.transactionState, epoch: d.producerEpoch, partitions: d.topics.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`)) };
  };

  assert.equal(await produce(0, 0), ErrorCode.NONE);
  assert.deepEqual(await describe(), { state: 'Ongoing', epoch: 0, partitions: ['tx-0'] });
  const offsets = await conn.request(Api.TxnOffsetCommit, {
    transactionalId: 'tid', groupId: 'g', producerId, producerEpoch: 0, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: 'tx', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  }, { version: 5 });
  assert.equal(offsets.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  assert.deepEqual((await describe()).partitions.sort(), ['__consumer_offsets-0', 'tx-0']);

  const ended = await conn.request(Api.EndTxn, { transactionalId: 'tid', producerId, producerEpoch: 0, committed: true }, { version: 5 });
  assert.deepEqual([ended.errorCode, ended.producerId, ended.producerEpoch], [ErrorCode.NONE, producerId, 1]);
  await until('the transaction completes', 10_000, async () => ((await describe()).state === 'CompleteCommit' ? true : undefined), 50);
  const fetchedOffsets = await conn.request(Api.OffsetFetch, { groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: [{ name: 'tx', partitionIndexes: [0] }] }], requireStable: false });
  assert.equal(fetchedOffsets.groups![0]!.topics[0]!.partitions[0]!.committedOffset, 5n);

  // A retried EndTxn (the epoch it ended) gets the bumped epoch again; the old epoch cannot produce.
  const retried = await conn.request(Api.EndTxn, { transactionalId: 'tid', producerId, producerEpoch: 0, committed: true }, { version: 5 });
  assert.deepEqual([retried.errorCode, retried.producerId, retried.producerEpoch], [ErrorCode.NONE, producerId, 1]);
  assert.equal(await produce(0, 1), ErrorCode.INVALID_PRODUCER_EPOCH);
  const staleOffsets = await conn.request(Api.TxnOffsetCommit, {
    transactionalId: 'tid', groupId: 'g', producerId, producerEpoch: 0, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: 'tx', partitions: [{ partitionIndex: 0, committedOffset: 9n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  }, { version: 5 });
  assert.equal(staleOffsets.topics[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  // The next transaction, at epoch 1, is aborted under epoch 2.
  assert.equal(await produce(1, 0), ErrorCode.NONE);
  const aborted = await conn.request(Api.EndTxn, { transactionalId: 'tid', producerId, producerEpoch: 1, committed: false }, { version: 5 });
  assert.deepEqual([aborted.errorCode, aborted.producerEpoch], [ErrorCode.NONE, 2]);
  await until('the abort completes', 10_000, async () => ((await describe()).state === 'CompleteAbort' ? true : undefined), 50);

  const fetched = await conn.request(Api.Fetch, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic: 'tx', topicId: '', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
    forgottenTopicsData: [], rackId: '',
  }, { version: 4 });
  const log = [...iterateBatches(fetched.responses[0]!.partitions[0]!.records as Buffer)].map((v) => {
    const { header, records } = decodeRecordBatch(v.buffer);
    const what = header.isControl ? (decodeControlRecordKey(records[0]!.key).type === 1 ? 'COMMIT' : 'ABORT') : records[0]!.value!.toString();
    return `${what} epoch ${header.producerEpoch}`;
  });
  assert.deepEqual(log, ['v0 epoch 0', 'COMMIT epoch 1', 'v0 epoch 1', 'ABORT epoch 2']);
});
