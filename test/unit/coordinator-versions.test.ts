/**
 * Every reply at every version of its API: the harness encodes each reply with the
 * generated codec at the request's version (a field the version cannot carry throws), so
 * these flows prove the bodies are valid from version 0 to the highest.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Api } from '../../src/protocol/messages/index.js';
import { CoordinatorHarness, assignment, type GroupApi } from '../support/coordinator/harness.js';
import { commit, fetchOffsets, heartbeat, join, leave, sync } from '../support/coordinator/requests.js';

const range = (api: GroupApi) => {
  const codec = Api[api].response;
  return Array.from({ length: codec.highestVersion - codec.lowestVersion + 1 }, (_, i) => codec.lowestVersion + i);
};

/** Two members join at `version` (v4+: with MEMBER_ID_REQUIRED first); returns the answers. */
function joinTwo(h: CoordinatorHarness, group: string, version: number) {
  const joinOne = (clientId: string) => {
    let j = join(h, { group, clientId, version });
    if (version >= 4) j = join(h, { group, clientId, version, memberId: j.answer.memberId });
    return j;
  };
  const a = joinOne('a');
  const b = joinOne('b');
  h.advance(6000);
  return [a.answer, b.answer];
}

describe('coordinator: replies at every version', () => {
  const h = new CoordinatorHarness();

  it('JoinGroup v0-9: success, errors, protocol name "" before v7 and null from v7', () => {
    for (const v of range('JoinGroup')) {
      const [a, b] = joinTwo(h, `join-v${v}`, v);
      assert.equal(a.errorCode, ErrorCode.NONE, `v${v}`);
      assert.equal(a.members.length, 2);
      assert.equal(b.protocolName, 'range');
      assert.equal(a.protocolType, v >= 7 ? 'consumer' : null);
      const bad = join(h, { group: `join-v${v}`, sessionTimeoutMs: 1, version: v }).answer;
      assert.equal(bad.errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
      assert.equal(bad.protocolName, v >= 7 ? null : '');
      assert.equal(bad.generationId, -1);
      if (v >= 5) {
        const s = join(h, { group: `static-v${v}`, instanceId: 'i', version: v });
        h.advance(3000);
        assert.equal(s.answer.members[0].groupInstanceId, 'i');
        sync(h, { group: `static-v${v}`, generationId: s.answer.generationId, memberId: s.answer.memberId, instanceId: 'i' });
        const again = join(h, { group: `static-v${v}`, instanceId: 'i', version: v }).answer;
        assert.equal(again.skipAssignment, v >= 9);
      }
    }
  });

  it('SyncGroup v0-5: parked follower, leader, errors', () => {
    for (const v of range('SyncGroup')) {
      const [a, b] = joinTwo(h, `sync-v${v}`, 9);
      const f = sync(h, { group: `sync-v${v}`, generationId: b.generationId, memberId: b.memberId, version: v });
      assert.equal(f.response, undefined);
      sync(h, { group: `sync-v${v}`, generationId: a.generationId, memberId: a.memberId, version: v, assignments: { [b.memberId]: assignment({ t: [0] }) } });
      assert.ok(f.answer.assignment.equals(assignment({ t: [0] })));
      assert.equal(f.answer.protocolName, v >= 5 ? 'range' : null);
      assert.equal(sync(h, { group: `sync-v${v}`, generationId: 99, memberId: b.memberId, version: v }).answer.errorCode, ErrorCode.ILLEGAL_GENERATION);
    }
  });

  it('Heartbeat v0-4 and LeaveGroup v0-5', () => {
    for (const v of range('Heartbeat')) {
      const [a] = joinTwo(h, `hb-v${v}`, 9);
      assert.equal(heartbeat(h, { group: `hb-v${v}`, generationId: a.generationId, memberId: a.memberId, version: v }).answer.errorCode, ErrorCode.NONE);
      assert.equal(heartbeat(h, { group: `hb-v${v}`, generationId: 0, memberId: a.memberId, version: v }).answer.errorCode, ErrorCode.ILLEGAL_GENERATION);
    }
    for (const v of range('LeaveGroup')) {
      const [a, b] = joinTwo(h, `leave-v${v}`, 9);
      assert.equal(leave(h, { group: `leave-v${v}`, members: [{ memberId: a.memberId }], version: v }).answer.errorCode, ErrorCode.NONE);
      assert.equal(leave(h, { group: `leave-v${v}`, members: [{ memberId: 'x' }], version: v }).answer.errorCode, v >= 3 ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID);
      leave(h, { group: `leave-v${v}`, members: [{ memberId: b.memberId }], version: v });
    }
  });

  it('OffsetCommit v2-10 and OffsetFetch v1-10', () => {
    for (const v of range('OffsetCommit')) {
      assert.equal(commit(h, { group: `oc-v${v}`, offsets: { t: { 0: v } }, version: v }).answer.topics[0].partitions[0].errorCode, ErrorCode.NONE);
      const [a] = joinTwo(h, `oc-live-v${v}`, 9);
      const rejected = commit(h, { group: `oc-live-v${v}`, offsets: { t: { 0: 1 } }, version: v, generationId: a.generationId, memberId: a.memberId });
      assert.equal(rejected.answer.topics[0].partitions[0].errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
    }
    for (const v of range('OffsetFetch')) {
      const named = fetchOffsets(h, { group: 'oc-v5', topics: { t: [0, 1] }, version: v }).answer;
      assert.deepEqual((named.groups?.length ? named.groups[0].topics : named.topics!)[0].partitions.map((p) => p.committedOffset), [5n, -1n]);
      if (v >= 2) fetchOffsets(h, { group: 'oc-v5', topics: null, version: v });
    }
  });

  it('DescribeGroups v0-6, ListGroups v0-5, DeleteGroups v0-3, OffsetDelete v0, FindCoordinator v0-6', () => {
    const s = join(h, { group: 'described', instanceId: 'i' });
    h.advance(3000);
    sync(h, { group: 'described', generationId: 1, memberId: s.answer.memberId, instanceId: 'i' });
    joinTwo(h, 'described-too', 9);
    for (const v of range('DescribeGroups')) {
      const groups = h.send('DescribeGroups', v, { groups: ['described-too', 'sync-v5', 'described', 'ghost'], includeAuthorizedOperations: v >= 3 }).answer.groups;
      assert.equal(groups.length, 4);
      assert.equal(groups[2].members[0].groupInstanceId, v >= 4 ? 'i' : null);
    }
    for (const v of range('ListGroups')) h.send('ListGroups', v, { statesFilter: v >= 4 ? ['Stable'] : [], typesFilter: v >= 5 ? ['classic'] : [] });
    for (const v of range('DeleteGroups')) {
      // The simple groups OffsetCommit v2-5 left behind, one each.
      const r = h.send('DeleteGroups', v, { groupsNames: [`oc-v${v + 2}`, 'described-too', 'ghost'] }).answer.results.map((x) => x.errorCode);
      assert.deepEqual(r, [ErrorCode.NONE, ErrorCode.NON_EMPTY_GROUP, ErrorCode.GROUP_ID_NOT_FOUND]);
    }
    h.send('OffsetDelete', 0, { groupId: 'oc-v9', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] });
    h.send('OffsetDelete', 0, { groupId: 'ghost', topics: [] });
    for (const v of range('FindCoordinator')) {
      h.send('FindCoordinator', v, v >= 4 ? { keyType: 0, coordinatorKeys: ['g'] } : { key: 'g', keyType: 0 });
      h.send('FindCoordinator', v, v >= 4 ? { keyType: 9, coordinatorKeys: ['g'] } : { key: 'g', keyType: v >= 1 ? 9 : 0 });
    }
  });

  it('covered every version of every API', () => {
    for (const api of ['JoinGroup', 'SyncGroup', 'Heartbeat', 'LeaveGroup', 'OffsetCommit', 'OffsetFetch', 'DescribeGroups', 'ListGroups', 'DeleteGroups', 'OffsetDelete', 'FindCoordinator'] as const) {
      assert.deepEqual([...(h.encodedVersions.get(api) ?? [])].sort((x, y) => x - y), range(api), api);
    }
    assert.deepEqual(h.parked(), [], 'nothing left unanswered');
  });
});
