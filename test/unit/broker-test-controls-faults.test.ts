/**
 * Injected faults: a matching request is answered with the injected error in every place of
 * its response (per partition, per group, per coordinator key, at the top), without running
 * its handler, so nothing changes; delays hold the answer back; drops close the connection.
 * The expected error codes are Kafka's (protocol/errors.ts), named by the test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, type FaultSpec } from '../../src/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import type { FetchRequestData, ProduceRequestData } from '../../src/protocol/messages/index.js';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';

const T = { timeout: 20_000 };
const CONSUMER_METADATA = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

function produce(topicData: { topic: string; partition: number; value: string }[]): ProduceRequestData {
  return {
    transactionalId: null, acks: -1, timeoutMs: 5000,
    topicData: topicData.map((d) => ({ name: d.topic, partitionData: [{ index: d.partition, records: encodeRecordBatch({ records: [{ value: Buffer.from(d.value) }] }) }] })),
  };
}

function fetch(topic: string, partitions: number[]): FetchRequestData {
  return {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
    topics: [{ topic, partitions: partitions.map((partition) => ({ partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n })) }],
  };
}

async function setup(t: { after(fn: () => Promise<void>): void }): Promise<{ broker: Awaited<ReturnType<typeof startBrook>>; conn: RawConnection }> {
  const broker = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  return { broker, conn };
}

const values = (broker: Awaited<ReturnType<typeof startBrook>>, topic: string): string[] => broker.records(topic).map((r) => `${r.partition}:${r.offset}:${r.value!.toString()}`);

test('a Produce fault answers every partition it names with the error and appends nothing; count 1 faults one request', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('orders', 2);
  const fault = broker.injectFault({ api: 'Produce', topic: 'orders', error: 'NOT_LEADER_OR_FOLLOWER' });
  assert.deepEqual([fault.hits, fault.remaining], [0, 1]);

  const failed = (await conn.request('Produce', 9, produce([{ topic: 'orders', partition: 0, value: 'a' }, { topic: 'orders', partition: 1, value: 'b' }])))!;
  assert.deepEqual(failed.responses.flatMap((r) => r.partitionResponses.map((p) => [r.name, p.index, p.errorCode, p.baseOffset])), [
    ['orders', 0, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1n], ['orders', 1, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1n],
  ]);
  assert.deepEqual(values(broker, 'orders'), []);
  assert.deepEqual([fault.hits, fault.remaining], [1, 0]);

  const retried = (await conn.request('Produce', 9, produce([{ topic: 'orders', partition: 0, value: 'a' }])))!;
  assert.deepEqual(retried.responses[0]!.partitionResponses.map((p) => [p.errorCode, p.baseOffset]), [[ErrorCode.NONE, 0n]]);
  assert.deepEqual(values(broker, 'orders'), ['0:0:a']);
});

test('topic and partition filters pick the partitions that fail; other requests and partitions are handled as usual', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('a', 2);
  broker.createTopic('b', 1);
  const fault = broker.injectFault({ api: 'Produce', topic: 'a', partition: 1, error: 'KAFKA_STORAGE_ERROR', count: Infinity });
  const codes = async (d: { topic: string; partition: number; value: string }[]): Promise<number[]> =>
    (await conn.request('Produce', 9, produce(d)))!.responses.flatMap((r) => r.partitionResponses.map((p) => p.errorCode));
  assert.deepEqual(await codes([{ topic: 'b', partition: 0, value: 'b0' }]), [ErrorCode.NONE]);
  assert.deepEqual(await codes([{ topic: 'a', partition: 0, value: 'a0' }]), [ErrorCode.NONE]);
  assert.deepEqual(await codes([{ topic: 'a', partition: 1, value: 'a1' }]), [ErrorCode.KAFKA_STORAGE_ERROR]);
  // In a request with other partitions too, only the faulted one fails; the others are appended.
  const mixed = (await conn.request('Produce', 9, produce([{ topic: 'b', partition: 0, value: 'b1' }, { topic: 'a', partition: 1, value: 'a1' }, { topic: 'a', partition: 0, value: 'a0-2' }])))!;
  assert.deepEqual(mixed.responses.flatMap((r) => r.partitionResponses.map((p) => [r.name, p.index, p.errorCode, p.baseOffset])).sort(), [
    ['a', 0, ErrorCode.NONE, 1n], ['a', 1, ErrorCode.KAFKA_STORAGE_ERROR, -1n], ['b', 0, ErrorCode.NONE, 1n],
  ]);
  // Produce v13 names topics by id: the filter's topic name still finds them.
  const byId = { ...produce([{ topic: 'a', partition: 1, value: 'a1' }, { topic: 'b', partition: 0, value: 'b2' }]), acks: -1 };
  byId.topicData = byId.topicData.map((t) => ({ topicId: broker.storage.topic(t.name!)!.topicId, partitionData: t.partitionData }));
  const v13 = (await conn.request('Produce', 13, byId))!;
  assert.deepEqual(v13.responses.map((r) => [r.topicId, r.partitionResponses.map((p) => p.errorCode)]), [
    [broker.storage.topic('b')!.topicId, [ErrorCode.NONE]], [broker.storage.topic('a')!.topicId, [ErrorCode.KAFKA_STORAGE_ERROR]],
  ]);
  assert.deepEqual([fault.hits, fault.remaining], [3, Infinity]);
  fault.remove();
  assert.deepEqual(await codes([{ topic: 'a', partition: 1, value: 'a1' }]), [ErrorCode.NONE]);
  assert.deepEqual(values(broker, 'a'), ['0:0:a0', '0:1:a0-2', '1:0:a1']);
  assert.deepEqual(values(broker, 'b'), ['0:0:b0', '0:1:b1', '0:2:b2']);
});

test('an acks=0 Produce that a fault fails is not answered: the connection closes, as Kafka closes it after a failed acks=0 Produce', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('silent', 1);
  broker.injectFault({ api: 'Produce', topic: 'silent', error: 'NOT_LEADER_OR_FOLLOWER' });
  await conn.request('Produce', 9, { ...produce([{ topic: 'silent', partition: 0, value: 'lost' }]), acks: 0 });
  await assert.rejects(conn.request('ApiVersions', 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }), /closed/);
  assert.deepEqual(values(broker, 'silent'), []);
});

test('Fetch and ListOffsets faults answer each requested partition with the error', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('f', 2);
  broker.injectFault({ api: 'Fetch', error: 'NOT_LEADER_OR_FOLLOWER' });
  broker.injectFault({ api: 'ListOffsets', topic: 'f', error: 'LEADER_NOT_AVAILABLE' });
  const fetched = await conn.request('Fetch', 12, fetch('f', [0, 1]));
  assert.deepEqual([fetched.errorCode, fetched.sessionId], [ErrorCode.NONE, 0]);
  assert.deepEqual(fetched.responses.flatMap((r) => r.partitions.map((p) => [r.topic, p.partitionIndex, p.errorCode, p.highWatermark])), [
    ['f', 0, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1n], ['f', 1, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1n],
  ]);
  assert.deepEqual((await conn.request('Fetch', 12, fetch('f', [0]))).responses[0]!.partitions.map((p) => p.errorCode), [ErrorCode.NONE]);
  const listed = await conn.request('ListOffsets', 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'f', partitions: [{ partitionIndex: 1, currentLeaderEpoch: -1, timestamp: -1n }] }] });
  assert.deepEqual(listed.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.offset]), [[1, ErrorCode.LEADER_NOT_AVAILABLE, -1n]]);
});

test('group API faults: JoinGroup at the top, FindCoordinator v4 per key, OffsetCommit per partition and nothing committed', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('g', 1);
  broker.injectFault({ api: 'JoinGroup', groupId: 'g1', error: 'COORDINATOR_NOT_AVAILABLE' });
  const join = { sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: CONSUMER_METADATA }], reason: null };
  const refused = await conn.request('JoinGroup', 3, { groupId: 'g1', ...join });
  assert.equal(refused.errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  assert.equal(await broker.waitForGroupState('g1', 'Stable', { timeoutMs: 0 }).then(() => 'joined', (err: Error) => err.name), 'GroupStateTimeoutError');

  broker.injectFault({ api: 'FindCoordinator', groupId: 'g2', error: 'COORDINATOR_LOAD_IN_PROGRESS' });
  const found = await conn.request('FindCoordinator', 4, { keyType: 0, coordinatorKeys: ['g2', 'g3'] });
  assert.deepEqual(found.coordinators!.map((c) => [c.key, c.errorCode, c.nodeId]), [['g2', ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, -1], ['g3', ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, -1]]);
  const again = await conn.request('FindCoordinator', 4, { keyType: 0, coordinatorKeys: ['g2'] });
  assert.equal(again.coordinators![0]!.errorCode, ErrorCode.NONE);

  broker.injectFault({ api: 'OffsetCommit', groupId: 'g4', error: 'REQUEST_TIMED_OUT' });
  const commit = { groupId: 'g4', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'g', partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' }] }] };
  const failed = await conn.request('OffsetCommit', 8, commit);
  assert.deepEqual(failed.topics.flatMap((x) => x.partitions.map((p) => [x.name, p.partitionIndex, p.errorCode])), [['g', 0, ErrorCode.REQUEST_TIMED_OUT]]);
  assert.deepEqual(broker.committed('g4'), {});
  const ok = await conn.request('OffsetCommit', 8, commit);
  assert.equal(ok.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  assert.deepEqual(broker.committed('g4'), { g: { 0: 7n } });
});

test('delayMs holds the normal answer back; an injected error can be delayed too', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('d', 1);
  const delayMs = 150;
  broker.injectFault({ api: 'Produce', delayMs });
  let started = performance.now();
  const answer = (await conn.request('Produce', 9, produce([{ topic: 'd', partition: 0, value: 'x' }])))!;
  assert.ok(performance.now() - started >= delayMs - 1, 'held back');
  assert.equal(answer.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  assert.deepEqual(values(broker, 'd'), ['0:0:x'], 'the handler ran: the record is in');

  broker.injectFault({ api: 'Heartbeat', error: 'REBALANCE_IN_PROGRESS', delayMs });
  started = performance.now();
  const hb = await conn.request('Heartbeat', 3, { groupId: 'h', generationId: 1, memberId: 'm', groupInstanceId: null });
  assert.ok(performance.now() - started >= delayMs - 1);
  assert.equal(hb.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
});

test('drop closes the connection instead of answering; the next connection is served', T, async (t) => {
  const { broker, conn } = await setup(t);
  const responses: string[] = [];
  broker.onResponse((r) => responses.push(r.api));
  const fault = broker.injectFault({ api: 'Metadata', drop: true });
  await assert.rejects(conn.request('Metadata', 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }), /closed/);
  assert.equal(fault.hits, 1);
  assert.deepEqual(responses, []);
  const next = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(() => next.close());
  const metadata = await next.request('Metadata', 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  assert.equal(metadata.brokers.length, 1);
});

test('a delayed drop holds the connection unanswered, then closes it; hooks also work with sockets on the event loop', T, async (t) => {
  const broker = await startBrook({ numNetworkThreads: 0 });
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  const seen: string[] = [];
  broker.onRequest((r) => seen.push(r.api));
  broker.injectFault({ api: 'ApiVersions', drop: true, delayMs: 100 });
  const started = performance.now();
  const dropped = conn.request('ApiVersions', 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
  // Pipelined behind it: answered only if the dropped one were; lost with the connection.
  const behind = conn.request('Metadata', 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  await assert.rejects(dropped, /closed/);
  await assert.rejects(behind, /closed/);
  assert.ok(performance.now() - started >= 99, 'closed after the delay');
  assert.deepEqual(seen, ['ApiVersions', 'Metadata']);
});

test('ConsumerGroupHeartbeat and OffsetFetch v8 faults: at the top, and per group', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('cgh', 1);
  broker.injectFault({ api: 'ConsumerGroupHeartbeat', groupId: 'cg', error: 'COORDINATOR_NOT_AVAILABLE' });
  const beat = await conn.request('ConsumerGroupHeartbeat', 1, {
    groupId: 'cg', memberId: 'member-aaaaaaaaaaaaaaaa', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['cgh'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  assert.deepEqual([beat.errorCode, beat.memberEpoch], [ErrorCode.COORDINATOR_NOT_AVAILABLE, 0]);
  assert.equal(await broker.waitForGroupState('cg', 'Stable', { timeoutMs: 0 }).then(() => 'joined', (err: Error) => err.name), 'GroupStateTimeoutError');

  broker.injectFault({ api: 'OffsetFetch', groupId: 'of1', error: 'COORDINATOR_LOAD_IN_PROGRESS' });
  const fetched = await conn.request('OffsetFetch', 8, { groups: [{ groupId: 'of1', topics: null }, { groupId: 'of2', topics: null }], requireStable: false });
  assert.deepEqual(fetched.groups!.map((g) => [g.groupId, g.errorCode]), [['of1', ErrorCode.COORDINATOR_LOAD_IN_PROGRESS], ['of2', ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]]);
});

test('a match function narrows a fault further: only the requests it accepts fault', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.createTopic('m', 1);
  const fault = broker.injectFault({ api: 'Produce', error: 'NOT_ENOUGH_REPLICAS', count: Infinity, match: (r) => r.api === 'Produce' && r.body.timeoutMs === 1234 });
  const send = async (timeoutMs: number): Promise<number> => (await conn.request('Produce', 9, { ...produce([{ topic: 'm', partition: 0, value: String(timeoutMs) }]), timeoutMs }))!.responses[0]!.partitionResponses[0]!.errorCode;
  assert.equal(await send(5000), ErrorCode.NONE);
  assert.equal(await send(1234), ErrorCode.NOT_ENOUGH_REPLICAS);
  assert.equal(fault.hits, 1);
  broker.injectFault({
    api: 'Produce', error: 'NOT_ENOUGH_REPLICAS', match: () => {
      throw new Error('test bug');
    },
  });
  assert.equal(await send(5000), ErrorCode.NONE, 'a match function that throws does not match');
  assert.deepEqual(values(broker, 'm'), ['0:0:5000', '0:1:5000']);
});

test('clearFaults removes every fault; faults that cannot be injected are refused', T, async (t) => {
  const { broker, conn } = await setup(t);
  broker.injectFault({ api: 'InitProducerId', error: 'COORDINATOR_NOT_AVAILABLE', count: Infinity });
  broker.clearFaults();
  const init = await conn.request('InitProducerId', 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  assert.equal(init.errorCode, ErrorCode.NONE);

  const refused: FaultSpec[] = [
    { api: 'Nope' as FaultSpec['api'], error: 'NONE' },
    { api: 'Produce', error: 'NO_SUCH_ERROR' as FaultSpec['error'] },
    { api: 'Metadata', error: 'LEADER_NOT_AVAILABLE' },
    { api: 'Heartbeat', topic: 'x', error: 'REBALANCE_IN_PROGRESS' },
    { api: 'Produce', partition: 0, error: 'NOT_LEADER_OR_FOLLOWER' },
    { api: 'Produce', error: 'NOT_LEADER_OR_FOLLOWER', drop: true },
    { api: 'Produce', error: 'NOT_LEADER_OR_FOLLOWER', count: 0 },
    { api: 'Produce' },
  ];
  for (const spec of refused) assert.throws(() => broker.injectFault(spec), TypeError, JSON.stringify(spec));
});
