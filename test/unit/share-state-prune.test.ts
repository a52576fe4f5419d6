/**
 * `__share_group_state` is pruned as Kafka 4.4 prunes it: the share coordinator tracks where
 * each share-partition's latest snapshot lies (ShareCoordinatorOffsetsManager) and its
 * periodic job (`share.coordinator.state.topic.prune.interval.ms`) moves the log start
 * offset to the oldest snapshot still needed; cold share-partitions get snapshots
 * (`share.coordinator.cold.partition.snapshot.interval.ms`) so they do not pin that offset;
 * a deleted share-partition stops pinning it; a failed append never moves it. The service
 * runs on a memory storage and a manual clock: every step is deterministic.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SHARE_GROUP_STATE_TOPIC, ShareCoordinatorService } from '../../src/broker/share-coordinator-service.js';
import { ShareCoordinatorOffsetsManager } from '../../src/coordinator/share-state/offsets-manager.js';
import { coordinatorKey, decodeShareRecord } from '../../src/coordinator/share-state/records.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatch, iterateBatches } from '../../src/protocol/records/index.js';
import { StorageError } from '../../src/storage/index.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import type { Storage } from '../../src/storage/types.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/log.js';

const OPTS = { timeout: 20_000 };
const PRUNE_MS = 60_000;
const COLD_MS = 100_000;
const GROUP = 'g';

interface Setup {
  readonly storage: Storage;
  readonly clock: ManualScheduler;
  readonly topicId: string;
  service: ShareCoordinatorService;
}

function setup(t: { after(fn: () => Promise<void>): void }, perSnapshot = 3): Setup {
  const clock = new ManualScheduler(1_000_000);
  const storage = openMemoryStorage({ clock: () => clock.nowMs() });
  const topicId = storage.createTopic('shared', 4).topicId;
  const s: Setup = { storage, clock, topicId, service: start(storage, clock, perSnapshot) };
  t.after(() => s.service.stop());
  return s;
}

function start(storage: Storage, clock: ManualScheduler, perSnapshot: number): ShareCoordinatorService {
  return ShareCoordinatorService.start({
    storage, clock, log: silentLogger, numPartitions: 1, segmentBytes: 1 << 20, pruneIntervalMs: PRUNE_MS,
    coordinator: { snapshotUpdateRecordsPerSnapshot: perSnapshot, coldPartitionSnapshotIntervalMs: COLD_MS },
  });
}

async function init(s: Setup, partition: number): Promise<void> {
  const r = await s.service.initializeState({ groupId: GROUP, topics: [{ topicId: s.topicId, partitions: [{ partition, stateEpoch: 0, startOffset: 0n }] }] });
  assert.equal(r.results[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
}

async function write(s: Setup, partition: number, i: number): Promise<number> {
  const r = await s.service.writeState({
    groupId: GROUP,
    topics: [{ topicId: s.topicId, partitions: [{
      partition, stateEpoch: 0, leaderEpoch: 0, startOffset: BigInt(i), deliveryCompleteCount: i,
      stateBatches: [{ firstOffset: BigInt(i * 10), lastOffset: BigInt(i * 10 + 3), deliveryState: 2, deliveryCount: 1 + (i % 2) }],
    }] }],
  });
  return r.results[0]!.partitions[0]!.errorCode;
}

function readAll(s: Setup): Promise<unknown> {
  return s.service.readState({ groupId: GROUP, topics: [{ topicId: s.topicId, partitions: [0, 1, 2, 3].map((partition) => ({ partition, leaderEpoch: 0 })) }] });
}

/** The ShareSnapshot records of partition 0 of the topic from its log start: [coordinator key, offset, tombstone]. */
function snapshots(storage: Storage): [string, bigint, boolean][] {
  const log = storage.partition(SHARE_GROUP_STATE_TOPIC, 0)!;
  const read = log.read(log.logStartOffset, 1 << 24, { minOneBatch: true });
  const out: [string, bigint, boolean][] = [];
  for (const view of iterateBatches(Buffer.concat(read.records))) {
    for (const r of decodeRecordBatch(view.buffer).records) {
      const decoded = decodeShareRecord({ key: r.key!, value: r.value });
      if (decoded?.type === 'snapshot' && r.offset >= log.logStartOffset) out.push([coordinatorKey(decoded.key), r.offset, decoded.value === null]);
    }
  }
  return out;
}

/** The oldest "latest snapshot" over the share-partitions alive at the log end: where pruning may start. */
function oldestNeededSnapshot(storage: Storage): bigint {
  const latest = new Map<string, bigint>();
  for (const [key, offset, tombstone] of snapshots(storage)) {
    if (tombstone) latest.delete(key);
    else latest.set(key, offset);
  }
  return [...latest.values()].reduce((a, b) => (a < b ? a : b));
}

function logStart(storage: Storage): bigint {
  return storage.partition(SHARE_GROUP_STATE_TOPIC, 0)!.logStartOffset;
}

test("the offsets manager: Kafka's lowest latest-snapshot offset, a tombstone counting once, none at 0", OPTS, () => {
  const m = new ShareCoordinatorOffsetsManager();
  m.updateState('a', 0n, false);
  assert.equal(m.lastRedundantOffset(), undefined, 'offset 0: nothing to delete before it');
  m.updateState('b', 5n, false);
  assert.equal(m.lastRedundantOffset(), undefined, 'a still pins 0');
  m.updateState('a', 9n, false);
  assert.equal(m.lastRedundantOffset(), 5n);
  m.updateState('b', 12n, true);
  assert.equal(m.lastRedundantOffset(), 9n, "b's tombstone is past a's snapshot");
  assert.equal(m.size, 1, 'the deleted key dropped out');
  m.updateState('a', 20n, false);
  assert.equal(m.lastRedundantOffset(), 20n, 'b pins nothing any more');
});

test('after many writes and snapshots the log start moves to the oldest needed snapshot; a restart reads the same state', OPTS, async (t) => {
  const s = setup(t);
  for (let p = 0; p < 3; p++) await init(s, p);
  for (let i = 0; i < 20; i++) assert.equal(await write(s, i % 2, i), ErrorCode.NONE);
  for (let i = 0; i < 4; i++) assert.equal(await write(s, 2, 100 + i), ErrorCode.NONE);
  assert.equal(logStart(s.storage), 0n);
  const needed = oldestNeededSnapshot(s.storage);
  assert.ok(needed > 0n);

  await s.clock.advance(PRUNE_MS - 1);
  assert.equal(logStart(s.storage), 0n, 'not before the prune interval');
  await s.clock.advance(1);
  assert.equal(logStart(s.storage), needed, 'the log start offset is the oldest snapshot still needed');
  assert.equal(s.service.shard.lastRedundantOffset(0), needed);

  const states = s.service.shard.states();
  const answers = await readAll(s);
  await s.service.stop();
  s.service = start(s.storage, s.clock, 3);
  assert.deepEqual(s.service.shard.states(), states, 'the state after the restart is the state before');
  assert.deepEqual(await readAll(s), answers, 'ReadShareGroupState answers the same');
  assert.equal(s.service.shard.lastRedundantOffset(0), needed, 'the prune point is found again at load');
});

test('a deleted share-partition stops pinning the prune point', OPTS, async (t) => {
  const s = setup(t);
  await init(s, 3); // the oldest snapshot, never written again
  await init(s, 0);
  for (let i = 0; i < 10; i++) assert.equal(await write(s, 0, i), ErrorCode.NONE);
  await s.clock.advance(PRUNE_MS);
  assert.equal(logStart(s.storage), 0n, 'partition 3 pins offset 0: nothing pruned');

  const deleted = await s.service.deleteState({ groupId: GROUP, topics: [{ topicId: s.topicId, partitions: [{ partition: 3 }] }] });
  assert.equal(deleted.results[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  await s.clock.advance(PRUNE_MS);
  const needed = oldestNeededSnapshot(s.storage);
  assert.ok(needed > 0n);
  assert.equal(logStart(s.storage), needed, "the log start is partition 0's latest snapshot");
  const states = s.service.shard.states();
  await s.service.stop();
  s.service = start(s.storage, s.clock, 3);
  assert.deepEqual(s.service.shard.states(), states);
});

test('a cold share-partition gets a snapshot and stops pinning the prune point', OPTS, async (t) => {
  const s = setup(t);
  await init(s, 1); // goes cold
  await init(s, 0);
  for (let i = 0; i < 7; i++) assert.equal(await write(s, 0, i), ErrorCode.NONE);
  const coldBefore = s.service.shard.states().find(([key]) => key.endsWith(':1'))![1];
  await s.clock.advance(PRUNE_MS);
  assert.equal(logStart(s.storage), 0n, 'partition 1 pins offset 0');

  await s.clock.advance(COLD_MS - PRUNE_MS);
  // The snapshot's record is appended and settled on the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  const coldAfter = s.service.shard.states().find(([key]) => key.endsWith(':1'))![1];
  assert.deepEqual({ ...coldAfter, snapshotEpoch: 0, writeTimestamp: 0n }, { ...coldBefore, snapshotEpoch: 0, writeTimestamp: 0n }, 'the same state');
  assert.equal(coldAfter.snapshotEpoch, coldBefore.snapshotEpoch + 1);
  assert.equal(coldAfter.writeTimestamp, BigInt(s.clock.nowMs()));
  assert.notEqual(coldAfter.createTimestamp, coldAfter.writeTimestamp, "Kafka's mark of a cold snapshot");

  await s.clock.advance(2 * PRUNE_MS - COLD_MS);
  const needed = oldestNeededSnapshot(s.storage);
  assert.ok(needed > 0n);
  assert.equal(logStart(s.storage), needed);
  const cold = snapshots(s.storage).filter(([key]) => key.endsWith(':1'));
  assert.equal(cold.length, 1, 'only its cold snapshot is left of partition 1');
  const states = s.service.shard.states();
  await s.service.stop();
  s.service = start(s.storage, s.clock, 3);
  assert.deepEqual(s.service.shard.states(), states);
});

test('a failed append does not move the prune point', OPTS, async (t) => {
  const s = setup(t);
  await init(s, 0);
  for (let i = 0; i < 3; i++) assert.equal(await write(s, 0, i), ErrorCode.NONE);
  assert.equal(await write(s, 0, 3), ErrorCode.NONE, 'the fourth write is a snapshot');
  const point = s.service.shard.lastRedundantOffset(0);
  assert.ok(point !== undefined && point > 0n);
  for (let i = 4; i < 7; i++) assert.equal(await write(s, 0, i), ErrorCode.NONE);

  // The next write is a snapshot; its append fails.
  const log = s.storage.partition(SHARE_GROUP_STATE_TOPIC, 0)!;
  const append = log.append.bind(log);
  log.append = () => {
    throw new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, 'injected');
  };
  assert.notEqual(await write(s, 0, 7), ErrorCode.NONE);
  log.append = append;
  assert.equal(s.service.shard.lastRedundantOffset(0), point, 'the failed snapshot did not move it');
  await s.clock.advance(PRUNE_MS);
  assert.equal(logStart(s.storage), point);

  // Written again, the snapshot moves it.
  assert.equal(await write(s, 0, 7), ErrorCode.NONE);
  const moved = s.service.shard.lastRedundantOffset(0)!;
  assert.ok(moved > point);
  await s.clock.advance(PRUNE_MS);
  assert.equal(logStart(s.storage), moved);
});
