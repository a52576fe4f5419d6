import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeCoordinatorKey } from '../../src/protocol/coordinator-records/framing.js';
import { LatestRecordPerKey } from '../../src/broker/offsets-replay.js';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import type { CoordinatorRecord } from '../../src/coordinator/types.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { assignments, cgBeat, cgDescribe, cgHeartbeat, cgJoin } from '../support/coordinator/consumer.js';

/** Record types of `records`, with 't' for a tombstone (e.g. '5', '8t'). */
function types(records: readonly CoordinatorRecord[]): string[] {
  return records.map((r) => {
    const k = decodeCoordinatorKey(r.key);
    const type = k.kind === 'consumer-group' ? k.type : k.kind;
    return `${type}${r.value === null ? 't' : ''}`;
  });
}

function describeAll(h: CoordinatorHarness, groups: string[]): unknown {
  return h.send('ConsumerGroupDescribe', 0, { groupIds: groups, includeAuthorizedOperations: false }).answer;
}

/** A harness whose coordinator replays `records` (all of them, or the last per key). */
function replayed(h: CoordinatorHarness, records: readonly CoordinatorRecord[]): CoordinatorHarness {
  const fresh = new CoordinatorHarness(new GroupCoordinator(testConfig()), h.nowMs);
  fresh.setTopics(Object.fromEntries(h.topics.map((t) => [t.name, { partitions: t.numPartitions, topicId: t.topicId }])));
  for (const r of records) fresh.coordinator.replay(r);
  fresh.log.push(...records);
  fresh.apply(fresh.coordinator.loaded(h.nowMs));
  return fresh;
}

/** What start-up replays after compaction-like reduction: the last record of each key (offsets-replay.ts). */
function lastPerKey(records: readonly CoordinatorRecord[]): CoordinatorRecord[] {
  const latest = new LatestRecordPerKey();
  for (const r of records) latest.add(r.key, 0, r.key.length, r.value ?? r.key, 0, r.value === null ? -1 : r.value.length);
  return latest.toReplay();
}

describe('coordinator: consumer-group records', { timeout: 20_000 }, () => {
  it('a first join writes member metadata, subscription metadata, group epoch, target, assignment epoch and current assignment, in Kafka\'s order', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2 });
    cgJoin(h, { memberId: 'A' });
    assert.deepEqual(types(h.log), ['5', '4', '3', '7', '6', '8']);
    const before = h.log.length;
    cgBeat(h, 'A', 2, { t: [0, 1] });
    assert.deepEqual(types(h.log.slice(before)), [], 'a heartbeat that changes nothing writes nothing');
  });

  it('a leave writes the member\'s tombstones (current assignment, target, metadata), then the new subscription metadata and epoch', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 2, u: 1 });
    cgJoin(h, { memberId: 'A' });
    cgJoin(h, { memberId: 'B', topics: ['u'] });
    const before = h.log.length;
    cgHeartbeat(h, { memberId: 'B', epoch: -1 });
    assert.deepEqual(types(h.log.slice(before)), ['8t', '7t', '5t', '4', '3']);
  });

  it('DeleteGroups of an Empty consumer group writes tombstones for its offsets and every record of the group (testConsumerGroupDelete)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    cgJoin(h, { memberId: 'A' });
    h.send('OffsetCommit', 9, { groupId: 'g', generationIdOrMemberEpoch: 2, memberId: 'A', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
    assert.equal(h.send('DeleteGroups', 2, { groupsNames: ['g'] }).answer.results[0]!.errorCode, 68, 'NON_EMPTY_GROUP while A is there');
    cgHeartbeat(h, { memberId: 'A', epoch: -1 });
    const before = h.log.length;
    assert.equal(h.send('DeleteGroups', 2, { groupsNames: ['g'] }).answer.results[0]!.errorCode, 0);
    assert.deepEqual(types(h.log.slice(before)), ['offset-committ', '6t', '4t', '3t']);
    assert.equal(cgDescribe(h).errorCode, 69, 'GROUP_ID_NOT_FOUND');
    assert.equal(replayed(h, h.log).coordinator.groupIds().length, 0);
  });

  it('a fresh coordinator replaying the log describes every group as the live one did, and goes on from there', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 3, 'r-a': 2, u: 1 });
    // g: three members through joins, reconciliation, a static leave, a leave.
    cgJoin(h, { memberId: 'A' });
    cgJoin(h, { memberId: 'B', instanceId: 'ib' });
    cgJoin(h, { memberId: 'C', topics: ['t', 'u'], assignor: 'range' });
    for (let i = 0; i < 3; i++) {
      for (const [id, a] of Object.entries(assignments(h))) cgHeartbeat(h, { memberId: id, instanceId: id === 'B' ? 'ib' : null, epoch: a.epoch, owned: a.current });
    }
    cgHeartbeat(h, { memberId: 'B', instanceId: 'ib', epoch: -2 });
    cgHeartbeat(h, { memberId: 'C', epoch: -1 });
    // rx: a regex subscription; mid: a member left owing a revocation (UNREVOKED).
    cgJoin(h, { group: 'rx', memberId: 'R', regex: 'r-.*' });
    h.advance(0);
    cgBeat(h, 'R', 1, {}, 'rx');
    cgJoin(h, { group: 'mid', memberId: 'M1' });
    cgJoin(h, { group: 'mid', memberId: 'M2' });
    cgBeat(h, 'M1', 2, { t: [0, 1, 2] }, 'mid');
    const groups = ['g', 'rx', 'mid'];
    const live = describeAll(h, groups);

    for (const [what, records] of [['every record', h.log], ['the last record of each key', lastPerKey(h.log)]] as const) {
      const again = replayed(h, records);
      assert.deepEqual(describeAll(again, groups), live, what);
      // Timers are armed as Kafka's onLoaded does: sessions, and the revocation M1 owes.
      assert.ok(again.timers.has('consumer-session:g:A') && again.timers.has('consumer-session:mid:M1'), what);
      assert.ok(again.timers.has('consumer-rebalance:mid:M1'), what);
      // Both go on the same way.
      const a = assignments(h)['A']!;
      const next = (x: CoordinatorHarness): unknown => cgBeat(x, 'A', a.epoch, a.current);
      assert.deepEqual(next(again), next(replayed(h, h.log)), what);
    }
  });

  it('replay after a run of random operations gives the live groups, all records or the last of each key', () => {
    let seed = 848;
    const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4, u: 3, v: 2 });
    const ids = ['A', 'B', 'C', 'D', 'E'];
    const groups = ['g1', 'g2'];
    for (let step = 0; step < 300; step++) {
      const group = groups[Math.floor(random() * groups.length)]!;
      const id = ids[Math.floor(random() * ids.length)]!;
      const member = assignments(h, group)[id];
      const r = random();
      if (member === undefined) {
        const topics = ['t', 'u', 'v'].filter(() => random() < 0.6);
        cgJoin(h, { group, memberId: id, topics, assignor: random() < 0.3 ? 'range' : null });
      } else if (r < 0.08) {
        cgHeartbeat(h, { group, memberId: id, epoch: -1 });
      } else if (r < 0.15) {
        cgHeartbeat(h, { group, memberId: id, epoch: member.epoch, topics: ['t', 'u', 'v'].filter(() => random() < 0.6), owned: member.current });
      } else if (r < 0.2) {
        h.advance(20_000);
      } else {
        cgHeartbeat(h, { group, memberId: id, epoch: member.epoch, owned: member.current });
      }
      if (step % 50 === 49) {
        const live = describeAll(h, groups);
        assert.deepEqual(describeAll(replayed(h, h.log), groups), live, `step ${step}: every record`);
        assert.deepEqual(describeAll(replayed(h, lastPerKey(h.log)), groups), live, `step ${step}: last record per key`);
      }
    }
  });
});
