/**
 * The broker's share-partitions (Kafka's SharePartitionManager): loads each one's state from
 * the share coordinator when a member first fetches it, acquires records for ShareFetch,
 * applies acknowledgements and persists every change before answering, runs the
 * acquisition locks on the broker's clock, and releases what a member held when it leaves
 * its group, closes its share session or loses its connection.
 *
 * A write that fails drops the share-partition from memory: the next fetch loads it again
 * from what is durable, so an acquired record is delivered again rather than lost.
 *
 * Records a write made ARCHIVING go to the group's dead-letter queue once that write is
 * durable (the acknowledgement is answered then, not after the DLQ write, as in Kafka),
 * and are ARCHIVED, in a write of their own, when the DLQ write is done or failed.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { readBatchHeader, type RecordBatchHeader } from '../../protocol/records/record-batch.js';
import type { Storage, PartitionLog } from '../../storage/types.js';
import { StorageError } from '../../storage/errors.js';
import type { Logger } from '../../util/log.js';
import type { Scheduler } from '../../util/clock.js';
import { KeyedTimers } from '../keyed-timers.js';
import type { AppendNotifier } from '../broker-context.js';
import {
  SharePartition, ShareAcknowledgeError, type AcknowledgementBatch, type AcquiredRecords, type DlqBatch, type FetchedBatch, type SharePartitionSettings, type StateWrite,
} from './share-partition.js';
import { writeThenArchive, type ShareGroupDlq } from './share-group-dlq.js';
import { ShareSessionCache, type SharePartitionRef } from './share-sessions.js';
import { ShareDeliveryCounters } from './delivery-counters.js';
import type { Persister } from '../share-coordinator-service.js';
import type { BrokerConfig } from '../config.js';
import type { StateBatch } from '../../coordinator/share-state/state-batches.js';
import type { GroupConfigs } from '../group-configs/group-config-store.js';
import { intConfig, shareAutoOffsetReset, type ShareAutoOffsetReset } from '../group-configs/group-settings.js';

/**
 * A group's share settings: its own configs (share.*), else the broker's. Read when a
 * share-partition is loaded: a change reaches the group's share-partitions loaded after it.
 */
export function shareGroupSettings(config: BrokerConfig, group: GroupConfigs = {}): ShareGroupSettings {
  return {
    deliveryCountLimit: intConfig(group, 'share.delivery.count.limit') ?? config.groupShareDeliveryCountLimit,
    maxInFlightRecords: intConfig(group, 'share.partition.max.record.locks') ?? config.groupSharePartitionMaxRecordLocks,
    recordLockDurationMs: intConfig(group, 'share.record.lock.duration.ms') ?? config.groupShareRecordLockDurationMs,
    autoOffsetReset: shareAutoOffsetReset(group),
    readCommitted: group['share.isolation.level'] === 'read_committed',
  };
}

/** A group's share settings (broker defaults, or the group's own configs). */
export interface ShareGroupSettings extends SharePartitionSettings {
  /** share.auto.offset.reset: where a share-partition without a start offset begins. */
  readonly autoOffsetReset: ShareAutoOffsetReset;
  /** share.isolation.level read_committed: only committed transactional records are delivered. */
  readonly readCommitted: boolean;
}

export interface SharePartitionManagerOptions {
  readonly storage: Storage;
  readonly clock: Scheduler;
  readonly log: Logger;
  /** The share coordinator (ReadShareGroupState, WriteShareGroupState). */
  readonly persister: Persister;
  readonly appends: AppendNotifier;
  /** group.share.max.share.sessions */
  readonly maxShareSessions: number;
  readonly settings: (groupId: string) => ShareGroupSettings;
  /** The groups' dead-letter queues; none: records are archived without one. */
  readonly dlq?: ShareGroupDlq;
  /** Shared with the dead-letter queues, which count their writes there. */
  readonly counters?: ShareDeliveryCounters;
}

/** One share-partition's part of a ShareFetch answer. */
export interface ShareFetchPartitionResult {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly records: Buffer[];
  readonly bytes: number;
  readonly acquiredRecords: AcquiredRecords[];
}

/** Kafka's fetch.max.bytes default: the most one ShareFetch reads, whatever MaxBytes says. */
const FETCH_MAX_BYTES = 55 * 1024 * 1024;

/** Brook's single leader is at epoch 0 for every partition. */
const LEADER_EPOCH = 0;

interface Entry {
  readonly groupId: string;
  readonly topicId: string;
  readonly partition: number;
  loading: Promise<SharePartition | ShareFetchPartitionResult> | null;
  partition_: SharePartition | null;
  stateEpoch: number;
}

export class SharePartitionManager {
  readonly sessions: ShareSessionCache;
  /** For the metrics (../metrics/share-metrics.ts). */
  readonly counters: ShareDeliveryCounters;
  private readonly entries = new Map<string, Entry>();
  private readonly lockTimers: KeyedTimers<string>;
  private readonly watched = new WeakSet<AbortSignal>();

  constructor(private readonly options: SharePartitionManagerOptions) {
    this.sessions = new ShareSessionCache(options.maxShareSessions);
    this.counters = options.counters ?? new ShareDeliveryCounters();
    this.lockTimers = new KeyedTimers(options.clock, (key) => this.locksExpired(key));
  }

  /** The key long-poll ShareFetches of a share-partition wait on, woken by appends and released records. */
  static wakeKey(groupId: string, topicId: string, partition: number): string {
    return `\u0000share\u0000${groupId}\u0000${topicId}/${partition}`;
  }

  /**
   * Acquires up to `maxRecords` for `memberId` from `refs`, in order, reading at most
   * `maxBytes`. Records come back as the log's batches (those holding an acquired offset).
   */
  async acquire(groupId: string, memberId: string, refs: readonly (SharePartitionRef & { readonly topic: string | undefined })[], limits: { maxRecords: number; batchSize: number; recordLimit: boolean; maxBytes: number }, allocate: (length: number) => Buffer): Promise<ShareFetchPartitionResult[]> {
    const out: ShareFetchPartitionResult[] = [];
    let records = limits.maxRecords;
    let bytes = Math.min(limits.maxBytes, FETCH_MAX_BYTES);
    // Kafka's uniform PartitionMaxBytesStrategy: each partition reads its share of MaxBytes
    // (at least one batch), so one partition cannot take all and a read stays near what
    // MaxRecords needs.
    const perPartition = Math.max(1, Math.floor(bytes / Math.max(1, refs.length)));
    // The group's isolation level, looked up once per fetch rather than per share-partition.
    const readCommitted = this.options.settings(groupId).readCommitted;
    for (const ref of refs) {
      if (ref.topic === undefined) {
        out.push(failed(ErrorCode.UNKNOWN_TOPIC_ID, null));
        continue;
      }
      const log = this.options.storage.partition(ref.topic, ref.partition);
      if (log === undefined) {
        out.push(failed(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null));
        continue;
      }
      const loaded = await this.load(groupId, ref.topicId, ref.partition, log);
      if (!(loaded instanceof SharePartition)) {
        out.push(loaded);
        continue;
      }
      if (records <= 0 || bytes <= 0) {
        out.push(EMPTY);
        continue;
      }
      const result = this.acquireFrom(groupId, ref, loaded, log, memberId, { ...limits, maxRecords: records, maxBytes: Math.min(bytes, perPartition), readCommitted }, allocate);
      let acquired = 0;
      for (const a of result.acquiredRecords) acquired += a.lastOffset - a.firstOffset + 1;
      records -= acquired;
      if (acquired > 0) this.counters.add(this.counters.acquired, groupId, acquired);
      bytes -= result.bytes;
      out.push(result);
    }
    return out;
  }

  /**
   * Applies a member's acknowledgements to one share-partition and resolves once they are
   * durable: NONE, or the error Kafka answers (INVALID_RECORD_STATE, INVALID_REQUEST, the
   * write's error).
   */
  async acknowledge(groupId: string, memberId: string, topicId: string, topic: string | undefined, partition: number, batches: readonly AcknowledgementBatch[]): Promise<{ errorCode: number; errorMessage: string | null }> {
    const log = topic === undefined ? undefined : this.options.storage.partition(topic, partition);
    if (log === undefined) return { errorCode: topic === undefined ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null };
    // As Kafka's SharePartitionManager.acknowledge: only a share-partition a fetch loaded
    // takes acknowledgements (after a restart the records it held are AVAILABLE again anyway).
    const loaded = this.entries.get(entryKey(groupId, topicId, partition))?.partition_;
    if (loaded == null) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.' };
    let write: StateWrite | null;
    try {
      write = loaded.acknowledge(memberId, batches, this.options.clock.nowMs());
    } catch (err) {
      if (!(err instanceof ShareAcknowledgeError)) throw err;
      return { errorCode: err.errorCode, errorMessage: err.message };
    }
    this.scheduleLocks(groupId, topicId, partition, loaded);
    for (const b of batches) {
      if (b.acknowledgeTypes.length === 1) this.counters.acknowledge(groupId, ACKNOWLEDGE_TYPE_NAMES[b.acknowledgeTypes[0]!]!, b.lastOffset - b.firstOffset + 1);
      else for (const t of b.acknowledgeTypes) this.counters.acknowledge(groupId, ACKNOWLEDGE_TYPE_NAMES[t]!, 1);
    }
    if (write === null) return { errorCode: ErrorCode.NONE, errorMessage: null };
    const result = await this.persistThenDlq(groupId, topicId, partition, loaded, write);
    // Released records become acquirable once durable.
    loaded.completeTransitions(write);
    this.wake(groupId, topicId, partition);
    return result;
  }

  /** Releases every record `memberId` acquired in the group's share-partitions (it left, or closed its session). */
  async releaseMember(groupId: string, memberId: string, refs?: readonly SharePartitionRef[]): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (const entry of this.entries.values()) {
      if (entry.groupId !== groupId || entry.partition_ === null) continue;
      if (refs !== undefined && !refs.some((r) => r.topicId === entry.topicId && r.partition === entry.partition)) continue;
      const write = entry.partition_.releaseAcquiredRecords(memberId);
      if (write === null) continue;
      this.wake(groupId, entry.topicId, entry.partition);
      writes.push(this.persistThenDlq(groupId, entry.topicId, entry.partition, entry.partition_, write));
    }
    await Promise.all(writes);
  }

  settingsOf(groupId: string): ShareGroupSettings {
    return this.options.settings(groupId);
  }

  /**
   * A share session was opened on this connection: when it closes, the member's sessions
   * opened there go and what the member acquired through them is released (Kafka releases a
   * disconnected member's records at once rather than at the end of their locks).
   */
  watchConnection(connection: AbortSignal): void {
    if (this.watched.has(connection)) return;
    this.watched.add(connection);
    connection.addEventListener('abort', () => {
      for (const session of this.sessions.removeConnection(connection)) {
        void this.releaseMember(session.groupId, session.memberId, [...session.partitions.values()]);
      }
    }, { once: true });
  }

  /** Every share-partition in memory (metrics). */
  loadedPartitions(): { groupId: string; topicId: string; partition: number; sharePartition: SharePartition }[] {
    const out = [];
    for (const e of this.entries.values()) if (e.partition_ !== null) out.push({ groupId: e.groupId, topicId: e.topicId, partition: e.partition, sharePartition: e.partition_ });
    return out;
  }

  /** The share-partitions of a group that are in memory (describe, tests). */
  partitionsOf(groupId: string): { topicId: string; partition: number; sharePartition: SharePartition }[] {
    const out = [];
    for (const e of this.entries.values()) if (e.groupId === groupId && e.partition_ !== null) out.push({ topicId: e.topicId, partition: e.partition, sharePartition: e.partition_ });
    return out;
  }

  /** The member left its group or was fenced: its share session goes and what it acquired is released. */
  memberLeft(groupId: string, memberId: string): void {
    this.sessions.removeMember(groupId, memberId);
    void this.releaseMember(groupId, memberId);
  }

  /** Forgets a group's share-partitions (the group was deleted). */
  dropGroup(groupId: string): void {
    for (const [key, e] of this.entries) {
      if (e.groupId !== groupId) continue;
      this.lockTimers.cancel(key);
      this.entries.delete(key);
    }
  }

  close(): void {
    this.lockTimers.stop();
    this.entries.clear();
  }

  private acquireFrom(groupId: string, ref: SharePartitionRef, sp: SharePartition, log: PartitionLog, memberId: string, limits: { maxRecords: number; batchSize: number; recordLimit: boolean; maxBytes: number; readCommitted: boolean }, allocate: (length: number) => Buffer): ShareFetchPartitionResult {
    if (Number(log.logStartOffset) > sp.startOffset) {
      const write = sp.logStartOffsetMoved(Number(log.logStartOffset));
      if (write !== null) void this.persist(groupId, ref.topicId, ref.partition, sp, write);
    }
    const fetchOffset = sp.acquirableFrom();
    if (fetchOffset === null) return EMPTY;
    // read_committed: nothing past the last stable offset (an open transaction's records wait).
    const readCommitted = limits.readCommitted;
    if (fetchOffset >= Number(readCommitted ? log.lastStableOffset : log.highWatermark)) return EMPTY;
    let read;
    try {
      read = log.read(BigInt(fetchOffset), limits.maxBytes, { minOneBatch: true, allocate, readCommitted });
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      return failed(err.errorCode, null);
    }
    const batches: { batch: FetchedBatch; buf: Buffer }[] = [];
    const aborted = abortedBatches(read.abortedTransactions ?? null);
    for (const buf of read.records) {
      let pos = 0;
      while (pos < buf.length) {
        const header = readBatchHeader(buf, pos);
        const batch = { baseOffset: Number(header.baseOffset), lastOffset: Number(header.lastOffset), aborted: aborted(header) };
        batches.push({ batch, buf: buf.subarray(pos, pos + header.sizeInBytes) });
        pos += header.sizeInBytes;
      }
    }
    const acquired = sp.acquire(memberId, batches.map((b) => b.batch), limits.maxRecords, limits.batchSize, limits.recordLimit, this.options.clock.nowMs());
    if (acquired.length === 0) return EMPTY;
    this.scheduleLocks(groupId, ref.topicId, ref.partition, sp);
    // Only the log batches holding an acquired offset go out.
    const records: Buffer[] = [];
    let bytes = 0;
    let a = 0;
    for (const { batch, buf } of batches) {
      while (a < acquired.length && acquired[a]!.lastOffset < batch.baseOffset) a++;
      if (a === acquired.length) break;
      if (acquired[a]!.firstOffset > batch.lastOffset) continue;
      records.push(buf);
      bytes += buf.length;
    }
    return { errorCode: ErrorCode.NONE, errorMessage: null, records, bytes, acquiredRecords: acquired };
  }

  /**
   * Where a share-partition without a start offset begins: by_duration is the first offset
   * at or after now minus the duration, the log's end when none is (as Kafka).
   */
  private resetOffset(reset: ShareAutoOffsetReset, log: PartitionLog): number {
    if (reset === 'earliest') return Number(log.logStartOffset);
    if (reset === 'latest') return Number(log.highWatermark);
    const found = log.offsetForTimestamp(BigInt(this.options.clock.nowMs() - reset.byDurationMs));
    return Number(found?.offset ?? log.highWatermark);
  }

  /** The share-partition, loaded from the share coordinator on first use; or the error answer. */
  private load(groupId: string, topicId: string, partition: number, log: PartitionLog): SharePartition | Promise<SharePartition | ShareFetchPartitionResult> {
    const key = entryKey(groupId, topicId, partition);
    let entry = this.entries.get(key);
    if (entry?.partition_ != null) return entry.partition_;
    if (entry?.loading != null) return entry.loading;
    if (entry === undefined) {
      entry = { groupId, topicId, partition, loading: null, partition_: null, stateEpoch: 0 };
      this.entries.set(key, entry);
    }
    const e = entry;
    e.loading = this.readState(groupId, topicId, partition).then((state) => {
      e.loading = null;
      if (state.errorCode !== ErrorCode.NONE) {
        this.entries.delete(key);
        // Kafka answers the code alone; the share coordinator's reason goes to the log.
        this.options.log.warn('share-partition state could not be read', { groupId, topicId, partition, errorCode: state.errorCode, error: state.errorMessage });
        return failed(state.errorCode, null);
      }
      const settings = this.options.settings(groupId);
      let start = Number(state.startOffset);
      if (start < 0) start = this.resetOffset(settings.autoOffsetReset, log);
      const dlq = this.options.dlq;
      const sp = new SharePartition({ ...settings, deadLetterQueue: () => dlq?.enabled(groupId) ?? false }, start, state.stateBatches);
      e.partition_ = sp;
      e.stateEpoch = state.stateEpoch;
      // Records loaded ARCHIVING were not written to the DLQ yet (Kafka's maybeResumeDlqArchiving).
      this.toDeadLetterQueue(groupId, topicId, partition, sp, sp.dlqBatches());
      return sp;
    }, (err: unknown) => {
      e.loading = null;
      this.entries.delete(key);
      this.options.log.warn('share-partition state could not be read', { groupId, topicId, partition, error: String(err) });
      return failed(ErrorCode.UNKNOWN_SERVER_ERROR, null);
    });
    return e.loading;
  }

  private async readState(groupId: string, topicId: string, partition: number): Promise<{ errorCode: number; errorMessage: string | null; stateEpoch: number; startOffset: bigint; stateBatches: readonly StateBatch[] }> {
    const answer = await this.options.persister.readState({ groupId, topics: [{ topicId, partitions: [{ partition, leaderEpoch: LEADER_EPOCH }] }] });
    const p = answer.results[0]?.partitions[0];
    if (p === undefined) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no answer for the share-partition', stateEpoch: 0, startOffset: -1n, stateBatches: [] };
    return p;
  }

  private async persist(groupId: string, topicId: string, partition: number, sp: SharePartition, write: StateWrite): Promise<{ errorCode: number; errorMessage: string | null }> {
    const key = entryKey(groupId, topicId, partition);
    const entry = this.entries.get(key);
    const stateEpoch = entry?.stateEpoch ?? 0;
    let result: { errorCode: number; errorMessage: string | null };
    try {
      const answer = await this.options.persister.writeState({
        groupId,
        topics: [{ topicId, partitions: [{
          partition, stateEpoch, leaderEpoch: LEADER_EPOCH, startOffset: BigInt(write.startOffset), deliveryCompleteCount: write.deliveryCompleteCount, stateBatches: write.stateBatches,
        }] }],
      });
      const p = answer.results[0]?.partitions[0];
      result = p === undefined ? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no answer for the share-partition' } : { errorCode: p.errorCode, errorMessage: p.errorMessage };
    } catch (err) {
      result = { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: String(err) };
    }
    if (result.errorCode !== ErrorCode.NONE) {
      this.options.log.warn('share-partition state could not be written; reloading it from the share coordinator', {
        groupId, topicId, partition, errorCode: result.errorCode, error: result.errorMessage,
      });
      // Memory ran ahead of what is durable: start again from the durable state.
      const current = this.entries.get(key);
      if (current?.partition_ === sp) {
        this.lockTimers.cancel(key);
        this.entries.delete(key);
      }
    }
    return result;
  }

  private scheduleLocks(groupId: string, topicId: string, partition: number, sp: SharePartition): void {
    const key = entryKey(groupId, topicId, partition);
    const at = sp.nextLockDeadlineMs();
    if (at === null) this.lockTimers.cancel(key);
    else this.lockTimers.schedule(key, at);
  }

  private locksExpired(key: string): void {
    const entry = this.entries.get(key);
    const sp = entry?.partition_;
    if (entry === undefined || sp == null) return;
    const write = sp.expireLocks(this.options.clock.nowMs());
    this.scheduleLocks(entry.groupId, entry.topicId, entry.partition, sp);
    if (write === null) return;
    let released = 0;
    for (const b of write.stateBatches) released += Number(b.lastOffset - b.firstOffset) + 1;
    this.counters.add(this.counters.lockExpired, entry.groupId, released);
    this.wake(entry.groupId, entry.topicId, entry.partition);
    void this.persistThenDlq(entry.groupId, entry.topicId, entry.partition, sp, write);
  }

  /** persist, then the records the write made ARCHIVING go to the dead-letter queue. */
  private async persistThenDlq(groupId: string, topicId: string, partition: number, sp: SharePartition, write: StateWrite): Promise<{ errorCode: number; errorMessage: string | null }> {
    const result = await this.persist(groupId, topicId, partition, sp, write);
    if (result.errorCode === ErrorCode.NONE) this.toDeadLetterQueue(groupId, topicId, partition, sp, sp.dlqBatches(write));
    return result;
  }

  /** Writes DLQ batches to the group's dead-letter queue, each then ARCHIVED unless the share-partition was reloaded meanwhile (it resumes from its durable ARCHIVING records). */
  private toDeadLetterQueue(groupId: string, topicId: string, partition: number, sp: SharePartition, batches: readonly DlqBatch[]): void {
    if (batches.length === 0) return;
    const { storage } = this.options;
    const topic = storage.topicById(topicId)?.name;
    const log = topic === undefined ? undefined : storage.partition(topic, partition);
    const key = entryKey(groupId, topicId, partition);
    writeThenArchive(this.options.dlq, topic === undefined || log === undefined ? undefined : { groupId, topic, partition, log }, batches, this.options.log, async (batch) => {
      if (this.entries.get(key)?.partition_ !== sp) return;
      const write = sp.completeArchiving(batch);
      if (write === null) return;
      // The start offset may have moved: room for new records.
      this.wake(groupId, topicId, partition);
      await this.persist(groupId, topicId, partition, sp, write);
    });
  }

  /** Records became AVAILABLE again: long-poll fetches of the share-partition look again. */
  private wake(groupId: string, topicId: string, partition: number): void {
    this.options.appends.notifyAppend(`\u0000share\u0000${groupId}\u0000${topicId}`, partition);
  }
}

/**
 * For a read_committed read: which batches, taken in log order, hold data of an aborted
 * transaction, from the aborted transactions the read overlaps (a producer id and the first
 * offset of its transaction), as Kafka's consumer and SharePartition tell them: a producer's
 * transactional data from that first offset on is aborted until its control batch (the abort
 * marker) ends the transaction. Read uncommitted (null): none.
 */
function abortedBatches(abortedTransactions: readonly { readonly producerId: bigint; readonly firstOffset: bigint }[] | null): (header: RecordBatchHeader) => boolean {
  if (abortedTransactions === null || abortedTransactions.length === 0) return () => false;
  const pending = [...abortedTransactions].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  const open = new Set<bigint>();
  let next = 0;
  return (header) => {
    while (next < pending.length && pending[next]!.firstOffset <= header.lastOffset) open.add(pending[next++]!.producerId);
    if (!header.isTransactional || !open.has(header.producerId)) return false;
    if (header.isControl) {
      open.delete(header.producerId);
      return false;
    }
    return true;
  };
}

/** Kafka's AcknowledgeType names, by id. */
const ACKNOWLEDGE_TYPE_NAMES = ['GAP', 'ACCEPT', 'RELEASE', 'REJECT', 'RENEW'];

const EMPTY: ShareFetchPartitionResult = { errorCode: ErrorCode.NONE, errorMessage: null, records: [], bytes: 0, acquiredRecords: [] };

function failed(errorCode: number, errorMessage: string | null): ShareFetchPartitionResult {
  return { errorCode, errorMessage, records: [], bytes: 0, acquiredRecords: [] };
}

function entryKey(groupId: string, topicId: string, partition: number): string {
  return `${groupId}\u0000${topicId}\u0000${partition}`;
}
