/**
 * The coordinator runtime answers membership (ConsumerGroupHeartbeat, JoinGroup, SyncGroup,
 * ...) once its records are in `__consumer_offsets`, without waiting for their fsync, as
 * Kafka answers once a record is in the log; offset commits, and the OffsetFetch behind
 * them, still wait until durable. An fsync that fails once membership built on it was
 * answered unloads the coordinator, which loads again from the log. A group of 500 members
 * at a heartbeat interval of 100 ms converges while no fsync completes at all: what no
 * heartbeat reply waits for cannot make a member time out. Driven by a memory storage whose
 * `__consumer_offsets` fsyncs the test holds, and a manual clock.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCoordinatorService } from '../../src/broker/group-coordinator-service.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Api } from '../../src/protocol/messages/index.js';
import type { ConsumerGroupHeartbeatRequestData, ConsumerGroupHeartbeatResponseData } from '../../src/protocol/messages/consumer-group-heartbeat.js';
import type { OffsetCommitResponseData } from '../../src/protocol/messages/offset-commit.js';
import type { OffsetFetchResponseData } from '../../src/protocol/messages/offset-fetch.js';
import { StorageError } from '../../src/storage/index.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/log.js';
import { gatedStorage, requestContext, settle } from '../support/coordinator/gated-storage.js';

const HEARTBEAT_INTERVAL_MS = 100;

function setup(partitions = 4) {
  const { storage, gate } = gatedStorage();
  storage.createTopic('t', partitions);
  const topicId = storage.topic('t')!.topicId;
  const clock = new ManualScheduler(1_000_000);
  const coordinator = { consumerGroupHeartbeatIntervalMs: HEARTBEAT_INTERVAL_MS, consumerGroupAssignmentIntervalMs: 0 };
  const service = GroupCoordinatorService.start({ storage, clock, log: silentLogger, coordinator, offsetsTopicSegmentBytes: 64 << 20 });
  const connection = new AbortController();
  const heartbeat = (req: Partial<ConsumerGroupHeartbeatRequestData> & { memberId: string; memberEpoch: number }): Promise<ConsumerGroupHeartbeatResponseData> =>
    service.submit<ConsumerGroupHeartbeatResponseData>(
      requestContext(connection.signal, Api.ConsumerGroupHeartbeat.apiKey, 1),
      (c, cctx) => c.consumerGroupHeartbeat(cctx, {
        groupId: 'g', instanceId: null, rackId: null, rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null, ...req,
      }),
      (errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null }),
    );
  const join = (memberId: string): Promise<ConsumerGroupHeartbeatResponseData> =>
    heartbeat({ memberId, memberEpoch: 0, rebalanceTimeoutMs: 300_000, subscribedTopicNames: ['t'], topicPartitions: [] });
  const commit = (offset: bigint): Promise<number> =>
    service.submit<OffsetCommitResponseData>(
      requestContext(connection.signal, Api.OffsetCommit.apiKey, 8),
      (c, cctx) => c.offsetCommit(cctx, {
        groupId: 'simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      }),
      (errorCode) => ({ throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode }] }] }),
    ).then((res) => res.topics[0]!.partitions[0]!.errorCode);
  const fetchOffset = (): Promise<number> =>
    service.submit<OffsetFetchResponseData>(
      requestContext(connection.signal, Api.OffsetFetch.apiKey, 8),
      (c, cctx) => c.offsetFetch(cctx, { groups: [{ groupId: 'simple', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0] }] }], requireStable: false }),
      (errorCode) => ({ throttleTimeMs: 0, topics: [], errorCode, groups: [] }),
    ).then((res) => Number(res.groups![0]!.topics[0]!.partitions[0]!.committedOffset));
  const logEnd = (): bigint => storage.partition('__consumer_offsets', 0)?.logEndOffset ?? 0n;
  return { storage, gate, clock, service, topicId, heartbeat, join, commit, fetchOffset, logEnd };
}

/** Tracks whether a promise has settled, without awaiting it. */
function watch<T>(promise: Promise<T>): { readonly done: boolean; readonly value: T | undefined } {
  const state = { done: false, value: undefined as T | undefined };
  void promise.then((v) => {
    state.done = true;
    state.value = v;
  });
  return state;
}

describe('coordinator runtime: membership answered once appended', { timeout: 60_000 }, () => {
  it('answers a joining member once its records are in the log, while their fsync is pending', async () => {
    const { gate, service, join, logEnd } = setup();
    gate.hold = true;
    const before = logEnd();
    const answer = watch(join('A'));
    await settle();
    assert.ok(gate.pending.length > 0, 'its records wait for an fsync');
    assert.ok(logEnd() > before, 'its records are in the log');
    assert.equal(answer.done, true, 'answered without the fsync');
    assert.equal(answer.value!.errorCode, ErrorCode.NONE);
    assert.ok(answer.value!.memberEpoch > 0);
    assert.equal(answer.value!.assignment?.topicPartitions[0]?.partitions.length, 4);
    for (const p of gate.pending) p.resolve();
    await service.stop();
  });

  it('an offset commit, and an OffsetFetch after it, wait for the fsync; a heartbeat after them does not', async () => {
    const { gate, service, join, heartbeat, commit, fetchOffset } = setup();
    const a = await join('A');
    gate.hold = true;
    const committed = watch(commit(7n));
    await settle();
    const fetched = watch(fetchOffset());
    const beat = watch(heartbeat({ memberId: 'A', memberEpoch: a.memberEpoch }));
    await settle();
    assert.equal(beat.done, true, 'the heartbeat is answered');
    assert.equal(beat.value!.errorCode, ErrorCode.NONE);
    assert.equal(committed.done, false, 'the commit waits for its fsync');
    assert.equal(fetched.done, false, 'the fetch must not show an offset that is not durable');
    gate.hold = false;
    for (const p of gate.pending) p.resolve();
    await settle();
    assert.equal(committed.value, ErrorCode.NONE);
    assert.equal(fetched.value, 7);
    await service.stop();
  });

  it('a failed fsync under answered membership unloads the coordinator, which loads again from the log and serves', async () => {
    const { gate, service, join, heartbeat, commit } = setup();
    gate.hold = true;
    const first = service.coordinator;
    const a = watch(join('A'));
    await settle();
    assert.equal(a.done, true);
    const committed = watch(commit(3n)); // its own append, still pending when A's fails
    await settle();
    assert.equal(gate.pending.length, 2);
    // A's records were answered: a revert cannot take them back.
    gate.pending[0]!.reject(new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'fsync failed'));
    await settle();
    assert.equal(committed.value, ErrorCode.NOT_COORDINATOR, 'what waited is failed');
    assert.equal((await heartbeat({ memberId: 'A', memberEpoch: a.value!.memberEpoch })).errorCode, ErrorCode.NOT_COORDINATOR, 'unloaded');
    assert.equal(service.coordinator, first, 'loaded again only once every issued append settled');
    gate.hold = false;
    gate.pending[1]!.resolve();
    for (let i = 0; i < 50 && service.coordinator === first; i++) await settle();
    assert.notEqual(service.coordinator, first, 'loaded again from the log');
    // This test's gate only fakes the failed fsync (the log keeps the records; the file
    // storage cuts it back, see broker-group-durability.test.ts): the coordinator serves.
    assert.equal((await join('B')).errorCode, ErrorCode.NONE);
    await service.stop();
  });

  it('500 members at a heartbeat interval of 100 ms converge while no fsync of __consumer_offsets completes', async () => {
    const partitions = 500;
    const { gate, clock, service, topicId } = setup(partitions);
    gate.hold = true;
    const members = Array.from({ length: 500 }, (_, i) => ({ id: `member-${String(i).padStart(3, '0')}`, epoch: 0, owned: [] as number[], sendOwned: true }));
    const h = (req: Partial<ConsumerGroupHeartbeatRequestData> & { memberId: string; memberEpoch: number }) =>
      service.submit<ConsumerGroupHeartbeatResponseData>(
        requestContext(new AbortController().signal, Api.ConsumerGroupHeartbeat.apiKey, 1),
        (c, cctx) => c.consumerGroupHeartbeat(cctx, {
          groupId: 'big', instanceId: null, rackId: null, rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null, ...req,
        }),
        (errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null }),
      );
    let rounds = 0;
    let stable = false;
    while (!stable) {
      rounds++;
      assert.ok(rounds <= 20, `not converged after ${rounds - 1} rounds of heartbeats`);
      // Every member heartbeats in the same turn, as a burst of requests arrives.
      const answers = members.map((m) => watch(m.epoch === 0
        ? h({ memberId: m.id, memberEpoch: 0, rebalanceTimeoutMs: 300_000, subscribedTopicNames: ['t'], topicPartitions: [] })
        : h({ memberId: m.id, memberEpoch: m.epoch, topicPartitions: m.sendOwned ? [{ topicId, partitions: m.owned }] : null })));
      await settle();
      let changed = 0;
      members.forEach((m, i) => {
        const a = answers[i]!;
        assert.equal(a.done, true, `${m.id}'s heartbeat in round ${rounds} is answered within the turn`);
        assert.equal(a.value!.errorCode, ErrorCode.NONE, `${m.id}: ${a.value!.errorMessage}`);
        assert.equal(a.value!.heartbeatIntervalMs, HEARTBEAT_INTERVAL_MS);
        m.sendOwned = false;
        if (a.value!.memberEpoch !== m.epoch) changed++;
        m.epoch = a.value!.memberEpoch;
        if (a.value!.assignment !== null) {
          // A cooperative client revokes at once and acknowledges what it owns next time.
          m.owned = a.value!.assignment.topicPartitions.flatMap((t) => t.partitions);
          m.sendOwned = true;
          changed++;
        }
      });
      await clock.advance(HEARTBEAT_INTERVAL_MS);
      stable = changed === 0;
    }
    const owners = new Map<number, string>();
    for (const m of members) {
      for (const p of m.owned) {
        assert.equal(owners.get(p), undefined, `partition ${p} owned by ${owners.get(p)} and ${m.id}`);
        owners.set(p, m.id);
      }
      assert.equal(m.owned.length, 1, `${m.id} owns one partition`);
    }
    assert.equal(owners.size, partitions);
    const epochs = new Set(members.map((m) => m.epoch));
    assert.equal(epochs.size, 1, 'every member at the same epoch');
    assert.ok(gate.pending.length > 0, 'no fsync completed during the formation');
    gate.hold = false;
    for (const p of gate.pending) p.resolve();
    await service.stop();
  });
});
