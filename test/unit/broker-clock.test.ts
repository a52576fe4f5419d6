/**
 * The broker's one clock: an embedded broker on a ManualScheduler runs its coordinators'
 * timers on it, so a test moves time instead of waiting. Every deadline below is tens of
 * seconds of broker time, reached in milliseconds of real time (the test's timeout is far
 * shorter than what the broker waits), and nothing happens before the clock is moved:
 * - the classic group's initial rebalance delay (group.initial.rebalance.delay.ms) holds the
 *   first JoinGroup until the clock passes it;
 * - a member that stops heartbeating is removed once its session timeout has passed;
 * - an Ongoing transaction is aborted at its transaction.timeout.ms (at the next abort
 *   check, transaction.abort.timed.out.transaction.cleanup.interval.ms), with the epoch bump
 *   and the ABORT marker Kafka writes.
 * Requests are raw (KafkaConnection), over real sockets: socket I/O keeps real time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeControlRecordKey, decodeRecordBatch, iterateBatches } from '../../src/protocol/records/index.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { startBrook } from '../support/brook.js';

const INITIAL_DELAY_MS = 30_000;
const SESSION_TIMEOUT_MS = 60_000;
const TXN_TIMEOUT_MS = 120_000;
const ABORT_CHECK_MS = 10_000;

const CONSUMER_METADATA = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

test('session timeout, initial rebalance delay and transaction timeout follow the injected clock, with no real waiting', { timeout: 20_000 }, async (t) => {
  const clock = new ManualScheduler(Date.now());
  const broker = await startBrook({
    clock, groupInitialRebalanceDelayMs: INITIAL_DELAY_MS, transactionAbortTimedOutTransactionCleanupIntervalMs: ABORT_CHECK_MS,
  });
  // Two connections: a parked JoinGroup holds back the responses after it on its own.
  const member = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  const admin = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(async () => {
    member.close();
    admin.close();
    await broker.stop();
  });
  broker.createTopic('clock-tx', 1);
  const describeGroup = async (): Promise<{ state: string; members: number }> => {
    const g = (await admin.request(Api.DescribeGroups, { groups: ['clock-group'], includeAuthorizedOperations: false }, { version: 3 })).groups[0]!;
    return { state: g.groupState, members: g.members.length };
  };

  // The initial rebalance delay: the first JoinGroup is answered only once it has passed.
  let joinAnswered = false;
  const joining = member.request(Api.JoinGroup, {
    groupId: 'clock-group', sessionTimeoutMs: SESSION_TIMEOUT_MS, rebalanceTimeoutMs: 2 * INITIAL_DELAY_MS, memberId: '',
    groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: CONSUMER_METADATA }], reason: null,
  }, { version: 3 }).then((r) => {
    joinAnswered = true;
    return r;
  });
  await clock.advance(0);
  assert.deepEqual(await describeGroup(), { state: 'PreparingRebalance', members: 1 });
  await clock.advance(INITIAL_DELAY_MS - 1);
  assert.deepEqual(await describeGroup(), { state: 'PreparingRebalance', members: 1 }, 'still delayed 1 ms before the delay ends');
  assert.equal(joinAnswered, false);
  await clock.advance(1);
  const joined = await joining;
  assert.equal(joined.errorCode, ErrorCode.NONE);
  assert.equal(joined.generationId, 1);
  const synced = await member.request(Api.SyncGroup, {
    groupId: 'clock-group', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null,
    protocolType: null, protocolName: null, assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }],
  }, { version: 3 });
  assert.equal(synced.errorCode, ErrorCode.NONE);
  assert.deepEqual(await describeGroup(), { state: 'Stable', members: 1 });

  // The session timeout: the member stays while the clock stands still, and goes once it passes.
  await clock.advance(SESSION_TIMEOUT_MS - 1);
  assert.deepEqual(await describeGroup(), { state: 'Stable', members: 1 }, 'the session has 1 ms left');
  await clock.advance(1);
  assert.deepEqual(await describeGroup(), { state: 'Empty', members: 0 }, 'the member expired with its session');

  // The transaction timeout.
  const init = await admin.request(Api.InitProducerId, { transactionalId: 'clock-tid', transactionTimeoutMs: TXN_TIMEOUT_MS, producerId: -1n, producerEpoch: -1 });
  assert.equal(init.errorCode, ErrorCode.NONE);
  const added = await admin.request(Api.AddPartitionsToTxn, {
    v3AndBelowTransactionalId: 'clock-tid', v3AndBelowProducerId: init.producerId, v3AndBelowProducerEpoch: init.producerEpoch,
    v3AndBelowTopics: [{ name: 'clock-tx', partitions: [0] }],
  }, { version: 3 });
  assert.equal(added.resultsByTopicV3AndBelow![0]!.resultsByPartition[0]!.partitionErrorCode, ErrorCode.NONE);
  const describeTxn = async (): Promise<{ state: string; epoch: number }> => {
    const s = (await admin.request(Api.DescribeTransactions, { transactionalIds: ['clock-tid'] })).transactionStates[0]!;
    return { state: s.transactionState, epoch: s.producerEpoch };
  };
  // The abort check runs every ABORT_CHECK_MS and aborts what is past its timeout: not yet
  // at the timeout itself (Kafka's txnStartTimestamp + timeout < now), at the check after it.
  await clock.advance(TXN_TIMEOUT_MS);
  assert.deepEqual(await describeTxn(), { state: 'Ongoing', epoch: init.producerEpoch });
  await clock.advance(ABORT_CHECK_MS);
  // The markers are appended and made durable in turns of the event loop, not on the clock.
  let described = await describeTxn();
  for (let i = 0; i < 100 && described.state !== 'CompleteAbort'; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    described = await describeTxn();
  }
  assert.deepEqual(described, { state: 'CompleteAbort', epoch: init.producerEpoch + 1 });
  const fetched = await admin.request(Api.Fetch, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic: 'clock-tx', topicId: '', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
    forgottenTopicsData: [], rackId: '',
  }, { version: 4 });
  const batches = [...iterateBatches(fetched.responses[0]!.partitions[0]!.records as Buffer)].map((v) => decodeRecordBatch(v.buffer));
  assert.equal(batches.length, 1);
  const marker = batches[0]!;
  assert.ok(marker.header.isControl && marker.header.isTransactional);
  assert.equal(marker.header.producerEpoch, init.producerEpoch + 1);
  assert.equal(decodeControlRecordKey(marker.records[0]!.key).type, 0, 'an ABORT marker');
});
