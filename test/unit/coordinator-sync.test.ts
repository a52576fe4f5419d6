import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeCoordinatorKey, decodeGroupMetadataValue } from '../../src/protocol/coordinator-records/framing.js';
import { CoordinatorHarness, assignment } from '../support/coordinator/harness.js';
import { awaitJoins, formGroup, heartbeat, join, joinNew, sync } from '../support/coordinator/requests.js';

const G = 'g';

/** Two members through the join phase: the group is CompletingRebalance. */
function joined(h: CoordinatorHarness) {
  const [a, b] = awaitJoins(h, [joinNew(h, { group: G, clientId: 'a' }), joinNew(h, { group: G, clientId: 'b' })]);
  assert.equal(h.coordinator.group(G)?.state, 'CompletingRebalance');
  return { leader: a.memberId, follower: b.memberId, generationId: a.generationId };
}

describe('coordinator: SyncGroup', () => {
  it('a follower that syncs before the leader waits; the leader brings everyone their own assignment', () => {
    const h = new CoordinatorHarness();
    const { leader, follower, generationId } = joined(h);
    const f = sync(h, { group: G, generationId, memberId: follower });
    assert.equal(f.response, undefined, 'parked until the leader syncs');
    const recordsBefore = h.log.length;
    const l = sync(h, {
      group: G,
      generationId,
      memberId: leader,
      assignments: { [leader]: assignment({ orders: [0] }), [follower]: assignment({ orders: [1] }) },
    });
    assert.ok(l.answer.assignment.equals(assignment({ orders: [0] })));
    assert.ok(f.answer.assignment.equals(assignment({ orders: [1] })));
    assert.equal(f.answer.protocolType, 'consumer');
    assert.equal(f.answer.protocolName, 'range');
    assert.equal(h.coordinator.group(G)?.state, 'Stable');

    // The leader's SyncGroup writes the generation: members, subscriptions, assignments.
    assert.equal(h.log.length, recordsBefore + 1);
    const record = h.log[h.log.length - 1];
    const key = decodeCoordinatorKey(record.key);
    assert.equal(key.kind, 'group-metadata');
    const value = decodeGroupMetadataValue(record.value!);
    assert.equal(value.generation, generationId);
    assert.equal(value.leader, leader);
    assert.equal(value.protocol, 'range');
    assert.deepEqual(value.members.map((m) => m.memberId), [leader, follower]);
    assert.ok(value.members[1].assignment.equals(assignment({ orders: [1] })));
  });

  it('members the leader left out get an empty assignment', () => {
    const h = new CoordinatorHarness();
    const { leader, follower, generationId } = joined(h);
    const f = sync(h, { group: G, generationId, memberId: follower });
    sync(h, { group: G, generationId, memberId: leader, assignments: { [leader]: assignment({ orders: [0, 1] }) } });
    assert.equal(f.answer.errorCode, ErrorCode.NONE);
    assert.equal(f.answer.assignment.length, 0);
  });

  it('a follower syncing after the leader gets its assignment at once', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 3);
    const again = sync(h, { group: G, generationId: g.generationId, memberId: g.members[2] });
    assert.ok(again.answer.assignment.equals(assignment({ orders: [2] })));
  });

  it('checks member, generation and (v5) protocol type and name', () => {
    const h = new CoordinatorHarness();
    const { leader, generationId } = joined(h);
    const err = (o: Partial<Parameters<typeof sync>[1]>) =>
      sync(h, { group: G, generationId, memberId: leader, ...o }).answer.errorCode;
    assert.equal(err({ memberId: 'nobody' }), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(err({ generationId: generationId + 1 }), ErrorCode.ILLEGAL_GENERATION);
    assert.equal(err({ protocolType: 'connect' }), ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal(err({ protocolName: 'roundrobin' }), ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    assert.equal(err({ protocolName: null }), ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'mandatory in v5');
    assert.equal(err({ group: 'nope' }), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(err({ group: '' }), ErrorCode.INVALID_GROUP_ID);
    // Before v5 the fields do not exist and nothing is checked.
    const v4 = sync(h, { group: G, generationId, memberId: leader, version: 4 });
    assert.equal(v4.answer.errorCode, ErrorCode.NONE, 'the leader completes the generation');
    assert.equal(v4.answer.protocolName, null, 'absent before v5');
  });

  it('answers REBALANCE_IN_PROGRESS while the group prepares a rebalance', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    join(h, { group: G, memberId: g.leader }); // forces a rebalance
    const s = sync(h, { group: G, generationId: g.generationId, memberId: g.members[1] });
    assert.equal(s.answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('a rebalance during CompletingRebalance answers the parked syncs with REBALANCE_IN_PROGRESS', () => {
    const h = new CoordinatorHarness();
    const { leader, follower, generationId } = joined(h);
    const f = sync(h, { group: G, generationId, memberId: follower });
    join(h, { group: G, memberId: leader, topics: ['other'] }); // changed metadata
    assert.equal(f.answer.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    assert.equal(f.answer.assignment.length, 0);
    assert.equal(f.answer.protocolName, null);
  });

  it('members that never sync are removed when the rebalance timeout passes, and the group rebalances', () => {
    const h = new CoordinatorHarness();
    const { leader, follower, generationId } = joined(h);
    // The leader syncs; the follower keeps its session alive with heartbeats but never syncs.
    sync(h, { group: G, generationId, memberId: leader, assignments: {} });
    for (let t = 0; t < 30_000; t += 3000) {
      h.advance(3000);
      if (h.coordinator.group(G)?.members.length === 2) {
        heartbeat(h, { group: G, generationId, memberId: follower });
        heartbeat(h, { group: G, generationId, memberId: leader });
      }
    }
    const snapshot = h.coordinator.group(G)!;
    assert.deepEqual(snapshot.members.map((m) => m.memberId), [leader]);
    assert.equal(snapshot.state, 'PreparingRebalance');
  });
});
