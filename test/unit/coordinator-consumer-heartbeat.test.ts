import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CoordinatorHarness } from '../support/coordinator/harness.js';
import { assignments, cgBeat, cgDescribe, cgHeartbeat, cgJoin, named } from '../support/coordinator/consumer.js';

describe('coordinator: ConsumerGroupHeartbeat joins and reconciliation', { timeout: 10_000 }, () => {
  it('a first member gets every partition at group epoch 1 (GroupMetadataManagerTest.testMemberJoinsEmptyConsumerGroup)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4 });
    const r = cgJoin(h, { memberId: 'A' });
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(r.memberId, 'A');
    assert.equal(r.memberEpoch, 1);
    assert.equal(r.heartbeatIntervalMs, 5000);
    assert.deepEqual(named(h, r.assignment?.topicPartitions), { t: [0, 1, 2, 3] });
    const d = cgDescribe(h);
    assert.equal(d.groupState, 'Stable');
    assert.equal(d.groupEpoch, 1);
    assert.equal(d.assignmentEpoch, 1);
    assert.equal(d.assignorName, 'uniform');
  });

  it('a second member waits for the partitions the first revokes (testReconciliationProcess)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 4 });
    cgJoin(h, { memberId: 'A' });
    const b = cgJoin(h, { memberId: 'B' });
    assert.equal(b.memberEpoch, 2);
    assert.deepEqual(named(h, b.assignment?.topicPartitions), {});
    let a = cgBeat(h, 'A', 1, { t: [0, 1, 2, 3] });
    assert.equal(a.memberEpoch, 1, 'A stays at epoch 1 until it revokes');
    const kept = named(h, a.assignment?.topicPartitions)!.t!;
    assert.equal(kept.length, 2);
    assert.equal(cgDescribe(h).groupState, 'Reconciling');
    a = cgBeat(h, 'A', 1, { t: kept });
    assert.equal(a.memberEpoch, 2);
    assert.equal(a.assignment, null, 'unchanged assignment is not sent again');
    const b2 = cgBeat(h, 'B', 2, {});
    assert.deepEqual(named(h, b2.assignment?.topicPartitions), { t: [0, 1, 2, 3].filter((p) => !kept.includes(p)) });
    assert.equal(cgDescribe(h).groupState, 'Stable');
    const all = assignments(h);
    assert.deepEqual(all['A']!.current, all['A']!.target);
    assert.deepEqual(all['B']!.current, all['B']!.target);
  });

  it('version 0 lets the coordinator choose the member id; version 1 requires one (KIP-1082)', () => {
    const h = new CoordinatorHarness();
    h.setTopics({ t: 1 });
    const v0 = cgHeartbeat(h, { memberId: '', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {}, version: 0 }).answer;
    assert.equal(v0.errorCode, ErrorCode.NONE);
    assert.equal(v0.memberId, 'uuid-1');
    const v1 = cgHeartbeat(h, { memberId: '', epoch: 0, rebalanceTimeoutMs: 1000, topics: ['t'], owned: {}, version: 1 }).answer;
    assert.equal(v1.errorCode, ErrorCode.INVALID_REQUEST);
  });
});
