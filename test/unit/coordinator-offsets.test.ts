import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeCoordinatorKey, decodeOffsetCommitValue } from '../../src/protocol/coordinator-records/framing.js';
import { CoordinatorHarness, topicIdFor } from '../support/coordinator/harness.js';
import { awaitJoins, commit, fetchedOffsets, fetchOffsets, formGroup, heartbeat, join, joinNew, type CommitOptions } from '../support/coordinator/requests.js';

const G = 'g';

function commitError(h: CoordinatorHarness, o: CommitOptions): number {
  const codes = commit(h, o).answer.topics.flatMap((t) => t.partitions.map((p) => p.errorCode));
  assert.ok(codes.every((c) => c === codes[0]), 'one error for the whole request');
  return codes[0];
}

describe('coordinator: OffsetCommit by group members', () => {
  it('accepts the current generation in Stable and writes one record per partition', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const before = h.log.length;
    const r = commit(h, { group: G, generationId: g.generationId, memberId: g.members[1], offsets: { orders: { 0: 10, 1: 20 } }, metadata: 'm', leaderEpoch: 3 });
    // The broker resolves the topic's id for the coordinator at every version.
    assert.deepEqual(r.answer.topics, [{ name: 'orders', topicId: topicIdFor('orders'), partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 1, errorCode: 0 }] }]);
    const records = h.log.slice(before);
    assert.equal(records.length, 2);
    const key = decodeCoordinatorKey(records[1].key);
    assert.deepEqual(key.kind === 'offset-commit' ? key.key : null, { group: G, topic: 'orders', partition: 1 });
    const value = decodeOffsetCommitValue(records[1].value!);
    assert.equal(value.offset, 20n);
    assert.equal(value.metadata, 'm');
    assert.equal(value.leaderEpoch, 3);
    assert.equal(Number(value.commitTimestamp), h.nowMs);
  });

  it('rejects with the error Kafka gives in each state', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    const m = { group: G, generationId: g.generationId, memberId: g.members[1], offsets: { orders: { 0: 1 } } };
    assert.equal(commitError(h, { ...m, generationId: g.generationId + 1 }), ErrorCode.ILLEGAL_GENERATION);
    assert.equal(commitError(h, { ...m, memberId: 'nobody' }), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(commitError(h, { ...m, generationId: -1 }), ErrorCode.ILLEGAL_GENERATION, 'a member with no generation');
    assert.equal(commitError(h, { ...m, memberId: '', generationId: -1 }), ErrorCode.UNKNOWN_MEMBER_ID, 'a simple commit into a live group');

    // PreparingRebalance: the previous generation may still commit (consumers commit before rejoining).
    join(h, { group: G, memberId: g.leader });
    assert.equal(h.coordinator.group(G)?.state, 'PreparingRebalance');
    assert.equal(commitError(h, m), ErrorCode.NONE);

    // CompletingRebalance: the member has the new generation but no assignment yet.
    const rejoin = join(h, { group: G, memberId: g.members[1] });
    assert.equal(h.coordinator.group(G)?.state, 'CompletingRebalance');
    assert.equal(commitError(h, { ...m, generationId: rejoin.answer.generationId }), ErrorCode.REBALANCE_IN_PROGRESS);
    assert.equal(commitError(h, m), ErrorCode.ILLEGAL_GENERATION);
  });

  it('a commit keeps the member session alive, like a heartbeat', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1);
    for (let i = 0; i < 10; i++) {
      h.advance(5000);
      commit(h, { group: G, generationId: g.generationId, memberId: g.members[0], offsets: { orders: { 0: i } } });
    }
    assert.equal(h.coordinator.group(G)?.state, 'Stable');
    assert.equal(heartbeat(h, { group: G, generationId: g.generationId, memberId: g.members[0] }).answer.errorCode, ErrorCode.NONE);
  });

  it('checks offsets.metadata.max.bytes per partition', () => {
    const h = new CoordinatorHarness();
    const ok = commit(h, { group: G, offsets: { t: { 0: 1 } }, metadata: 'x'.repeat(4096) });
    assert.equal(ok.answer.topics[0].partitions[0].errorCode, ErrorCode.NONE);
    const tooLarge = commit(h, { group: G, offsets: { t: { 0: 2, 1: 3 } }, metadata: 'x'.repeat(4097) });
    assert.deepEqual(tooLarge.answer.topics[0].partitions.map((p) => p.errorCode), [ErrorCode.OFFSET_METADATA_TOO_LARGE, ErrorCode.OFFSET_METADATA_TOO_LARGE]);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: G, topics: null }).answer), { 't/0': 1 });
  });
});

describe('coordinator: simple (generation -1) commits', () => {
  it('create an Empty group without protocol type, and are accepted while it stays Empty', () => {
    const h = new CoordinatorHarness();
    assert.equal(commitError(h, { group: 'standalone', offsets: { t: { 0: 5 } } }), ErrorCode.NONE);
    const snap = h.coordinator.group('standalone')!;
    assert.equal(snap.state, 'Empty');
    assert.equal(snap.protocolType, null);
    assert.equal(commitError(h, { group: 'standalone', offsets: { t: { 0: 6 } }, version: 2 }), ErrorCode.NONE);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: 'standalone', topics: { t: [0] } }).answer), { 't/0': 6 });
  });

  it('into an Empty group that had members', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1);
    h.advance(10_000); // the member's session expires
    assert.equal(h.coordinator.group(G)?.state, 'Empty');
    assert.equal(commitError(h, { group: G, offsets: { orders: { 0: 7 } } }), ErrorCode.NONE);
    // The expired member's own commits are refused: it is no longer known.
    assert.equal(commitError(h, { group: G, generationId: 1, memberId: g.members[0], offsets: { orders: { 0: 8 } } }), ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a member-style commit to an unknown group: GROUP_ID_NOT_FOUND from v9, ILLEGAL_GENERATION before', () => {
    const h = new CoordinatorHarness();
    assert.equal(commitError(h, { group: 'nope', generationId: 1, memberId: 'm', offsets: { t: { 0: 1 } } }), ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(commitError(h, { group: 'nope', generationId: 1, memberId: 'm', offsets: { t: { 0: 1 } }, version: 8 }), ErrorCode.ILLEGAL_GENERATION);
    assert.equal(h.coordinator.group('nope'), undefined);
  });

  it('retention time (v2-4) sets an expire timestamp', () => {
    const h = new CoordinatorHarness();
    commit(h, { group: 'old', offsets: { t: { 0: 1 } }, version: 2, retentionTimeMs: 60_000n });
    const value = decodeOffsetCommitValue(h.log[h.log.length - 1].value!);
    assert.equal(value.expireTimestamp, BigInt(h.nowMs + 60_000));
  });
});

describe('coordinator: OffsetFetch', () => {
  function withOffsets(): CoordinatorHarness {
    const h = new CoordinatorHarness();
    commit(h, { group: 'a', offsets: { t1: { 0: 10, 1: 11 }, t2: { 0: 20 } }, metadata: 'meta', leaderEpoch: 4 });
    commit(h, { group: 'b', offsets: { t1: { 0: 30 } } });
    return h;
  }

  it('v1-7: named partitions, -1 for those without an offset', () => {
    const h = withOffsets();
    for (const version of [1, 3, 5, 7]) {
      const r = fetchOffsets(h, { group: 'a', topics: { t1: [0, 5], t9: [0] }, version }).answer;
      assert.deepEqual(fetchedOffsets(r), { 't1/0': 10, 't1/5': -1, 't9/0': -1 }, `v${version}`);
      const p = r.topics![0].partitions[0];
      assert.equal(p.metadata, 'meta');
      assert.equal(p.committedLeaderEpoch, version >= 5 ? 4 : -1);
      assert.equal(r.topics![0].partitions[1].metadata, '');
    }
  });

  it('v2+: null topics means every committed partition of the group', () => {
    const h = withOffsets();
    for (const version of [2, 7, 8, 9, 10]) {
      const r = fetchOffsets(h, { group: 'a', topics: null, version }).answer;
      assert.deepEqual(fetchedOffsets(r), { 't1/0': 10, 't1/1': 11, 't2/0': 20 }, `v${version}`);
    }
  });

  it('v10 by topic id: an offset committed under another id of the same name (a re-created topic) is not seen, as Kafka 4.4\'s isOffsetInvalid; by name it is', () => {
    const h = withOffsets();
    const fetchBy = (version: number, topicId: string | undefined): bigint[] => {
      const r = h.send('OffsetFetch', version, { groups: [{ groupId: 'a', memberId: null, memberEpoch: -1, topics: [{ name: 't1', topicId, partitionIndexes: [0, 1] }] }], requireStable: false }).answer;
      return r.groups![0]!.topics[0]!.partitions.map((p) => p.committedOffset);
    };
    assert.deepEqual(fetchBy(10, topicIdFor('t1')), [10n, 11n], 'the id it was committed under');
    assert.deepEqual(fetchBy(10, 'AAAAAAAAAAAAAAAAAAAAAQ'), [-1n, -1n], 'another topic of that name');
    assert.deepEqual(fetchBy(9, undefined), [10n, 11n], 'by name');
  });

  it('an unknown group has no offsets, without an error', () => {
    const h = withOffsets();
    const named = fetchOffsets(h, { group: 'nobody', topics: { t1: [0] }, version: 7 }).answer;
    assert.equal(named.errorCode, ErrorCode.NONE);
    assert.deepEqual(fetchedOffsets(named), { 't1/0': -1 });
    assert.deepEqual(fetchOffsets(h, { group: 'nobody', topics: null }).answer.groups![0].topics, []);
  });

  it('v8+: several groups in one request, each with its own topics or all of them', () => {
    const h = withOffsets();
    const r = h.send('OffsetFetch', 8, {
      groups: [
        { groupId: 'a', topics: [{ name: 't2', partitionIndexes: [0] }] },
        { groupId: 'b', topics: null },
        { groupId: 'c', topics: null },
      ],
      requireStable: true,
    }).answer;
    assert.deepEqual(r.groups!.map((g) => [g.groupId, g.errorCode, fetchedOffsets({ groups: [g] })]), [
      ['a', 0, { 't2/0': 20 }],
      ['b', 0, { 't1/0': 30 }],
      ['c', 0, {}],
    ]);
  });

  it('serves committed offsets of a live group to anyone', () => {
    const h = new CoordinatorHarness();
    const [a] = awaitJoins(h, [joinNew(h, { group: G })]);
    assert.equal(commitError(h, { group: G, generationId: a.generationId, memberId: a.memberId, offsets: { orders: { 0: 1 } } }), ErrorCode.REBALANCE_IN_PROGRESS);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: G, topics: { orders: [0] } }).answer), { 'orders/0': -1 });
  });
});
