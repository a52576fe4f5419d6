/**
 * TxnOffsetCommit in the group coordinator, against Kafka 4.4's OffsetMetadataManager: offsets
 * stay pending per producer until the transaction's marker, OffsetFetch with requireStable
 * answers UNSTABLE_OFFSET_COMMIT meanwhile (without it, the last committed offset), COMMIT
 * publishes and ABORT drops them, replay rebuilds pending offsets, and the member checks of
 * validateTransactionalOffsetCommit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CoordinatorHarness } from '../support/coordinator/harness.js';
import { commit, formGroup } from '../support/coordinator/requests.js';

const G = 'g';

function txnCommit(h: CoordinatorHarness, producerId: bigint, offsets: Record<number, number>, member: { generationId?: number; memberId?: string } = {}): number[] {
  const r = h.send('TxnOffsetCommit', 4, {
    transactionalId: 'tx', groupId: G, producerId, producerEpoch: 0,
    generationIdOrMemberEpoch: member.generationId ?? -1, memberId: member.memberId ?? '', groupInstanceId: null,
    topics: [{ name: 'orders', partitions: Object.entries(offsets).map(([p, o]) => ({ partitionIndex: Number(p), committedOffset: BigInt(o), committedLeaderEpoch: -1, committedMetadata: '' })) }],
  });
  return r.answer.topics.flatMap((t) => t.partitions.map((p) => p.errorCode));
}

function fetch(h: CoordinatorHarness, requireStable: boolean): { offset: number; error: number }[] {
  const r = h.send('OffsetFetch', 9, { groups: [{ groupId: G, memberId: null, memberEpoch: -1, topics: [{ name: 'orders', partitionIndexes: [0, 1] }] }], requireStable });
  return r.answer.groups![0]!.topics[0]!.partitions.map((p) => ({ offset: Number(p.committedOffset), error: p.errorCode }));
}

describe('coordinator: TxnOffsetCommit', () => {
  it('keeps offsets pending until COMMIT, answering UNSTABLE_OFFSET_COMMIT to stable fetches', () => {
    const h = new CoordinatorHarness();
    commit(h, { group: G, generationId: -1, memberId: '', offsets: { orders: { 0: 5 } } });
    const before = h.log.length;
    assert.deepEqual(txnCommit(h, 42n, { 0: 10, 1: 20 }), [ErrorCode.NONE, ErrorCode.NONE]);
    const written = h.log.slice(before);
    assert.equal(written.length, 2);
    assert.ok(written.every((r) => r.producerId === 42n && r.producerEpoch === 0), 'written inside the transaction');
    assert.deepEqual(fetch(h, true), [{ offset: -1, error: ErrorCode.UNSTABLE_OFFSET_COMMIT }, { offset: -1, error: ErrorCode.UNSTABLE_OFFSET_COMMIT }]);
    assert.deepEqual(fetch(h, false), [{ offset: 5, error: 0 }, { offset: -1, error: 0 }]);
    h.apply(h.coordinator.completeTransaction(42n, true, h.nowMs));
    assert.deepEqual(fetch(h, true), [{ offset: 10, error: 0 }, { offset: 20, error: 0 }]);
  });

  it('drops the pending offsets on ABORT', () => {
    const h = new CoordinatorHarness();
    commit(h, { group: G, generationId: -1, memberId: '', offsets: { orders: { 0: 5 } } });
    txnCommit(h, 7n, { 0: 10 });
    h.apply(h.coordinator.completeTransaction(7n, false, h.nowMs));
    assert.deepEqual(fetch(h, true), [{ offset: 5, error: 0 }, { offset: -1, error: 0 }]);
  });

  it('replays records of an open transaction as pending, completed by the marker met later', () => {
    const h = new CoordinatorHarness();
    txnCommit(h, 9n, { 1: 30 });
    const restarted = h.restart();
    assert.deepEqual(fetch(restarted, true)[1], { offset: -1, error: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    restarted.coordinator.replayEndTransactionMarker(9n, true);
    assert.deepEqual(fetch(restarted, true)[1], { offset: 30, error: 0 });
  });

  it('checks the member and generation when given, as Kafka', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1);
    assert.deepEqual(txnCommit(h, 1n, { 0: 1 }), [ErrorCode.NONE], 'no member fields: accepted in a live group');
    assert.deepEqual(txnCommit(h, 1n, { 0: 1 }, { generationId: g.generationId, memberId: g.members[0] }), [ErrorCode.NONE]);
    assert.deepEqual(txnCommit(h, 1n, { 0: 1 }, { generationId: g.generationId + 1, memberId: g.members[0] }), [ErrorCode.ILLEGAL_GENERATION]);
    assert.deepEqual(txnCommit(h, 1n, { 0: 1 }, { generationId: g.generationId, memberId: 'nobody' }), [ErrorCode.UNKNOWN_MEMBER_ID]);
    const fresh = new CoordinatorHarness();
    assert.deepEqual(txnCommit(fresh, 1n, { 0: 1 }, { generationId: 3, memberId: 'm' }), [ErrorCode.ILLEGAL_GENERATION], 'unknown group with a generation');
  });
});
