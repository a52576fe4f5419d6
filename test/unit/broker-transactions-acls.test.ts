/**
 * The transaction APIs with Kafka's StandardAuthorizer, over the wire as a principal
 * (User:ANONYMOUS) with only some ACLs, checked as Kafka 4's KafkaApis checks them:
 * AddPartitionsToTxn (WRITE on the transactional id, then WRITE per topic, internal topics
 * never), AddOffsetsToTxn (WRITE id, READ group), TxnOffsetCommit (WRITE id, READ group, READ
 * per topic), EndTxn (WRITE id), DescribeTransactions (DESCRIBE per id; only DESCRIBE-able
 * topics listed), ListTransactions (only DESCRIBE-able ids), WriteTxnMarkers (ALTER or
 * CLUSTER_ACTION on the cluster).
 * The transactions are set up first while the principal is a super user.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { AclCreation } from '../../src/protocol/messages/create-acls.js';
import { startBrook, tempDir } from '../support/brook.js';

const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
// Kafka's codes: resource TOPIC 2, GROUP 3, TRANSACTIONAL_ID 5; pattern LITERAL 3; operation READ 3, WRITE 4, DESCRIBE 8; ALLOW 3.
const TOPIC = 2, GROUP = 3, TRANSACTIONAL_ID = 5, LITERAL = 3, READ = 3, WRITE = 4, DESCRIBE = 8, ALLOW = 3;
const allow = (resourceType: number, resourceName: string, operation: number): AclCreation =>
  ({ resourceType, resourceName, resourcePatternType: LITERAL, principal: 'User:ANONYMOUS', host: '*', operation, permissionType: ALLOW });

const connect = (port: number): Promise<KafkaConnection> => KafkaConnection.connect({ host: '127.0.0.1', port, clientId: 'txn-acls-test' });

test('the transaction APIs authorize as Kafka\'s KafkaApis', { timeout: 60_000 }, async (t) => {
  const dir = tempDir('brook-txn-acls-');
  const options = { dataDir: dir.path, authorizerClassName: STANDARD, autoCreateTopics: false, transactionStateLogNumPartitions: 3 };
  const admin = await startBrook({ ...options, superUsers: 'User:ANONYMOUS' });
  admin.createTopic('orders', 1);
  admin.createTopic('secret', 1);
  let conn = await connect(admin.port);
  const producers = new Map<string, { producerId: bigint; producerEpoch: number }>();
  for (const id of ['tx-ok', 'tx-hidden', 'tx-read']) {
    assert.equal((await conn.request(Api.FindCoordinator, { keyType: 1, coordinatorKeys: [id] }, { version: 4 })).coordinators![0]!.errorCode, ErrorCode.NONE);
    const init = await conn.request(Api.InitProducerId, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
    assert.equal(init.errorCode, ErrorCode.NONE);
    producers.set(id, { producerId: init.producerId, producerEpoch: init.producerEpoch });
  }
  const addPartitions = (c: KafkaConnection, id: string, topics: { name: string; partitions: number[] }[]) => {
    const p = producers.get(id) ?? { producerId: 99n, producerEpoch: 0 };
    return c.request(Api.AddPartitionsToTxn, {
      v3AndBelowTransactionalId: id, v3AndBelowProducerId: p.producerId, v3AndBelowProducerEpoch: p.producerEpoch, v3AndBelowTopics: topics,
    }, { version: 3 }).then((r) => r.resultsByTopicV3AndBelow!.map((tr) => [tr.name, tr.resultsByPartition.map((pr) => pr.partitionErrorCode)]));
  };
  // As a super user: tx-ok holds both topics, tx-hidden and tx-read one each.
  assert.deepEqual(await addPartitions(conn, 'tx-ok', [{ name: 'orders', partitions: [0] }, { name: 'secret', partitions: [0] }]), [['orders', [0]], ['secret', [0]]]);
  assert.deepEqual(await addPartitions(conn, 'tx-hidden', [{ name: 'secret', partitions: [0] }]), [['secret', [0]]]);
  assert.deepEqual(await addPartitions(conn, 'tx-read', [{ name: 'orders', partitions: [0] }]), [['orders', [0]]]);
  const created = await conn.request(Api.CreateAcls, {
    creations: [
      allow(TRANSACTIONAL_ID, 'tx-ok', WRITE), allow(TRANSACTIONAL_ID, 'tx-read', DESCRIBE),
      allow(TOPIC, 'orders', WRITE), allow(TOPIC, 'orders', READ), allow(GROUP, 'billing', READ),
    ],
  });
  assert.deepEqual(created.results.map((r) => r.errorCode), [0, 0, 0, 0, 0]);
  conn.close();
  await admin.stop();

  // The same principal, no longer a super user: its ACLs decide.
  const broker = await startBrook(options);
  conn = await connect(broker.port);
  t.after(async () => {
    conn.close();
    await broker.stop();
    dir.remove();
  });
  const ok = producers.get('tx-ok')!;

  // AddPartitionsToTxn
  assert.deepEqual(await addPartitions(conn, 'tx-hidden', [{ name: 'orders', partitions: [0] }, { name: 'secret', partitions: [0] }]),
    [['orders', [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]], ['secret', [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]]]);
  assert.deepEqual(await addPartitions(conn, 'tx-read', [{ name: 'orders', partitions: [0] }]), [['orders', [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]]], 'DESCRIBE is not WRITE');
  assert.deepEqual(await addPartitions(conn, 'tx-ok', [
    { name: 'orders', partitions: [0, 7] }, { name: 'secret', partitions: [0] }, { name: '__consumer_offsets', partitions: [0] },
  ]), [
    ['orders', [ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]],
    ['secret', [ErrorCode.TOPIC_AUTHORIZATION_FAILED]],
    ['__consumer_offsets', [ErrorCode.TOPIC_AUTHORIZATION_FAILED]],
  ]);
  assert.deepEqual(await addPartitions(conn, 'tx-ok', [{ name: 'orders', partitions: [0] }]), [['orders', [ErrorCode.NONE]]]);

  // AddOffsetsToTxn
  const addOffsets = async (id: string, groupId: string): Promise<number> =>
    (await conn.request(Api.AddOffsetsToTxn, { transactionalId: id, producerId: ok.producerId, producerEpoch: ok.producerEpoch, groupId })).errorCode;
  assert.equal(await addOffsets('tx-hidden', 'billing'), ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  assert.equal(await addOffsets('tx-ok', 'other'), ErrorCode.GROUP_AUTHORIZATION_FAILED);
  assert.equal(await addOffsets('tx-ok', 'billing'), ErrorCode.NONE);

  // TxnOffsetCommit
  const commitOffsets = async (id: string, groupId: string): Promise<[string, number[]][]> => {
    const r = await conn.request(Api.TxnOffsetCommit, {
      transactionalId: id, groupId, producerId: ok.producerId, producerEpoch: ok.producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: ['orders', 'secret'].map((name) => ({ name, partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }] })),
    });
    return r.topics.map((tr) => [tr.name, tr.partitions.map((p) => p.errorCode)] as [string, number[]]).sort();
  };
  assert.deepEqual(await commitOffsets('tx-hidden', 'billing'), [['orders', [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]], ['secret', [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]]]);
  assert.deepEqual(await commitOffsets('tx-ok', 'other'), [['orders', [ErrorCode.GROUP_AUTHORIZATION_FAILED]], ['secret', [ErrorCode.GROUP_AUTHORIZATION_FAILED]]]);
  assert.deepEqual(await commitOffsets('tx-ok', 'billing'), [['orders', [ErrorCode.NONE]], ['secret', [ErrorCode.TOPIC_AUTHORIZATION_FAILED]]]);

  // DescribeTransactions and ListTransactions
  const described = await conn.request(Api.DescribeTransactions, { transactionalIds: ['tx-ok', 'tx-hidden', 'tx-read'] });
  assert.deepEqual(described.transactionStates.map((s) => [s.transactionalId, s.errorCode, s.transactionState, s.topics.map((tp) => tp.topic).sort()]), [
    ['tx-ok', ErrorCode.NONE, 'Ongoing', ['orders']], // secret and __consumer_offsets are not DESCRIBE-able
    ['tx-hidden', ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, '', []],
    ['tx-read', ErrorCode.NONE, 'Ongoing', ['orders']],
  ]);
  const listed = await conn.request(Api.ListTransactions, { stateFilters: [], producerIdFilters: [], durationFilter: -1n });
  assert.deepEqual(listed.transactionStates.map((s) => s.transactionalId).sort(), ['tx-ok', 'tx-read'], 'WRITE implies DESCRIBE');

  // WriteTxnMarkers: a broker's request, ALTER or CLUSTER_ACTION
  const markers = await conn.request(Api.WriteTxnMarkers, {
    markers: [{ producerId: ok.producerId, producerEpoch: ok.producerEpoch, transactionResult: true, coordinatorEpoch: 0, topics: [{ name: 'orders', partitionIndexes: [0] }] }],
  });
  assert.deepEqual(markers.markers.map((m) => m.topics.map((tp) => tp.partitions.map((p) => p.errorCode))), [[[ErrorCode.CLUSTER_AUTHORIZATION_FAILED]]]);

  // EndTxn
  const endTxn = async (id: string): Promise<number> => {
    const p = producers.get(id)!;
    return (await conn.request(Api.EndTxn, { transactionalId: id, producerId: p.producerId, producerEpoch: p.producerEpoch, committed: true })).errorCode;
  };
  assert.equal(await endTxn('tx-hidden'), ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  assert.equal(await endTxn('tx-read'), ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  assert.equal(await endTxn('tx-ok'), ErrorCode.NONE);
  const after = await conn.request(Api.DescribeTransactions, { transactionalIds: ['tx-read'] });
  assert.equal(after.transactionStates[0]!.transactionState, 'Ongoing', 'a refused EndTxn changes nothing');
});
