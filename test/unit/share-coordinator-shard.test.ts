/**
 * The share coordinator shard (Kafka 4.4's ShareCoordinatorShard): validation and its
 * errors, the records each operation writes (updates, a snapshot every N updates, snapshots
 * on initialize, tombstones on delete), replay giving the live state, and the revert of a
 * failed append.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ShareCoordinatorShard } from '../../src/coordinator/share-state/shard.js';
import { decodeShareRecord } from '../../src/coordinator/share-state/records.js';
import { DeliveryState, type StateBatch } from '../../src/coordinator/share-state/state-batches.js';
import type { ShareStateResult } from '../../src/coordinator/share-state/types.js';
import type { CoordinatorRecord } from '../../src/coordinator/types.js';

const T1 = 'AAAAAAAAAAAAAAAAAAAAAQ';
const T2 = 'AAAAAAAAAAAAAAAAAAAAAg';
const GROUP = 'g:1'; // a ':' in the group id, as the coordinator key allows
const OPTS = { timeout: 10_000 };
const { AVAILABLE, ACKNOWLEDGED, ARCHIVED } = DeliveryState;

function b(first: number, last: number, deliveryState: number, deliveryCount: number): StateBatch {
  return { firstOffset: BigInt(first), lastOffset: BigInt(last), deliveryState, deliveryCount };
}

/** Every share-state response: results by topic, one partition each here. */
type AnyResponse = { results: { partitions: Record<string, unknown>[] }[] };

const TOPICS = new Map([[T1, 3], [T2, 1]]);

function newShard(perSnapshot = 500): ShareCoordinatorShard {
  return new ShareCoordinatorShard({ snapshotUpdateRecordsPerSnapshot: perSnapshot }, (id) => TOPICS.get(id));
}

/** Runs operations as the runtime does and keeps every record written (the log). */
class Harness {
  readonly log: CoordinatorRecord[] = [];
  private nextId = 1;
  private now = 1_000;
  constructor(readonly shard: ShareCoordinatorShard) {}

  private take(result: ShareStateResult, durable = true): { response: AnyResponse; result: ShareStateResult } {
    if (durable) {
      this.log.push(...result.records);
      if (result.token !== null) this.shard.settle(result.token, ErrorCode.NONE);
    }
    return { response: result.replies[0]!.response as AnyResponse, result };
  }

  init(partition: number, stateEpoch: number, startOffset: number, durable = true) {
    return this.take(this.shard.initializeState(this.nextId++, this.now++, {
      groupId: GROUP, topics: [{ topicId: T1, partitions: [{ partition, stateEpoch, startOffset: BigInt(startOffset) }] }],
    }), durable);
  }

  write(partition: number, p: { stateEpoch?: number; leaderEpoch?: number; startOffset?: number; dcc?: number; batches?: StateBatch[] }, durable = true) {
    return this.take(this.shard.writeState(this.nextId++, this.now++, {
      groupId: GROUP,
      topics: [{
        topicId: T1,
        partitions: [{
          partition, stateEpoch: p.stateEpoch ?? 0, leaderEpoch: p.leaderEpoch ?? 0, startOffset: BigInt(p.startOffset ?? -1),
          deliveryCompleteCount: p.dcc ?? -1, stateBatches: [...(p.batches ?? [])],
        }],
      }],
    }), durable);
  }

  read(partition: number, leaderEpoch: number, topicId = T1, durable = true) {
    return this.take(this.shard.readStateAndMaybeUpdateLeaderEpoch(this.nextId++, this.now++, {
      groupId: GROUP, topics: [{ topicId, partitions: [{ partition, leaderEpoch }] }],
    }), durable);
  }

  summary(partition: number, topicId = T1) {
    return this.take(this.shard.readStateSummary(this.nextId++, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition, leaderEpoch: 0 }] }] }));
  }

  delete(partition: number, topicId = T1) {
    return this.take(this.shard.deleteState(this.nextId++, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition }] }] }));
  }
}

function partitionOf(response: AnyResponse): Record<string, unknown> {
  return response.results[0]!.partitions[0]!;
}

function replayed(log: readonly CoordinatorRecord[], perSnapshot = 500): ShareCoordinatorShard {
  const shard = newShard(perSnapshot);
  for (const record of log) shard.replay(record);
  return shard;
}

test('initialize writes a snapshot; a read returns it and records the leader epoch', OPTS, () => {
  const h = new Harness(newShard());
  const init = h.init(0, 1, 10);
  assert.deepEqual(partitionOf(init.response), { partition: 0, errorCode: 0, errorMessage: null });
  assert.equal(init.result.records.length, 1);
  const decoded = decodeShareRecord(init.result.records[0]!)!;
  assert.equal(decoded.type, 'snapshot');
  assert.deepEqual({ ...decoded.value!, createTimestamp: 0n, writeTimestamp: 0n }, {
    snapshotEpoch: 0, stateEpoch: 1, leaderEpoch: 0, startOffset: 10n, deliveryCompleteCount: 0, stateBatches: [], createTimestamp: 0n, writeTimestamp: 0n,
  });
  const read = h.read(0, 3);
  assert.deepEqual(partitionOf(read.response), { partition: 0, errorCode: 0, errorMessage: null, stateEpoch: 1, startOffset: 10n, stateBatches: [] });
  assert.equal(read.result.records.length, 1, 'a new leader epoch is written');
  assert.equal(h.shard.leaderEpochOf({ groupId: GROUP, topicId: T1, partition: 0 }), 3);
  assert.equal(h.read(0, 3).result.records.length, 0, 'the same leader epoch writes nothing');
  assert.deepEqual(partitionOf(h.summary(0).response), {
    partition: 0, errorCode: 0, errorMessage: null, stateEpoch: 1, leaderEpoch: 3, startOffset: 10n, deliveryCompleteCount: 0,
  });
});

test('writes: an update each, a snapshot once N updates followed the last; the start offset never goes back', OPTS, () => {
  const h = new Harness(newShard(3));
  h.init(1, 0, 0);
  const types: string[] = [];
  for (let i = 0; i < 6; i++) {
    const w = h.write(1, { startOffset: i === 5 ? 2 : i * 2, batches: [b(i * 10, i * 10 + 4, ACKNOWLEDGED, 1), b(i * 10 + 5, i * 10 + 9, AVAILABLE, 1)] });
    assert.equal(partitionOf(w.response).errorCode, ErrorCode.NONE);
    types.push(decodeShareRecord(w.result.records[0]!)!.type);
  }
  assert.deepEqual(types, ['update', 'update', 'update', 'snapshot', 'update', 'update']);
  const state = h.shard.stateOf({ groupId: GROUP, topicId: T1, partition: 1 })!;
  assert.equal(state.startOffset, 8n, 'a write behind the start offset keeps it');
  assert.equal(state.snapshotEpoch, 1);
  assert.deepEqual(state.stateBatches[0], b(8, 9, AVAILABLE, 1));
  assert.deepEqual(replayed(h.log, 3).states(), h.shard.states());
});

test('validation: Kafka 4.4 codes and messages, in its order', OPTS, () => {
  const h = new Harness(newShard());
  assert.deepEqual(partitionOf(h.write(0, {}).response), {
    partition: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Write operation on uninitialized share partition not allowed.',
  });
  assert.deepEqual(partitionOf(h.read(0, 0).response).errorMessage, 'Read operation on uninitialized share partition not allowed.');
  assert.equal(partitionOf(h.write(-1, {}).response).errorMessage, 'The partition id cannot be a negative number.');
  assert.equal(partitionOf(h.write(0, { leaderEpoch: -1 }).response).errorMessage, 'The leader epoch cannot be a negative number.');
  assert.equal(partitionOf(h.write(0, { stateEpoch: -1 }).response).errorMessage, 'The state epoch cannot be a negative number.');
  assert.equal(partitionOf(h.init(0, -1, 0).response).errorMessage, 'The state epoch cannot be a negative number.');
  assert.deepEqual(partitionOf(h.init(7, 0, 0).response), {
    partition: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.',
  });
  assert.equal(partitionOf(h.summary(0, 'AAAAAAAAAAAAAAAAAAAAAw').response).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal(partitionOf(h.delete(3).response).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

  h.init(0, 5, 0);
  h.read(0, 4);
  assert.equal(partitionOf(h.write(0, { stateEpoch: 5, leaderEpoch: 3 }).response).errorCode, ErrorCode.FENCED_LEADER_EPOCH);
  assert.equal(partitionOf(h.read(0, 3).response).errorCode, ErrorCode.FENCED_LEADER_EPOCH);
  assert.deepEqual(partitionOf(h.write(0, { stateEpoch: 4, leaderEpoch: 4 }).response), {
    partition: 0, errorCode: ErrorCode.FENCED_STATE_EPOCH, errorMessage: 'The coordinator rejected the request because the state epoch did not match.',
  });
  assert.equal(partitionOf(h.init(0, 4, 0).response).errorCode, ErrorCode.FENCED_STATE_EPOCH);
  const ok = h.write(0, { stateEpoch: 6, leaderEpoch: 9 });
  assert.equal(partitionOf(ok.response).errorCode, ErrorCode.NONE, 'newer epochs are accepted');
  assert.equal(h.shard.leaderEpochOf({ groupId: GROUP, topicId: T1, partition: 0 }), 4, 'a write does not move the leader epoch (Kafka 4.4)');
  assert.equal(h.shard.stateEpochOf({ groupId: GROUP, topicId: T1, partition: 0 }), 5, 'nor the state epoch');
});

test('summary of a share-partition without state: start offset -1, epochs 0', OPTS, () => {
  const h = new Harness(newShard());
  assert.deepEqual(partitionOf(h.summary(2).response), {
    partition: 2, errorCode: 0, errorMessage: null, stateEpoch: 0, leaderEpoch: 0, startOffset: -1n, deliveryCompleteCount: -1,
  });
});

test('delete writes a tombstone and forgets the epochs; deleting nothing writes nothing', OPTS, () => {
  const h = new Harness(newShard());
  h.init(0, 2, 0);
  h.read(0, 7);
  assert.equal(h.delete(1).result.records.length, 0);
  const del = h.delete(0);
  assert.deepEqual(partitionOf(del.response), { partition: 0, errorCode: 0, errorMessage: null });
  assert.equal(del.result.records[0]!.value, null);
  assert.equal(h.shard.size, 0);
  assert.equal(h.shard.leaderEpochOf({ groupId: GROUP, topicId: T1, partition: 0 }), undefined);
  // A new incarnation may start at any state epoch.
  assert.equal(partitionOf(h.init(0, 0, 5).response).errorCode, ErrorCode.NONE);
  assert.equal(replayed(h.log).size, 1);
  assert.deepEqual(replayed(h.log).states(), h.shard.states());
});

test('delivery complete count: the request\'s, the larger at the same start offset, the recorded one behind it', OPTS, () => {
  const h = new Harness(newShard());
  h.init(0, 0, 10);
  h.write(0, { startOffset: 10, dcc: 4 });
  assert.equal(h.shard.stateOf({ groupId: GROUP, topicId: T1, partition: 0 })!.deliveryCompleteCount, 4);
  h.write(0, { startOffset: 10, dcc: 2 });
  assert.equal(h.shard.stateOf({ groupId: GROUP, topicId: T1, partition: 0 })!.deliveryCompleteCount, 4);
  h.write(0, { startOffset: 5, dcc: 1 });
  assert.equal(h.shard.stateOf({ groupId: GROUP, topicId: T1, partition: 0 })!.deliveryCompleteCount, 4);
  h.write(0, { startOffset: 20, dcc: 1 });
  assert.equal(h.shard.stateOf({ groupId: GROUP, topicId: T1, partition: 0 })!.deliveryCompleteCount, 1);
});

test('a failed append reverts its result and every later one; the durable ones stay', OPTS, () => {
  const h = new Harness(newShard(2));
  h.init(0, 0, 0);
  h.write(0, { batches: [b(0, 9, ACKNOWLEDGED, 1)] });
  const before = h.shard.states();
  const failing = h.write(0, { startOffset: 5, batches: [b(10, 19, ARCHIVED, 2)] }, false);
  const later = h.read(0, 6, T1, false).result; // a leader epoch record built on the failing write
  assert.notDeepEqual(h.shard.states(), before);
  assert.ok(failing.result.token !== null && later.token !== null);
  assert.deepEqual(h.shard.settle(failing.result.token, ErrorCode.NOT_COORDINATOR), { replies: [], timers: [], records: [], token: null });
  assert.deepEqual(h.shard.states(), before);
  assert.equal(h.shard.leaderEpochOf({ groupId: GROUP, topicId: T1, partition: 0 }), 0);
  assert.equal(h.shard.settle(later.token, ErrorCode.NOT_COORDINATOR), undefined, 'reverted with the earlier one');
  assert.deepEqual(replayed(h.log, 2).states(), h.shard.states());
});

test('replay of the log equals the live state on a random run', OPTS, () => {
  let seed = 42;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed % n;
  };
  const h = new Harness(newShard(4));
  for (let i = 0; i < 400; i++) {
    const partition = rand(3);
    const op = rand(10);
    if (op === 0) h.init(partition, rand(3), rand(50));
    else if (op === 1) h.delete(partition);
    else if (op === 2) h.read(partition, rand(4));
    else {
      const first = rand(100);
      h.write(partition, {
        stateEpoch: rand(3), leaderEpoch: rand(4), startOffset: rand(4) === 0 ? -1 : rand(60), dcc: rand(5) - 1,
        batches: [b(first, first + rand(20), [AVAILABLE, ACKNOWLEDGED, ARCHIVED][rand(3)]!, 1 + rand(3))],
      });
    }
    if (i % 50 === 49) assert.deepEqual(replayed(h.log, 4).states(), h.shard.states(), `after ${i + 1} operations`);
  }
  assert.ok(h.log.length > 100);
});

test('deleted topics: a tombstone for each of their share-partitions', OPTS, () => {
  const h = new Harness(newShard());
  h.init(0, 0, 0);
  h.init(2, 0, 0);
  h.shard.initializeState(99, 0, { groupId: 'other', topics: [{ topicId: T2, partitions: [{ partition: 0, stateEpoch: 0, startOffset: 0n }] }] });
  const result = h.shard.cleanupDeletedTopics(new Set([T1]));
  assert.equal(result.records.length, 2);
  assert.ok(result.records.every((r) => r.value === null));
  assert.equal(h.shard.size, 1);
});
