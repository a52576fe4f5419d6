/**
 * A moved coordinator: the coordinator APIs answer the key's requests with NOT_COORDINATOR
 * (Kafka's answer from a broker that no longer hosts the key's coordinator partition) and
 * change nothing, while FindCoordinator still names this broker; other keys are served as
 * usual, and once restored (by hand, after `count` requests or `forMs`) the key is too.
 * The error codes are Kafka's (protocol/errors.ts), named by the test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { wordCountTopology } from '../support/coordinator/streams.js';

const T = { timeout: 20_000 };
const CONSUMER_METADATA = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

async function setup(t: { after(fn: () => Promise<void>): void }): Promise<{ broker: Awaited<ReturnType<typeof startBrook>>; conn: RawConnection }> {
  const broker = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  return { broker, conn };
}

const join = {
  sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, memberId: '', groupInstanceId: null,
  protocolType: 'consumer', protocols: [{ name: 'range', metadata: CONSUMER_METADATA }], reason: null,
};
const commit = (groupId: string) => ({
  groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
  topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
});

test('a moved group coordinator: NOT_COORDINATOR for the group\'s requests, FindCoordinator still names the broker, other groups served; restore brings it back', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('orders', 1);
  const move = broker.moveCoordinator({ groupId: 'moved' });
  assert.deepEqual([move.hits, move.moved], [0, true]);

  assert.equal((await conn.request('JoinGroup', 5, { groupId: 'moved', ...join })).errorCode, ErrorCode.NOT_COORDINATOR);
  const committed = await conn.request('OffsetCommit', 8, commit('moved'));
  assert.deepEqual(committed.topics.flatMap((x) => x.partitions.map((p) => [x.name, p.partitionIndex, p.errorCode])), [['orders', 0, ErrorCode.NOT_COORDINATOR]]);
  assert.deepEqual(broker.committed('moved'), {}, 'nothing committed');
  const fetched = await conn.request('OffsetFetch', 7, { groupId: 'moved', topics: null, requireStable: false });
  assert.equal(fetched.errorCode, ErrorCode.NOT_COORDINATOR);
  const beat = await conn.request('ConsumerGroupHeartbeat', 1, {
    groupId: 'moved', memberId: 'member-moved-aaaaaaaaa', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['orders'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  assert.equal(beat.errorCode, ErrorCode.NOT_COORDINATOR);
  const share = await conn.request('ShareGroupHeartbeat', 1, { groupId: 'moved', memberId: 'member-moved-bbbbbbbbb', memberEpoch: 0, rackId: null, subscribedTopicNames: ['orders'] });
  assert.equal(share.errorCode, ErrorCode.NOT_COORDINATOR);
  const streams = await conn.request('StreamsGroupHeartbeat', 1, {
    groupId: 'moved', memberId: 'm1', memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    topology: wordCountTopology(), activeTasks: [], standbyTasks: [], warmupTasks: [], processId: 'p1', userEndpoint: null, clientTags: [],
    taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
  });
  assert.equal(streams.errorCode, ErrorCode.NOT_COORDINATOR);

  const found = await conn.request('FindCoordinator', 4, { keyType: 0, coordinatorKeys: ['moved'] });
  assert.deepEqual(found.coordinators!.map((c) => [c.key, c.errorCode, c.nodeId, c.port]), [['moved', ErrorCode.NONE, broker.context.config.nodeId, broker.port]]);
  assert.equal((await conn.request('JoinGroup', 5, { groupId: 'other', ...join })).errorCode, ErrorCode.MEMBER_ID_REQUIRED, 'another group is served as usual');
  assert.equal((await conn.request('InitProducerId', 4, { transactionalId: 'moved', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 })).errorCode, ErrorCode.NONE, 'a transactional id of the same name is another coordinator key');
  assert.equal(move.hits, 6);

  move.restore();
  assert.equal(move.moved, false);
  assert.equal((await conn.request('OffsetCommit', 8, commit('moved'))).topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  assert.deepEqual(broker.committed('moved'), { orders: { 0: 7n } });
  assert.equal(move.hits, 6);
});

test('a moved transaction coordinator: InitProducerId, AddPartitionsToTxn, EndTxn answer the chosen error for `count` requests, then the key is served', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('payments', 1);
  const init = await conn.request('InitProducerId', 4, { transactionalId: 'tx', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  assert.equal(init.errorCode, ErrorCode.NONE);

  const move = broker.moveCoordinator({ transactionalId: 'tx' }, { count: 2, error: 'COORDINATOR_LOAD_IN_PROGRESS' });
  const add = { v3AndBelowTransactionalId: 'tx', v3AndBelowProducerId: init.producerId, v3AndBelowProducerEpoch: init.producerEpoch, v3AndBelowTopics: [{ name: 'payments', partitions: [0] }] };
  const refused = await conn.request('AddPartitionsToTxn', 3, add);
  assert.deepEqual(refused.resultsByTopicV3AndBelow!.flatMap((r) => r.resultsByPartition.map((p) => [r.name, p.partitionIndex, p.partitionErrorCode])), [['payments', 0, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]]);
  const end = await conn.request('EndTxn', 3, { transactionalId: 'tx', producerId: init.producerId, producerEpoch: init.producerEpoch, committed: true });
  assert.equal(end.errorCode, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  assert.deepEqual([move.hits, move.moved], [2, false]);

  const added = await conn.request('AddPartitionsToTxn', 3, add);
  assert.equal(added.resultsByTopicV3AndBelow![0]!.resultsByPartition[0]!.partitionErrorCode, ErrorCode.NONE);
  const described = await conn.request('DescribeTransactions', 0, { transactionalIds: ['tx'] });
  assert.equal(described.transactionStates[0]!.transactionState, 'Ongoing', 'only the request served after the move back added the partition');
});

test('forMs moves the coordinator back after that long; bad keys and errors are refused', T, async (t) => {
  const { broker, conn } = await setup(t);
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const move = broker.moveCoordinator({ groupId: 'brief' }, { forMs: 5_000 });
  t.mock.timers.tick(4_999);
  assert.equal(move.moved, true);
  t.mock.timers.tick(1);
  t.mock.timers.reset();
  assert.equal(move.moved, false);
  assert.equal((await conn.request('JoinGroup', 5, { groupId: 'brief', ...join })).errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  assert.equal(move.hits, 0);

  assert.throws(() => broker.moveCoordinator({ groupId: 'a', transactionalId: 'b' } as never), TypeError);
  assert.throws(() => broker.moveCoordinator({ groupId: 'a' }, { error: 'NOT_LEADER_OR_FOLLOWER' as never }), TypeError);
  assert.throws(() => broker.moveCoordinator({ groupId: 'a' }, { count: 0 }), TypeError);
  const cleared = broker.moveCoordinator({ groupId: 'cleared' });
  broker.clearFaults();
  assert.equal(cleared.moved, false);
  assert.equal((await conn.request('JoinGroup', 5, { groupId: 'cleared', ...join })).errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  assert.equal(cleared.hits, 0);
});
