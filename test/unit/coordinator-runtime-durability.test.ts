/**
 * The coordinator runtime's durability ordering: a reply is released only once every
 * earlier `__consumer_offsets` append is durable, and a failed append fails its commit
 * (and the results that came while it was pending) with Kafka's error for a storage
 * failure, NOT_COORDINATOR, and has the coordinator revert them. Driven by a memory storage
 * whose `__consumer_offsets` appends get a `durable` promise the test settles.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCoordinatorService } from '../../src/broker/group-coordinator-service.js';
import { appendErrorCode } from '../../src/broker/coordinator-runtime/append-errors.js';
import { brokerClock } from '../../src/broker/broker-context.js';
import { CoordinatorStateLostError } from '../../src/coordinator/index.js';
import { Journal } from '../../src/coordinator/journal.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Api } from '../../src/protocol/messages/index.js';
import type { OffsetCommitResponseData } from '../../src/protocol/messages/offset-commit.js';
import type { OffsetFetchResponseData } from '../../src/protocol/messages/offset-fetch.js';
import { StorageError } from '../../src/storage/index.js';
import { silentLogger } from '../../src/util/log.js';
import { gatedStorage, requestContext, settle } from '../support/coordinator/gated-storage.js';

/** The committed offset of t/0 in `groupId` (-1: none), by OffsetFetch v8 through `runtime`. */
function fetchOffsetOf(runtime: GroupCoordinatorService, groupId: string): Promise<number> {
  return runtime.submit<OffsetFetchResponseData>(
    requestContext(new AbortController().signal, Api.OffsetFetch.apiKey),
    (c, cctx) => c.offsetFetch(cctx, { groups: [{ groupId, memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0] }] }], requireStable: false }),
    (errorCode) => ({ throttleTimeMs: 0, topics: [], errorCode, groups: [] }),
  ).then((res) => Number(res.groups![0]!.topics[0]!.partitions[0]!.committedOffset));
}

function setup() {
  const { storage, gate } = gatedStorage();
  storage.createTopic('t', 1);
  const runtime = GroupCoordinatorService.start({ storage, clock: brokerClock({ nowMs: () => 1000 }), log: silentLogger, coordinator: {}, offsetsTopicSegmentBytes: 1 << 20 });
  const controller = new AbortController();
  const answered: string[] = [];
  const commit = (name: string, groupId: string, offset: bigint): Promise<number> =>
    runtime.submit<OffsetCommitResponseData>(
      requestContext(controller.signal),
      (c, cctx) => c.offsetCommit(cctx, {
        groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      }),
      (errorCode) => ({ throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode }] }] }),
    ).then((res) => {
      answered.push(name);
      return res.topics[0]!.partitions[0]!.errorCode;
    });
  const fetchOffset = (groupId: string): Promise<number> => fetchOffsetOf(runtime, groupId);
  /** OffsetFetch's group error code. */
  const fetchError = (groupId: string): Promise<number> =>
    runtime.submit<OffsetFetchResponseData>(
      requestContext(controller.signal, Api.OffsetFetch.apiKey),
      (c, cctx) => c.offsetFetch(cctx, { groups: [{ groupId, memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0] }] }], requireStable: false }),
      (errorCode) => ({ throttleTimeMs: 0, topics: [], errorCode, groups: [{ groupId, topics: [], errorCode }] }),
    ).then((res) => res.groups![0]!.errorCode);
  return { storage, gate, runtime, commit, fetchOffset, fetchError, answered };
}

describe('coordinator runtime durability', { timeout: 10_000 }, () => {
  it('releases a reply only after every earlier append is durable, in order', async () => {
    const { gate, runtime, commit, answered } = setup();
    gate.hold = true;
    // Commits of one turn share an append: a settle between them gives each its own.
    const a = commit('a', 'g1', 1n);
    await settle();
    const b = commit('b', 'g2', 2n);
    await settle();
    gate.hold = false;
    const c = commit('c', 'g3', 3n); // durable at once, behind a and b
    await settle();
    assert.deepEqual(answered, []);
    assert.equal(gate.pending.length, 2);
    gate.pending[1]!.resolve(); // b's fsync first: still behind a
    await settle();
    assert.deepEqual(answered, []);
    gate.pending[0]!.resolve();
    assert.deepEqual(await Promise.all([a, b, c]), [ErrorCode.NONE, ErrorCode.NONE, ErrorCode.NONE]);
    assert.deepEqual(answered, ['a', 'b', 'c']);
    await runtime.stop();
  });

  it('fails a commit whose append is not durable, and those issued while it was pending, with NOT_COORDINATOR', async () => {
    const { gate, runtime, commit, answered } = setup();
    gate.hold = true;
    const a = commit('a', 'g1', 1n);
    await settle();
    gate.hold = false;
    const b = commit('b', 'g2', 2n);
    await settle();
    assert.deepEqual(answered, []);
    gate.pending[0]!.reject(new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'fsync failed'));
    assert.deepEqual(await Promise.all([a, b]), [ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR]);
    // Once nothing is pending, a new commit does not inherit the old failure.
    assert.equal(await commit('c', 'g3', 3n), ErrorCode.NONE);
    await runtime.stop();
  });

  it('appends the commits of one turn as one batch, and fails them together', async () => {
    const { storage, gate, runtime, commit, answered } = setup();
    const before = storage.partition('__consumer_offsets', 0)?.logEndOffset ?? 0n;
    gate.hold = true;
    const a = commit('a', 'g1', 1n);
    const b = commit('b', 'g2', 2n);
    await settle();
    assert.equal(gate.pending.length, 1);
    const log = storage.partition('__consumer_offsets', 0)!;
    assert.equal(log.logEndOffset - before, 2n);
    assert.deepEqual(answered, []);
    gate.pending[0]!.reject(new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'fsync failed'));
    assert.deepEqual(await Promise.all([a, b]), [ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR]);
    await runtime.stop();
  });

  it('reverts commits whose append failed: OffsetFetch shows the offset committed before them', async () => {
    const { gate, runtime, commit, fetchOffset } = setup();
    assert.equal(await commit('a', 'g1', 1n), ErrorCode.NONE);
    gate.hold = true;
    const b = commit('b', 'g1', 2n);
    await settle();
    gate.hold = false;
    const c = commit('c', 'g1', 3n); // pipelined behind b: built on b's state
    await settle();
    gate.pending[0]!.reject(new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'fsync failed'));
    assert.deepEqual(await Promise.all([b, c]), [ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR]);
    assert.equal(await fetchOffset('g1'), 1);
    assert.equal(await fetchOffset('g2'), -1);
    await runtime.stop();
  });

  it('after a revert, results start afresh: they neither inherit the failure nor wait for appends already failed', async () => {
    const { gate, runtime, commit, fetchOffset, answered } = setup();
    gate.hold = true;
    const a = commit('a', 'g1', 1n);
    await settle();
    const b = commit('b', 'g1', 2n); // its own append, still pending when a's fails
    await settle();
    gate.pending[0]!.reject(new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'fsync failed'));
    assert.equal(await a, ErrorCode.NOT_COORDINATOR);
    gate.hold = false;
    // Built on the reverted (durable) state: answered although b's append is still pending.
    assert.equal(await commit('c', 'g1', 3n), ErrorCode.NONE);
    assert.equal(await fetchOffset('g1'), 3);
    assert.deepEqual(answered, ['a', 'c']);
    gate.pending[1]!.resolve();
    assert.equal(await b, ErrorCode.NOT_COORDINATOR, 'b was built on a');
    assert.equal(await fetchOffset('g1'), 3);
    await runtime.stop();
  });

  it('fails a commit whose append throws, and reverts it', async () => {
    const { storage, runtime, commit, fetchOffset } = setup();
    assert.equal(await commit('a', 'g1', 1n), ErrorCode.NONE);
    // A closed storage refuses the append with KAFKA_STORAGE_ERROR.
    await storage.close();
    assert.equal(await commit('b', 'g1', 2n), ErrorCode.NOT_COORDINATOR);
    assert.equal(await fetchOffset('g1'), 1);
    await runtime.stop();
  });

  it('a revert that throws unloads the coordinator: NOT_COORDINATOR until it is loaded again from the log', async () => {
    const { storage, gate, runtime, commit, fetchOffset, fetchError } = setup();
    assert.equal(await commit('a', 'g1', 1n), ErrorCode.NONE);
    gate.hold = true;
    const b = commit('b', 'g1', 2n);
    await settle();
    const c = commit('c', 'g2', 5n); // its own append, still pending when b's fails
    await settle();
    const first = runtime.coordinator;
    first.revert = () => {
      throw new Error('undo failed half-way');
    };
    gate.pending[0]!.reject(new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'fsync failed'));
    assert.deepEqual(await Promise.all([b, c]), [ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR]);
    // Unloaded until every append already issued (c's) has settled; then loaded again.
    assert.equal(await commit('d', 'g1', 9n), ErrorCode.NOT_COORDINATOR);
    assert.equal(await fetchError('g1'), ErrorCode.NOT_COORDINATOR);
    assert.equal(runtime.coordinator, first);
    gate.hold = false;
    gate.pending[1]!.resolve();
    for (let i = 0; i < 50 && runtime.coordinator === first; i++) await settle();
    assert.notEqual(runtime.coordinator, first, 'a new coordinator was loaded');
    // Memory is the log again. This test's gate only fakes the failed fsync: b's and c's
    // records are in the log, so the reloaded coordinator has them (and not d's).
    const fresh = GroupCoordinatorService.start({ storage, clock: brokerClock({ nowMs: () => 1000 }), log: silentLogger, coordinator: {}, offsetsTopicSegmentBytes: 1 << 20 });
    for (const group of ['g1', 'g2']) {
      assert.equal(await fetchOffset(group), await fetchOffsetOf(fresh, group), `${group} as a fresh load of the log has it`);
    }
    assert.equal(await fetchOffset('g1'), 2);
    assert.equal(await fetchOffset('g2'), 5);
    // And it serves.
    assert.equal(await commit('e', 'g1', 10n), ErrorCode.NONE);
    assert.equal(await fetchOffset('g1'), 10);
    await fresh.stop();
    await runtime.stop();
  });

  it('an operation whose undo throws unloads the coordinator and loads it again', async () => {
    const { runtime, commit, fetchOffset } = setup();
    assert.equal(await commit('a', 'g1', 1n), ErrorCode.NONE);
    const first = runtime.coordinator;
    first.offsetCommit = () => {
      throw new CoordinatorStateLostError('undoing a failed coordinator operation failed');
    };
    assert.equal(await commit('b', 'g1', 2n), ErrorCode.NOT_COORDINATOR);
    for (let i = 0; i < 50 && runtime.coordinator === first; i++) await settle();
    assert.notEqual(runtime.coordinator, first);
    assert.equal(await fetchOffset('g1'), 1);
    assert.equal(await commit('c', 'g1', 3n), ErrorCode.NONE);
    await runtime.stop();
  });

  it("maps storage errors as Kafka's coordinator does", () => {
    assert.equal(appendErrorCode(new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'x')), ErrorCode.NOT_COORDINATOR);
    assert.equal(appendErrorCode(new StorageError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'x')), ErrorCode.COORDINATOR_NOT_AVAILABLE);
    assert.equal(appendErrorCode(new StorageError(ErrorCode.MESSAGE_TOO_LARGE, 'x')), ErrorCode.UNKNOWN_SERVER_ERROR);
    assert.equal(appendErrorCode(new Error('bug')), ErrorCode.UNKNOWN_SERVER_ERROR);
  });
});

describe('coordinator journal', { timeout: 10_000 }, () => {
  it('an undo that throws while aborting an operation reports the state lost', () => {
    const journal = new Journal();
    journal.begin();
    journal.record(() => {
      throw new Error('cannot undo');
    });
    assert.throws(() => journal.abort(), CoordinatorStateLostError);
    // The journal itself is usable again.
    journal.begin();
    assert.equal(journal.end(false, []), null);
  });
});
