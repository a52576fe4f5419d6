/**
 * The share coordinator (KIP-932) as a shard of the coordinator runtime, after Kafka 4.4's
 * ShareCoordinatorShard: the durable state of every share-partition (group id, topic id,
 * partition) — state epoch, leader epoch, start offset, delivery complete count and state
 * batches — kept in `__share_group_state`.
 *
 * Each operation answers one share-partition (the service splits requests by partition, as
 * Kafka's ShareCoordinatorService does), validates it with Kafka's checks, errors and
 * messages, builds its record and applies it through `replay`, the function start-up
 * applies each record of the log with: the live state is the state the log rebuilds. A
 * write is a ShareUpdate (its batches only), or a ShareSnapshot (the whole state) once
 * `share.coordinator.snapshot.update.records.per.snapshot` updates followed the last one;
 * InitializeShareGroupState writes a snapshot; a read with a new leader epoch writes the
 * epoch as a write does; DeleteShareGroupState writes a snapshot tombstone.
 *
 * Every map is a timeline map (timeline-map.ts) under this shard's journal, so a failed
 * append reverts the results built on it (settle), as Kafka's runtime reverts its
 * SnapshotRegistry.
 *
 * Pruning, as Kafka 4.4: the shard learns where each of its snapshots lies (at load from
 * replay, live once the runtime reports the durable offsets: `written`) and keeps, per
 * `__share_group_state` partition, Kafka's ShareCoordinatorOffsetsManager; the service
 * deletes the records before `lastRedundantOffset` and periodically asks for snapshots of
 * cold share-partitions (`snapshotColdPartitions`) so an idle one does not pin that offset.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type {
  DeleteShareGroupStateRequestData, InitializeShareGroupStateRequestData, ReadShareGroupStateRequestData,
  ReadShareGroupStateSummaryRequestData, WriteShareGroupStateRequestData, WriteShareGroupStateRequestStateBatch,
} from '../../protocol/messages/index.js';
import { Journal } from '../journal.js';
import { TimelineMap } from '../timeline-map.js';
import type { CoordinatorRecord, RequestId, ResultToken, TimerKey } from '../types.js';
import {
  coordinatorKey, decodeShareRecord, parseCoordinatorKey, shareSnapshotRecord, snapshotCoordinatorKey, shareStateTombstone, shareUpdateRecord,
  type ShareGroupOffset, type SharePartitionKey, type ShareUpdate,
} from './records.js';
import {
  deleteResponse, initializeResponse, kafkaErrorMessage, readErrorResponse, readResponse, summaryErrorResponse, summaryResponse, writeResponse,
} from './responses.js';
import { ShareCoordinatorOffsetsManager } from './offsets-manager.js';
import { combineStateBatches, type StateBatch } from './state-batches.js';
import {
  DEFAULT_SHARE_COORDINATOR_CONFIG, emptyShareStateResult, type LogPosition, type ShareCoordinatorConfig, type ShareStateResult, type TopicPartitionCount,
} from './types.js';

// Kafka 4.4's validation messages (ShareCoordinatorShard's exceptions).
const NEGATIVE_PARTITION_ID = 'The partition id cannot be a negative number.';
const NEGATIVE_LEADER_EPOCH = 'The leader epoch cannot be a negative number.';
const NEGATIVE_STATE_EPOCH = 'The state epoch cannot be a negative number.';
const WRITE_UNINITIALIZED_SHARE_PARTITION = 'Write operation on uninitialized share partition not allowed.';
const READ_UNINITIALIZED_SHARE_PARTITION = 'Read operation on uninitialized share partition not allowed.';

/** A WriteShareGroupState partition, or what a read with a new leader epoch writes. */
interface WriteData {
  readonly partition: number;
  readonly stateEpoch: number;
  readonly leaderEpoch: number;
  readonly startOffset: bigint;
  readonly deliveryCompleteCount: number;
  readonly stateBatches: readonly StateBatch[];
}

interface Refusal {
  readonly errorCode: number;
  readonly message: string | null;
}

function refuse(errorCode: number, message: string | null = kafkaErrorMessage(errorCode)): Refusal {
  return { errorCode, message };
}

function toBatches(list: readonly WriteShareGroupStateRequestStateBatch[]): StateBatch[] {
  return list.map((b) => ({ firstOffset: b.firstOffset, lastOffset: b.lastOffset, deliveryState: b.deliveryState, deliveryCount: b.deliveryCount }));
}

/** Run by the coordinator runtime as its CoordinatorShard (src/broker/coordinator-runtime/shard.ts). */
export class ShareCoordinatorShard {
  private readonly config: ShareCoordinatorConfig;
  private readonly journal = new Journal();
  private readonly shareStateMap = new TimelineMap<string, ShareGroupOffset>(this.journal);
  private readonly leaderEpochMap = new TimelineMap<string, number>(this.journal);
  private readonly stateEpochMap = new TimelineMap<string, number>(this.journal);
  /** ShareUpdate records since the share-partition's last snapshot (Kafka's snapshotUpdateCount). */
  private readonly snapshotUpdateCount = new TimelineMap<string, number>(this.journal);
  /**
   * Where the latest durable snapshot of each share-partition lies, per `__share_group_state`
   * partition (Kafka: one shard per partition, each with its manager). Not a timeline map:
   * only durable offsets reach it.
   */
  private readonly offsetsManagers = new Map<number, ShareCoordinatorOffsetsManager>();

  constructor(config: Partial<ShareCoordinatorConfig>, private readonly topics: TopicPartitionCount) {
    this.config = { ...DEFAULT_SHARE_COORDINATOR_CONFIG, ...config };
  }

  /**
   * One record of `__share_group_state`, at start-up (with where it lies) or just written
   * (its position comes once durable: `written`). Kafka's replay.
   */
  replay(record: CoordinatorRecord, position?: LogPosition): void {
    const decoded = decodeShareRecord(record);
    if (decoded === null) return;
    const key = coordinatorKey(decoded.key);
    if (decoded.type === 'snapshot') {
      if (position !== undefined) this.snapshotAt(key, position, decoded.value === null);
      if (decoded.value === null) {
        this.shareStateMap.delete(key);
        this.leaderEpochMap.delete(key);
        this.stateEpochMap.delete(key);
        this.snapshotUpdateCount.delete(key);
        return;
      }
      this.maybeRaise(this.leaderEpochMap, key, decoded.value.leaderEpoch);
      this.maybeRaise(this.stateEpochMap, key, decoded.value.stateEpoch);
      this.shareStateMap.set(key, decoded.value);
      // As Kafka: the count starts again only once it reached the limit (a snapshot of an
      // initialize or a cold partition leaves a smaller count as it is).
      const count = this.snapshotUpdateCount.get(key);
      if (count !== undefined && count >= this.config.snapshotUpdateRecordsPerSnapshot) this.snapshotUpdateCount.set(key, 0);
      return;
    }
    // Kafka writes no ShareUpdate tombstones; one would change nothing.
    if (decoded.value === null) return;
    const update = decoded.value;
    this.maybeRaise(this.leaderEpochMap, key, update.leaderEpoch);
    const soFar = this.shareStateMap.get(key);
    this.shareStateMap.set(key, soFar === undefined ? { ...update, stateEpoch: 0, createTimestamp: 0n, writeTimestamp: 0n } : merge(soFar, update));
    this.snapshotUpdateCount.set(key, (this.snapshotUpdateCount.get(key) ?? 0) + 1);
  }

  /** The records of a result are durable at these positions: their snapshots move the prune point. */
  written(records: readonly CoordinatorRecord[], positions: readonly LogPosition[]): void {
    for (let i = 0; i < records.length; i++) {
      const key = snapshotCoordinatorKey(records[i]!);
      if (key !== null) this.snapshotAt(key, positions[i]!, records[i]!.value === null);
    }
  }

  /**
   * Kafka's lastRedundantOffset: the offset of `partition` of `__share_group_state` before
   * which no live share-partition needs a record; undefined when there is none (yet).
   */
  lastRedundantOffset(partition: number): bigint | undefined {
    return this.offsetsManagers.get(partition)?.lastRedundantOffset();
  }

  /**
   * Kafka's snapshotColdPartitions: a snapshot (the same state, snapshot epoch + 1, written
   * now) of every share-partition whose last snapshot was written at least
   * `share.coordinator.cold.partition.snapshot.interval.ms` ago. As Kafka, nothing when every
   * share-partition's last snapshot is already such a cold snapshot (its write timestamp no
   * longer its create timestamp), so idle share-partitions are not snapshotted forever.
   */
  snapshotColdPartitions(nowMs: number): ShareStateResult {
    const states = [...this.shareStateMap.entries()];
    if (states.every(([, s]) => s.createTimestamp !== s.writeTimestamp)) return emptyShareStateResult();
    const now = BigInt(nowMs);
    const interval = BigInt(this.config.coldPartitionSnapshotIntervalMs);
    const records: CoordinatorRecord[] = [];
    for (const [key, s] of states) {
      if (now - s.writeTimestamp >= interval) records.push(shareSnapshotRecord(parseCoordinatorKey(key), { ...s, snapshotEpoch: s.snapshotEpoch + 1, writeTimestamp: now }));
    }
    if (records.length === 0) return emptyShareStateResult();
    return this.run(records, []);
  }

  loaded(_nowMs: number): ShareStateResult {
    return emptyShareStateResult();
  }

  onTimer(_key: TimerKey, _nowMs: number): ShareStateResult {
    return emptyShareStateResult();
  }

  /**
   * A result's records are durable (its changes stay) or not: the changes of that result and
   * of every later one are undone, newest first. The empty result tells the runtime that later
   * results start afresh (the requests of the reverted ones get the append's error from it).
   */
  settle(token: ResultToken, errorCode: number): ShareStateResult | undefined {
    if (errorCode === ErrorCode.NONE) {
      this.journal.committed(token);
      return undefined;
    }
    const reverted = this.journal.takeFrom(token);
    if (reverted === undefined) return undefined;
    for (const changes of reverted) changes.rollback();
    return emptyShareStateResult();
  }

  /** Kafka's initializeState: a snapshot of the new state epoch and start offset, no batches. */
  initializeState(requestId: RequestId, nowMs: number, request: InitializeShareGroupStateRequestData): ShareStateResult {
    const topic = request.topics[0]!;
    const p = topic.partitions[0]!;
    const k: SharePartitionKey = { groupId: request.groupId, topicId: topic.topicId, partition: p.partition };
    const key = coordinatorKey(k);
    const refusal = p.partition < 0 ? refuse(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID)
      : p.stateEpoch < 0 ? refuse(ErrorCode.INVALID_REQUEST, NEGATIVE_STATE_EPOCH)
        : (this.stateEpochMap.get(key) ?? -1) > p.stateEpoch ? refuse(ErrorCode.FENCED_STATE_EPOCH)
          : this.unknownPartition(k);
    if (refusal !== null) return this.answer(requestId, initializeResponse(k.topicId, k.partition, refusal.errorCode, refusal.message));
    const current = this.shareStateMap.get(key);
    const now = BigInt(nowMs);
    const record = shareSnapshotRecord(k, {
      snapshotEpoch: current === undefined ? 0 : current.snapshotEpoch + 1,
      stateEpoch: p.stateEpoch,
      leaderEpoch: 0,
      startOffset: p.startOffset,
      // Kafka's ShareGroupOffset.fromRequest: unknown until the start offset is.
      deliveryCompleteCount: p.startOffset === -1n ? -1 : 0,
      stateBatches: [],
      createTimestamp: now,
      writeTimestamp: now,
    });
    return this.write(requestId, [record], initializeResponse(k.topicId, k.partition));
  }

  /** Kafka's writeState. */
  writeState(requestId: RequestId, nowMs: number, request: WriteShareGroupStateRequestData): ShareStateResult {
    const topic = request.topics[0]!;
    const p = topic.partitions[0]!;
    const k: SharePartitionKey = { groupId: request.groupId, topicId: topic.topicId, partition: p.partition };
    const key = coordinatorKey(k);
    const refusal = p.partition < 0 ? refuse(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID)
      : p.leaderEpoch < 0 ? refuse(ErrorCode.INVALID_REQUEST, NEGATIVE_LEADER_EPOCH)
        : p.stateEpoch < 0 ? refuse(ErrorCode.INVALID_REQUEST, NEGATIVE_STATE_EPOCH)
          : !this.shareStateMap.has(key) ? refuse(ErrorCode.INVALID_REQUEST, WRITE_UNINITIALIZED_SHARE_PARTITION)
            : (this.leaderEpochMap.get(key) ?? -1) > p.leaderEpoch ? refuse(ErrorCode.FENCED_LEADER_EPOCH)
              : (this.stateEpochMap.get(key) ?? -1) > p.stateEpoch ? refuse(ErrorCode.FENCED_STATE_EPOCH)
                : this.unknownPartition(k);
    if (refusal !== null) return this.answer(requestId, writeResponse(k.topicId, k.partition, refusal.errorCode, refusal.message));
    const data: WriteData = {
      partition: p.partition, stateEpoch: p.stateEpoch, leaderEpoch: p.leaderEpoch, startOffset: p.startOffset,
      deliveryCompleteCount: p.deliveryCompleteCount ?? -1, stateBatches: toBatches(p.stateBatches),
    };
    // As Kafka 4.4: a write keeps the leader epoch recorded (only a read moves it).
    return this.write(requestId, [this.stateRecord(k, data, false, nowMs)], writeResponse(k.topicId, k.partition));
  }

  /**
   * Kafka's readStateAndMaybeUpdateLeaderEpoch: the state, and, when the request's leader
   * epoch is not the one recorded, a record of it (so a leader that lost its partition is
   * fenced by its next write).
   */
  readStateAndMaybeUpdateLeaderEpoch(requestId: RequestId, nowMs: number, request: ReadShareGroupStateRequestData): ShareStateResult {
    const topic = request.topics[0]!;
    const p = topic.partitions[0]!;
    const k: SharePartitionKey = { groupId: request.groupId, topicId: topic.topicId, partition: p.partition };
    const key = coordinatorKey(k);
    const refusal = p.partition < 0 ? refuse(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID)
      : p.leaderEpoch < 0 ? refuse(ErrorCode.INVALID_REQUEST, NEGATIVE_LEADER_EPOCH)
        : !this.shareStateMap.has(key) ? refuse(ErrorCode.INVALID_REQUEST, READ_UNINITIALIZED_SHARE_PARTITION)
          : (this.leaderEpochMap.get(key) ?? -1) > p.leaderEpoch ? refuse(ErrorCode.FENCED_LEADER_EPOCH)
            : this.unknownPartition(k);
    if (refusal !== null) return this.answer(requestId, readErrorResponse(k.topicId, k.partition, refusal.errorCode, refusal.message));
    const offset = this.shareStateMap.get(key)!;
    const response = readResponse(k.topicId, k.partition, offset.startOffset, offset.stateEpoch, offset.stateBatches);
    if (this.leaderEpochMap.get(key) === p.leaderEpoch) return this.answer(requestId, response);
    const data: WriteData = {
      partition: p.partition, stateEpoch: offset.stateEpoch, leaderEpoch: p.leaderEpoch, startOffset: offset.startOffset,
      deliveryCompleteCount: offset.deliveryCompleteCount, stateBatches: [],
    };
    return this.write(requestId, [this.stateRecord(k, data, true, nowMs)], response);
  }

  /** Kafka's readStateSummary: no leader epoch check, nothing written; an unknown share-partition reads as uninitialized. */
  readStateSummary(requestId: RequestId, request: ReadShareGroupStateSummaryRequestData): ShareStateResult {
    const topic = request.topics[0]!;
    const p = topic.partitions[0]!;
    const k: SharePartitionKey = { groupId: request.groupId, topicId: topic.topicId, partition: p.partition };
    const refusal = p.partition < 0 ? refuse(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID) : this.unknownPartition(k);
    if (refusal !== null) return this.answer(requestId, summaryErrorResponse(k.topicId, k.partition, refusal.errorCode, refusal.message));
    const offset = this.shareStateMap.get(coordinatorKey(k));
    if (offset === undefined) return this.answer(requestId, summaryResponse(k.topicId, k.partition, -1n, -1, 0, 0));
    return this.answer(requestId, summaryResponse(k.topicId, k.partition, offset.startOffset, offset.deliveryCompleteCount, offset.leaderEpoch, offset.stateEpoch));
  }

  /** Kafka's deleteState: a tombstone; a share-partition without state is answered without one. */
  deleteState(requestId: RequestId, request: DeleteShareGroupStateRequestData): ShareStateResult {
    const topic = request.topics[0]!;
    const p = topic.partitions[0]!;
    const k: SharePartitionKey = { groupId: request.groupId, topicId: topic.topicId, partition: p.partition };
    const refusal = p.partition < 0 ? refuse(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID) : this.unknownPartition(k);
    if (refusal !== null) return this.answer(requestId, deleteResponse(k.topicId, k.partition, refusal.errorCode, refusal.message));
    if (!this.shareStateMap.has(coordinatorKey(k))) return this.answer(requestId, deleteResponse(k.topicId, k.partition));
    return this.write(requestId, [shareStateTombstone(k)], deleteResponse(k.topicId, k.partition));
  }

  /**
   * Kafka's maybeCleanupShareState, for the topics just deleted: a tombstone for every
   * share-partition of theirs.
   */
  cleanupDeletedTopics(topicIds: ReadonlySet<string>): ShareStateResult {
    const records: CoordinatorRecord[] = [];
    for (const key of this.shareStateMap.keys()) {
      const k = parseCoordinatorKey(key);
      if (topicIds.has(k.topicId)) records.push(shareStateTombstone(k));
    }
    if (records.length === 0) return emptyShareStateResult();
    return this.run(records, []);
  }

  /** Read-only views (tests, logs): the state of a share-partition, its recorded epochs. */
  stateOf(k: SharePartitionKey): ShareGroupOffset | undefined {
    return this.shareStateMap.get(coordinatorKey(k));
  }

  leaderEpochOf(k: SharePartitionKey): number | undefined {
    return this.leaderEpochMap.get(coordinatorKey(k));
  }

  stateEpochOf(k: SharePartitionKey): number | undefined {
    return this.stateEpochMap.get(coordinatorKey(k));
  }

  /** Every share-partition with state, with it (sorted by key: comparisons of two shards). */
  states(): [string, ShareGroupOffset][] {
    return [...this.shareStateMap.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  get size(): number {
    return this.shareStateMap.size;
  }

  /**
   * Kafka's generateShareStateRecord: a snapshot of the whole state once enough updates
   * followed the last one, else an update with the request's batches. The start offset never
   * goes back; the delivery complete count is the request's, the larger one at an unchanged
   * start offset, the recorded one for a request behind it.
   */
  private stateRecord(k: SharePartitionKey, data: WriteData, updateLeaderEpoch: boolean, nowMs: number): CoordinatorRecord {
    const current = this.shareStateMap.get(coordinatorKey(k))!;
    const leaderEpoch = updateLeaderEpoch ? data.leaderEpoch : current.leaderEpoch;
    const startOffset = data.startOffset > current.startOffset ? data.startOffset : current.startOffset;
    let deliveryCompleteCount = data.deliveryCompleteCount;
    if (data.startOffset === current.startOffset) deliveryCompleteCount = Math.max(data.deliveryCompleteCount, current.deliveryCompleteCount);
    else if (data.startOffset < current.startOffset) deliveryCompleteCount = current.deliveryCompleteCount;
    if ((this.snapshotUpdateCount.get(coordinatorKey(k)) ?? 0) >= this.config.snapshotUpdateRecordsPerSnapshot) {
      const now = BigInt(nowMs);
      return shareSnapshotRecord(k, {
        snapshotEpoch: current.snapshotEpoch + 1, startOffset, deliveryCompleteCount, leaderEpoch, stateEpoch: current.stateEpoch,
        stateBatches: combineStateBatches(current.stateBatches, data.stateBatches, startOffset), createTimestamp: now, writeTimestamp: now,
      });
    }
    return shareUpdateRecord(k, {
      snapshotEpoch: current.snapshotEpoch, startOffset, deliveryCompleteCount, leaderEpoch,
      stateBatches: combineStateBatches([], data.stateBatches, startOffset),
    });
  }

  /** The metadata check of every operation: the topic and partition must exist. */
  private unknownPartition(k: SharePartitionKey): Refusal | null {
    const partitions = this.topics(k.topicId);
    return partitions === undefined || partitions <= k.partition ? refuse(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) : null;
  }

  private snapshotAt(key: string, position: LogPosition, isDelete: boolean): void {
    let manager = this.offsetsManagers.get(position.partition);
    if (manager === undefined) this.offsetsManagers.set(position.partition, (manager = new ShareCoordinatorOffsetsManager()));
    manager.updateState(key, position.offset, isDelete);
  }

  private maybeRaise(map: TimelineMap<string, number>, key: string, epoch: number): void {
    const current = map.get(key);
    if (current === undefined || current < epoch) map.set(key, epoch);
  }

  /** A reply that writes nothing. */
  private answer(requestId: RequestId, response: unknown): ShareStateResult {
    return this.run([], [{ requestId, response }]);
  }

  private write(requestId: RequestId, records: CoordinatorRecord[], response: unknown): ShareStateResult {
    return this.run(records, [{ requestId, response }]);
  }

  /** Applies `records` as replay does, under a journal entry the runtime settles. */
  private run(records: CoordinatorRecord[], replies: { requestId: RequestId; response: unknown }[]): ShareStateResult {
    this.journal.begin();
    try {
      for (const record of records) this.replay(record);
    } catch (err) {
      this.journal.abort();
      throw err;
    }
    const token = this.journal.end(records.length > 0, replies);
    return { replies, timers: [], records, token };
  }
}

/** Kafka's ShareCoordinatorShard.merge: an update applied to the state so far. */
function merge(soFar: ShareGroupOffset, update: ShareUpdate): ShareGroupOffset {
  const startOffset = update.startOffset === -1n ? soFar.startOffset : update.startOffset;
  return {
    snapshotEpoch: soFar.snapshotEpoch,
    stateEpoch: soFar.stateEpoch,
    startOffset,
    deliveryCompleteCount: update.deliveryCompleteCount,
    leaderEpoch: update.leaderEpoch === -1 ? soFar.leaderEpoch : update.leaderEpoch,
    stateBatches: combineStateBatches(soFar.stateBatches, update.stateBatches, startOffset),
    createTimestamp: soFar.createTimestamp,
    writeTimestamp: soFar.writeTimestamp,
  };
}
