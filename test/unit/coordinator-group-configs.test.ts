/**
 * A group's own configs in the group coordinator (Kafka's GroupConfig): its session timeout
 * decides when a silent member is fenced, its heartbeat interval is what members are told,
 * each in place of the broker's; other groups keep the broker's. The coordinator looks them
 * up (a pure lookup given at construction) whenever it schedules a session or answers a
 * heartbeat, so a change counts from the member's next heartbeat, as in Kafka.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupCoordinator } from '../../src/coordinator/coordinator.js';
import type { GroupOverrides } from '../../src/coordinator/types.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { cgBeat, cgDescribe, cgJoin } from '../support/coordinator/consumer.js';
import { sgBeat, sgDescribe, sgJoin } from '../support/coordinator/share.js';

function harness(overrides: Map<string, GroupOverrides>): CoordinatorHarness {
  const h = new CoordinatorHarness(new GroupCoordinator(testConfig({ groupOverrides: (groupId) => overrides.get(groupId) ?? {} })));
  h.setTopics({ t: 2 });
  return h;
}

const consumers = (h: CoordinatorHarness, group: string): string[] => cgDescribe(h, group).members.map((m) => m.memberId);

describe('coordinator: per-group configs', { timeout: 10_000 }, () => {
  it('consumer.session.timeout.ms and consumer.heartbeat.interval.ms of one group: fencing and the heartbeat interval follow them', () => {
    const overrides = new Map<string, GroupOverrides>();
    const h = harness(overrides);
    const a = cgJoin(h, { memberId: 'member-a', group: 'g' });
    const b = cgJoin(h, { memberId: 'member-b', group: 'other' });
    assert.deepEqual([a.heartbeatIntervalMs, b.heartbeatIntervalMs], [5000, 5000]);

    // Set for g (as IncrementalAlterConfigs would): the next heartbeat is told the new interval, and its session runs 60 s.
    overrides.set('g', { consumerSessionTimeoutMs: 60_000, consumerHeartbeatIntervalMs: 8000 });
    assert.equal(cgBeat(h, 'member-a', a.memberEpoch, null, 'g').heartbeatIntervalMs, 8000);
    assert.equal(cgBeat(h, 'member-b', b.memberEpoch, null, 'other').heartbeatIntervalMs, 5000);
    h.advance(45_001);
    assert.deepEqual(consumers(h, 'g'), ['member-a'], 'g keeps its member past the broker\'s 45 s');
    assert.deepEqual(consumers(h, 'other'), [], 'the other group\'s member is fenced after the broker\'s 45 s');
    h.advance(15_000);
    assert.deepEqual(consumers(h, 'g'), [], 'fenced after the group\'s 60 s');

    // Deleted again: the broker's values.
    overrides.delete('g');
    const again = cgJoin(h, { memberId: 'member-c', group: 'g' });
    assert.equal(again.heartbeatIntervalMs, 5000);
    h.advance(45_001);
    assert.deepEqual(consumers(h, 'g'), []);
  });

  it('share.session.timeout.ms and share.heartbeat.interval.ms of a share group', () => {
    const overrides = new Map<string, GroupOverrides>([['sg', { shareSessionTimeoutMs: 50_000, shareHeartbeatIntervalMs: 6000 }]]);
    const h = harness(overrides);
    const a = sgJoin(h, 'member-a', ['t'], 'sg');
    const b = sgJoin(h, 'member-b', ['t'], 'sg-other');
    assert.deepEqual([a.heartbeatIntervalMs, b.heartbeatIntervalMs], [6000, 5000]);
    h.advance(45_001);
    assert.deepEqual(sgDescribe(h, 'sg').members.map((m) => m.memberId), ['member-a']);
    assert.deepEqual(sgDescribe(h, 'sg-other').members, []);
    assert.equal(sgBeat(h, 'member-a', a.memberEpoch, 'sg').heartbeatIntervalMs, 6000);
    h.advance(50_001);
    assert.deepEqual(sgDescribe(h, 'sg').members, []);
  });
});
