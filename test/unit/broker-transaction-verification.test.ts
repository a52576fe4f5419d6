/**
 * Transaction verification (KIP-890 part 1) in the broker: a transactional batch or offset
 * commit for a partition not in the producer's transaction is refused. The expected answers
 * are Kafka 4.4's, as test/interop/transactions-differential.test.ts observes them (this
 * file keeps the check in the Node-only suite).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import { startBrook, tempDir } from '../support/brook.js';

const name = (code: number | undefined): string => (code === undefined ? 'none' : errorInfo(code).name);

test('Produce and TxnOffsetCommit are verified against the transaction', { timeout: 30_000 }, async (t) => {
  const dir = tempDir('brook-txn-verify-');
  const broker = await startBrook({ dataDir: dir.path });
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(async () => {
    conn.close();
    await broker.stop();
    dir.remove();
  });
  await conn.request(Api.CreateTopics, { topics: [{ name: 'tv', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  await conn.request(Api.FindCoordinator, { keyType: 1, coordinatorKeys: ['tid'] }, { version: 4 });
  const init = await conn.request(Api.InitProducerId, { transactionalId: 'tid', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  const { producerId, producerEpoch } = init;
  let sequence = 0;
  const produce = async (transactionalId: string | null, partition: number, version = 9, epoch = producerEpoch): Promise<number | undefined> => {
    const records = encodeRecordBatch({ records: [{ value: Buffer.from('v') }], isTransactional: true, producerId, producerEpoch: epoch, baseSequence: sequence });
    const r = await conn.request(Api.Produce, { transactionalId, acks: -1, timeoutMs: 5000, topicData: [{ name: 'tv', partitionData: [{ index: partition, records }] }] }, { version });
    const p = r.responses[0]!.partitionResponses[0]!;
    if (p.errorCode === ErrorCode.NONE) sequence++;
    return p.errorCode;
  };
  const addPartition = (partition: number) => conn.request(Api.AddPartitionsToTxn, {
    v3AndBelowTransactionalId: 'tid', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: [{ name: 'tv', partitions: [partition] }],
  }, { version: 3 });
  const commitOffsets = async (version: number): Promise<number | undefined> => {
    const r = await conn.request(Api.TxnOffsetCommit, {
      transactionalId: 'tid', groupId: 'g', producerId, producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'tv', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }] }],
    }, { version });
    return r.topics[0]!.partitions[0]!.errorCode;
  };

  assert.equal(name(await produce('tid', 0)), 'INVALID_TXN_STATE', 'a partition not added');
  assert.equal(name(await produce('tid', 0, 11)), 'TRANSACTION_ABORTABLE', 'Produce v11 knows TRANSACTION_ABORTABLE');
  assert.equal(name(await produce(null, 0)), 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'no transactional id in the request');
  assert.equal(name(await commitOffsets(3)), 'INVALID_TXN_STATE', 'offsets without AddOffsetsToTxn');
  assert.equal(name(await commitOffsets(4)), 'TRANSACTION_ABORTABLE', 'TxnOffsetCommit v4 knows TRANSACTION_ABORTABLE');

  await addPartition(0);
  assert.equal(name(await produce('tid', 0)), 'NONE', 'an added partition');
  assert.equal(name(await produce('tid', 0)), 'NONE', 'the open transaction in the log needs no verification');
  assert.equal(name(await produce('tid', 1)), 'INVALID_TXN_STATE', 'another partition, not added');
  assert.equal(name(await produce('tid', 0, 9, producerEpoch + 1)), 'INVALID_PRODUCER_EPOCH', 'another epoch: PRODUCER_FENCED as older clients know it');
  const added = await conn.request(Api.AddOffsetsToTxn, { transactionalId: 'tid', producerId, producerEpoch, groupId: 'g' });
  assert.equal(name(added.errorCode), 'NONE');
  assert.equal(name(await commitOffsets(3)), 'NONE', 'offsets after AddOffsetsToTxn');

  const ended = await conn.request(Api.EndTxn, { transactionalId: 'tid', producerId, producerEpoch, committed: true }, { version: 3 });
  assert.equal(name(ended.errorCode), 'NONE');
  for (let i = 0; i < 200; i++) {
    const d = await conn.request(Api.DescribeTransactions, { transactionalIds: ['tid'] });
    if (d.transactionStates[0]!.transactionState === 'CompleteCommit') break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(name(await produce('tid', 0)), 'INVALID_TXN_STATE', 'after the commit, a new transaction must add the partition again');
});
