/**
 * The runtime around the transaction coordinator (src/coordinator/transactions/, a pure
 * state machine), in the role of Kafka's TransactionStateManager (the log) and
 * TransactionMarkerChannelManager (the markers): it replays `__transaction_state` at start,
 * appends the coordinator's records there and tells it when they are durable, appends the
 * end-transaction markers to the transactions' partitions through the storage's normal
 * append, runs the coordinator's timers and answers the handlers' promises.
 *
 * Deliberate differences from Kafka:
 * - Markers are appended locally (a single node leads every partition), not sent to the
 *   partition leaders in WriteTxnMarkers requests; WriteTxnMarkers itself is served too,
 *   mapped onto the same append (`writeMarkers`).
 * - A marker append that fails with a storage error is retried every 100 ms
 *   (Kafka's retry backoff) until it succeeds; a partition that no longer exists is
 *   dropped, as Kafka drops the partitions of deleted topics.
 */
import { ErrorCode } from '../protocol/errors.js';
import { ControlRecordType, encodeEndTxnMarkerBatch, encodeRecordBatch } from '../protocol/records/index.js';
import { stringHash } from '../coordinator/consumer/java-hash.js';
import { TransactionCoordinator } from '../coordinator/transactions/coordinator.js';
import type { TopicPartition } from '../coordinator/transactions/state.js';
import type { TransactionCoordinatorConfig, TxnMarkers, TxnReply, TxnRequestId, TxnResult } from '../coordinator/transactions/types.js';
import { StorageError } from '../storage/index.js';
import type { Storage } from '../storage/types.js';
import type { Logger } from '../util/log.js';
import type { AppendNotifier, Clock } from './broker-context.js';
import { CONSUMER_OFFSETS_TOPIC, coordinatorError, type CoordinatorRuntime } from './coordinator-runtime.js';
import type { RequestContext } from './handler.js';
import { KeyedTimers } from './keyed-timers.js';
import { allocateProducerId } from './producer-ids.js';
import { readForReplay } from './offsets-replay.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';
const MARKER_RETRY_BACKOFF_MS = 100;
const MIN_SEGMENT_BYTES = 1024 * 1024;

export interface TransactionRuntimeOptions {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly log: Logger;
  readonly appends: AppendNotifier;
  /** Told when a marker is durable in `__consumer_offsets`: the transaction's offsets complete. */
  readonly groups: Pick<CoordinatorRuntime, 'completeTransaction'>;
  readonly coordinator: Partial<TransactionCoordinatorConfig>;
  /** `transaction.state.log.num.partitions` */
  readonly numPartitions: number;
  /** `transaction.state.log.segment.bytes` */
  readonly segmentBytes: number;
}

export class TransactionRuntime {
  readonly coordinator: TransactionCoordinator;
  private readonly storage: Storage;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly appends: AppendNotifier;
  private readonly groups: Pick<CoordinatorRuntime, 'completeTransaction'>;
  private readonly numPartitions: number;
  private readonly segmentBytes: number;
  private readonly timers: KeyedTimers<string>;
  private readonly parked = new Map<TxnRequestId, (reply: TxnReply) => void>();
  private nextRequestId = 1;
  private pending = new Set<Promise<unknown>>();
  private stopped = false;

  private constructor(options: TransactionRuntimeOptions) {
    this.storage = options.storage;
    this.clock = options.clock;
    this.log = options.log;
    this.timers = new KeyedTimers(options.clock, (key) => {
      try {
        this.run(this.coordinator.onTimer(key, this.clock.nowMs()));
      } catch (err) {
        this.log.error('transaction coordinator timer failed', { key, err });
      }
    });
    this.appends = options.appends;
    this.groups = options.groups;
    this.numPartitions = options.numPartitions;
    this.segmentBytes = options.segmentBytes;
    this.coordinator = new TransactionCoordinator(options.coordinator, () => allocateProducerId(this.storage, this.log));
  }

  /** Replays `__transaction_state` (when it exists), completes interrupted transactions, arms the timers. */
  static start(options: TransactionRuntimeOptions): TransactionRuntime {
    const runtime = new TransactionRuntime(options);
    let records = 0;
    const topic = runtime.storage.topic(TRANSACTION_STATE_TOPIC);
    for (let p = 0; p < (topic?.partitions ?? 0); p++) {
      const log = runtime.storage.partition(TRANSACTION_STATE_TOPIC, p);
      if (log === undefined) continue;
      const latest = readForReplay(log);
      for (const record of latest.toReplay()) runtime.coordinator.replay(record);
      records += latest.records;
    }
    runtime.run(runtime.coordinator.loaded(runtime.clock.nowMs()));
    if (records > 0) runtime.log.info('transaction coordinator loaded', { records, transactions: Object.fromEntries(runtime.coordinator.stateCounts()) });
    return runtime;
  }

  /** Creates `__transaction_state` when missing (FindCoordinator for a transactional id, first write). */
  ensureTopic(): void {
    if (this.storage.topic(TRANSACTION_STATE_TOPIC) !== undefined) return;
    const key = this.segmentBytes >= MIN_SEGMENT_BYTES ? 'segment.bytes' : 'internal.segment.bytes';
    this.storage.createTopic(TRANSACTION_STATE_TOPIC, this.numPartitions, { 'cleanup.policy': 'compact', [key]: String(this.segmentBytes) }, { isInternal: true });
    this.log.info('created internal topic', { topic: TRANSACTION_STATE_TOPIC, partitions: this.numPartitions });
  }

  /**
   * Runs one request through the coordinator; resolves with its reply (after the records it
   * wrote are durable).
   */
  submit(ctx: RequestContext, call: (coordinator: TransactionCoordinator, requestId: TxnRequestId, nowMs: number) => TxnResult): Promise<TxnReply> {
    const requestId = this.nextRequestId++;
    return new Promise<TxnReply>((resolve) => {
      const fail = (errorCode: number): void => resolve({ requestId, errorCode, producerId: -1n, producerEpoch: -1 });
      if (this.stopped) return fail(ErrorCode.NOT_COORDINATOR);
      // Every request is answered (each write settles), so a closed connection's entry goes too.
      this.parked.set(requestId, resolve);
      try {
        this.run(call(this.coordinator, requestId, this.clock.nowMs()));
      } catch (err) {
        this.log.error('transaction coordinator failed', { api: ctx.header.requestApiKey, err });
        this.parked.delete(requestId);
        fail(ErrorCode.UNKNOWN_SERVER_ERROR);
      }
    });
  }

  /**
   * Appends a COMMIT or ABORT marker to each partition (WriteTxnMarkers, and the
   * coordinator's own markers); resolves with each partition's error once durable. Every
   * marker goes through here, so this is where a durable marker in `__consumer_offsets`
   * completes the producer's transactional offsets in the group coordinator (Kafka's
   * GroupCoordinator.completeTransaction from handleWriteTxnMarkersRequest). The storage
   * refuses a marker of an older producer epoch (under transaction version 2, of any epoch
   * not newer than the producer's), which then completes nothing.
   */
  async writeMarkers(
    producerId: bigint, producerEpoch: number, commit: boolean, coordinatorEpoch: number, transactionVersion: number, partitions: readonly TopicPartition[],
  ): Promise<number[]> {
    return Promise.all(partitions.map(async ({ topic, partition }) => {
      const log = this.storage.partition(topic, partition);
      if (log === undefined) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      const nowMs = this.clock.nowMs();
      const batch = encodeEndTxnMarkerBatch({
        producerId, producerEpoch, coordinatorEpoch, timestampMs: nowMs, type: commit ? ControlRecordType.Commit : ControlRecordType.Abort,
      });
      try {
        const { durable } = log.append(batch, { nowMs, origin: 'coordinator', transactionVersion });
        this.appends.notifyAppend(topic, partition);
        await durable;
        if (topic === CONSUMER_OFFSETS_TOPIC) this.groups.completeTransaction(producerId, commit);
        return ErrorCode.NONE;
      } catch (err) {
        if (err instanceof StorageError) return err.errorCode;
        this.log.error('transaction marker append failed', { topic, partition, err });
        return ErrorCode.UNKNOWN_SERVER_ERROR;
      }
    }));
  }

  /** Shutdown: timers stop, parked requests get NOT_COORDINATOR; resolves once appends settle. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.stop();
    for (const [requestId, resolve] of this.parked) resolve({ requestId, errorCode: ErrorCode.NOT_COORDINATOR, producerId: -1n, producerEpoch: -1 });
    this.parked.clear();
    await Promise.allSettled([...this.pending]);
  }

  private run(result: TxnResult): void {
    for (const t of result.timers) {
      if ('schedule' in t) this.timers.schedule(t.schedule, t.atMs);
      else this.timers.cancel(t.cancel);
    }
    for (const reply of result.replies) {
      const resolve = this.parked.get(reply.requestId);
      if (resolve === undefined) continue;
      this.parked.delete(reply.requestId);
      resolve(reply);
    }
    for (const write of result.writes) {
      this.track(this.appendRecord(write.transactionalId, write.record.key, write.record.value).then((errorCode) => {
        if (this.stopped) return;
        this.run(this.coordinator.writeCompleted(write.writeId, errorCode, this.clock.nowMs()));
      }));
    }
    for (const markers of result.markers) this.track(this.completeMarkers(markers));
  }

  /** One record into the id's `__transaction_state` partition; resolves with NONE once durable, else the error. */
  private async appendRecord(transactionalId: string, key: Buffer, value: Buffer | null): Promise<number> {
    try {
      this.ensureTopic();
      const partition = this.partitionFor(transactionalId);
      const log = this.storage.partition(TRANSACTION_STATE_TOPIC, partition);
      if (log === undefined) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      const nowMs = this.clock.nowMs();
      const { durable } = log.append(encodeRecordBatch({ records: [{ key, value, timestamp: nowMs }] }), { nowMs, origin: 'coordinator' });
      await durable;
      return ErrorCode.NONE;
    } catch (err) {
      this.log.error('transaction coordinator record not written', { transactionalId, err });
      return err instanceof StorageError ? err.errorCode : coordinatorError(err);
    }
  }

  /** Kafka's partitionFor: abs(transactionalId.hashCode) % partitions. */
  private partitionFor(transactionalId: string): number {
    const partitions = this.storage.topic(TRANSACTION_STATE_TOPIC)?.partitions ?? this.numPartitions;
    return (stringHash(transactionalId) & 0x7fffffff) % partitions;
  }

  /** Writes the markers, retrying partitions that failed, then tells the coordinator. */
  private async completeMarkers(markers: TxnMarkers): Promise<void> {
    let todo = markers.partitions;
    while (todo.length > 0 && !this.stopped) {
      const errors = await this.writeMarkers(markers.producerId, markers.producerEpoch, markers.commit, markers.coordinatorEpoch, markers.transactionVersion, todo);
      const retry: TopicPartition[] = [];
      errors.forEach((errorCode, i) => {
        const tp = todo[i]!;
        if (errorCode === ErrorCode.NONE) return;
        if (errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
          this.log.info('transaction marker skipped: the partition no longer exists', { transactionalId: markers.transactionalId, ...tp });
        } else if (errorCode === ErrorCode.KAFKA_STORAGE_ERROR || errorCode === ErrorCode.NOT_ENOUGH_REPLICAS) {
          retry.push(tp);
        } else {
          // Kafka abandons a marker its partition refuses (e.g. a newer producer epoch there).
          this.log.warn('transaction marker refused', { transactionalId: markers.transactionalId, ...tp, errorCode });
        }
      });
      todo = retry;
      if (todo.length > 0) await new Promise((resolve) => setTimeout(resolve, MARKER_RETRY_BACKOFF_MS).unref());
    }
    if (!this.stopped) this.run(this.coordinator.markersWritten(markers.markerId));
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((err: unknown) => this.log.error('transaction coordinator failed', { err }));
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }
}
