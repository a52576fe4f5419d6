/**
 * What Kafka 4.2 to 4.4 changed in consumer groups, each after the GroupMetadataManagerTest
 * case or the Kafka issue that brought it: groups start at epoch 1 (KAFKA-20268), assignments
 * at most every group.consumer.assignment.interval.ms with their time recorded (KIP-1263),
 * a new preferred assignor bumps the group epoch, a changed subscription revokes at once,
 * an Empty group's assignment epoch catches up (KAFKA-20442), fenced members rejoin with
 * epoch 0 (KAFKA-19233).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import { decodeCoordinatorKey } from '../../src/protocol/coordinator-records/framing.js';
import { decodeConsumerGroupRecord } from '../../src/protocol/coordinator-records/consumer-group-framing.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { assignments, cgBeat, cgDescribe, cgHeartbeat, cgJoin, named } from '../support/coordinator/consumer.js';

/** The consumer-group records of a type in the log, decoded (tombstones as null values). */
function recordsOf(h: CoordinatorHarness, type: number): unknown[] {
  const out: unknown[] = [];
  for (const r of h.log) {
    const k = decodeCoordinatorKey(r.key);
    if (k.kind === 'consumer-group' && k.type === type) out.push(decodeConsumerGroupRecord(k.type, k.keyReader, r.value).value);
  }
  return out;
}

function withInterval(ms: number): CoordinatorHarness {
  return new CoordinatorHarness(new GroupCoordinator(testConfig({ consumerGroupAssignmentIntervalMs: ms })));
}

describe('coordinator: consumer groups as Kafka 4.4', { timeout: 10_000 }, () => {
  it('a regex member of a new group reconciles at epoch 1 with nothing while its regex is unresolved (KAFKA-20268)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ 'r-a': 1 });
    const r = cgJoin(h, { memberId: 'A', regex: 'r-.*' });
    assert.deepEqual([r.memberEpoch, named(h, r.assignment?.topicPartitions)], [1, {}]);
    const d = cgDescribe(h);
    assert.deepEqual([d.groupEpoch, d.assignmentEpoch, d.groupState], [1, 1, 'Stable']);
  });

  it('computes a target at most every group.consumer.assignment.interval.ms; a member joining sooner waits at the last epoch (KIP-1263)', () => {
    const h = withInterval(1000);
    h.setTopics({ t: 2 });
    assert.equal(cgJoin(h, { memberId: 'A' }).memberEpoch, 2, 'never computed: at once');
    h.advance(400);
    const b = cgJoin(h, { memberId: 'B' });
    assert.deepEqual([b.memberEpoch, named(h, b.assignment?.topicPartitions)], [2, {}], 'the last target (epoch 2), empty for B');
    let d = cgDescribe(h);
    assert.deepEqual([d.groupEpoch, d.assignmentEpoch, d.groupState], [3, 2, 'Assigning']);
    h.advance(599);
    assert.equal(cgBeat(h, 'A', 2, { t: [0, 1] }).memberEpoch, 2, 'still within the interval');
    assert.equal(cgDescribe(h).assignmentEpoch, 2);
    h.advance(1);
    const a = cgBeat(h, 'A', 2, { t: [0, 1] });
    d = cgDescribe(h);
    assert.deepEqual([d.groupEpoch, d.assignmentEpoch], [3, 3], 'the first heartbeat after the interval computes it');
    assert.equal(a.memberEpoch, 2, 'A revokes first');
    assert.equal(named(h, a.assignment?.topicPartitions)!.t!.length, 1);
  });

  it('writes the assignment time as tagged field 0 of ConsumerGroupTargetAssignmentMetadataValue, and a restart keeps the interval', () => {
    const h = withInterval(1000);
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    assert.deepEqual(recordsOf(h, 6), [{ assignmentEpoch: 2, assignmentTimestamp: BigInt(h.nowMs) }]);
    h.advance(200);
    const again = h.restart({ consumerGroupAssignmentIntervalMs: 1000 });
    const b = cgJoin(again, { memberId: 'B' });
    assert.equal(b.memberEpoch, 2, 'the replayed time still holds the next assignment back');
    again.advance(800);
    cgBeat(again, 'B', 2, {});
    assert.equal(cgDescribe(again).assignmentEpoch, 3);
  });

  it('a member selecting another assignor bumps the group epoch, even with the same topics', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4 });
    cgJoin(h, { memberId: 'A' });
    cgJoin(h, { memberId: 'B' });
    const before = cgDescribe(h).groupEpoch;
    cgHeartbeat(h, { memberId: 'A', epoch: assignments(h)['A']!.epoch, assignor: 'range', owned: assignments(h)['A']!.current });
    cgHeartbeat(h, { memberId: 'B', epoch: assignments(h)['B']!.epoch, assignor: 'range', owned: assignments(h)['B']!.current });
    const d = cgDescribe(h);
    assert.equal(d.assignorName, 'range');
    assert.equal(d.groupEpoch, before + 1, 'A alone ties uniform and range (the first of the names in hash order wins); B tips it');
  });

  it('a member that drops a topic from its subscription revokes its partitions at once, before any new target', () => {
    const h = withInterval(60_000);
    h.setTopics({ t: 1, u: 1 });
    cgJoin(h, { memberId: 'A', topics: ['t', 'u'] });
    const r = cgHeartbeat(h, { memberId: 'A', epoch: 2, topics: ['t'], owned: { t: [0], u: [0] } }).answer;
    assert.equal(cgDescribe(h).assignmentEpoch, 2, 'the interval holds the new target back');
    assert.deepEqual([r.memberEpoch, named(h, r.assignment?.topicPartitions)], [2, { t: [0] }], 'u is revoked all the same');
    assert.equal(cgBeat(h, 'A', 2, { t: [0] }).memberEpoch, 2);
  });

  it('ConsumerGroupDescribe lists what a member must still revoke with what it keeps (asConsumerGroupDescribeMember)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    cgJoin(h, { memberId: 'B' });
    const a = cgBeat(h, 'A', 2, { t: [0, 1] });
    assert.equal(named(h, a.assignment?.topicPartitions)!.t!.length, 1, 'A keeps one, revokes one');
    assert.deepEqual(assignments(h)['A']!.current, { t: [0, 1] });
  });

  it('generates member ids as Kafka\'s Uuid.toString(): URL-safe base64 of 16 bytes, never starting with "-"', () => {
    const uuids = ['fb000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000001'];
    const h = new CoordinatorHarness(new GroupCoordinator(testConfig({ generateUuid: () => uuids.shift()! })));
    h.setTopics({ t: 1 });
    const r = cgHeartbeat(h, { memberId: '', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {}, version: 0 }).answer;
    assert.equal(r.memberId, 'AAAAAAAAAAAAAAAAAAAAAQ', 'the first UUID would start with "-": another is drawn');
  });

  it('the last member leaving brings the assignment epoch up to the group epoch (KAFKA-20442)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    cgJoin(h, { memberId: 'A' });
    cgHeartbeat(h, { memberId: 'A', epoch: -1 });
    const d = cgDescribe(h);
    assert.deepEqual([d.groupState, d.groupEpoch, d.assignmentEpoch], ['Empty', 3, 3]);
    assert.deepEqual(recordsOf(h, 6).at(-1), { assignmentEpoch: 3, assignmentTimestamp: 0n });
  });

  it('a partition the member itself is still revoking is not waiting for anyone (CurrentAssignmentBuilder)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    cgJoin(h, { memberId: 'B' });
    // A must give up one partition; before it does, B leaves: A's target is both again.
    const a = cgBeat(h, 'A', 2, { t: [0, 1] });
    const kept = named(h, a.assignment?.topicPartitions)!.t!;
    cgHeartbeat(h, { memberId: 'B', epoch: -1 });
    assert.equal(cgBeat(h, 'A', 2, { t: [0, 1] }).memberEpoch, 2, 'still owning what it must revoke: no step');
    // Its revocation takes it straight to the new target, the partition it gave up included.
    const back = cgBeat(h, 'A', 2, { t: kept });
    assert.deepEqual([back.memberEpoch, named(h, back.assignment?.topicPartitions)], [4, { t: [0, 1] }]);
    assert.equal(cgDescribe(h).groupState, 'Stable');
  });
});
