/**
 * The transaction coordinator (src/coordinator/transactions/, a pure state machine) as a
 * shard of the coordinator runtime (coordinator-runtime/), over `__transaction_state`, in
 * the role of Kafka's TransactionStateManager (the log) and TransactionMarkerChannelManager
 * (the markers). The runtime replays the topic at start, appends the coordinator's records
 * (each to its transactional id's partition) and tells it when they are durable, and runs
 * its timers; this service appends the end-transaction markers to the transactions'
 * partitions: through the group coordinator's runtime for `__consumer_offsets` (that topic
 * has one writer), through the storage's normal append for the others.
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
import { ControlRecordType, encodeEndTxnMarkerBatch } from '../protocol/records/index.js';
import { TransactionCoordinator } from '../coordinator/transactions/coordinator.js';
import type { TopicPartition } from '../coordinator/transactions/state.js';
import type { TransactionCoordinatorConfig, TxnMarkers, TxnReply, TxnRequestId, TxnResult } from '../coordinator/transactions/types.js';
import { emptyResult } from '../coordinator/transactions/types.js';
import type { CoordinatorRecord, ResultToken, TimerKey } from '../coordinator/types.js';
import { StorageError } from '../storage/index.js';
import type { Storage } from '../storage/types.js';
import type { Logger } from '../util/log.js';
import { stringHash } from '../util/string-hash.js';
import type { AppendNotifier, Scheduler } from './broker-context.js';
import { CONSUMER_OFFSETS_TOPIC, type GroupCoordinatorService } from './group-coordinator-service.js';
import type { RequestContext } from './handler.js';
import { allocateProducerId } from './producer-ids.js';
import { CoordinatorRuntime } from './coordinator-runtime/runtime.js';
import type { CoordinatorShard, ShardResult } from './coordinator-runtime/shard.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';
const MARKER_RETRY_BACKOFF_MS = 100;

interface TxnShardResult extends ShardResult {
  readonly markers: readonly TxnMarkers[];
}

/**
 * The transaction coordinator in the runtime's terms: its writes become records of their
 * transactional id's partition under one token, settled with each record's outcome
 * (`writeCompleted`); its markers travel with the result for the service to write.
 */
class TransactionShard implements CoordinatorShard<TxnShardResult> {
  private nextToken = 1;
  private readonly writes = new Map<ResultToken, number[]>();

  constructor(readonly coordinator: TransactionCoordinator, private readonly partitionOf: (transactionalId: string) => number) {}

  replay(record: CoordinatorRecord): void {
    this.coordinator.replay(record);
  }

  loaded(nowMs: number): TxnShardResult {
    return this.convert(this.coordinator.loaded(nowMs));
  }

  onTimer(key: TimerKey, nowMs: number): TxnShardResult {
    return this.convert(this.coordinator.onTimer(key, nowMs));
  }

  settle(token: ResultToken, errorCode: number, nowMs: number, recordErrors: readonly number[] | null): TxnShardResult | undefined {
    const writeIds = this.writes.get(token);
    if (writeIds === undefined) return undefined;
    this.writes.delete(token);
    const merged = emptyResult();
    writeIds.forEach((writeId, i) => {
      const r = this.coordinator.writeCompleted(writeId, recordErrors?.[i] ?? errorCode, nowMs);
      merged.replies.push(...r.replies);
      merged.writes.push(...r.writes);
      merged.markers.push(...r.markers);
      merged.timers.push(...r.timers);
    });
    return this.convert(merged);
  }

  call(result: TxnResult): TxnShardResult {
    return this.convert(result);
  }

  private convert(result: TxnResult): TxnShardResult {
    let token: ResultToken | null = null;
    if (result.writes.length > 0) {
      token = this.nextToken++;
      this.writes.set(token, result.writes.map((w) => w.writeId));
    }
    return {
      replies: result.replies.map((reply) => ({ requestId: reply.requestId, response: reply })),
      timers: result.timers,
      records: result.writes.map((w) => ({ key: w.record.key, value: w.record.value, partition: this.partitionOf(w.transactionalId) })),
      token,
      markers: result.markers,
    };
  }
}

export interface TransactionCoordinatorServiceOptions {
  readonly storage: Storage;
  /** The broker's clock: transaction timeouts, id expiration and marker retries run on it. */
  readonly clock: Scheduler;
  readonly log: Logger;
  readonly appends: AppendNotifier;
  /** Writes the markers of `__consumer_offsets`, the one writer of that topic. */
  readonly groups: Pick<GroupCoordinatorService, 'writeTxnMarker'>;
  readonly coordinator: Partial<TransactionCoordinatorConfig>;
  /** `transaction.state.log.num.partitions` */
  readonly numPartitions: number;
  /** `transaction.state.log.segment.bytes` */
  readonly segmentBytes: number;
}

export class TransactionCoordinatorService {
  private readonly runtime: CoordinatorRuntime<TransactionShard, TxnShardResult>;
  private readonly storage: Storage;
  private readonly clock: Scheduler;
  private readonly log: Logger;
  private readonly appends: AppendNotifier;
  private readonly groups: Pick<GroupCoordinatorService, 'writeTxnMarker'>;

  private constructor(options: TransactionCoordinatorServiceOptions) {
    this.storage = options.storage;
    this.clock = options.clock;
    this.log = options.log;
    this.appends = options.appends;
    this.groups = options.groups;
    this.runtime = new CoordinatorRuntime<TransactionShard, TxnShardResult>({
      name: 'transaction coordinator',
      storage: options.storage,
      clock: options.clock,
      log: options.log,
      topic: { name: TRANSACTION_STATE_TOPIC, partitions: options.numPartitions, segmentBytes: options.segmentBytes },
      // Kafka's TransactionStateManager: a transition is applied once its record is durable.
      pipelined: false,
      newShard: () => new TransactionShard(
        new TransactionCoordinator(options.coordinator, () => allocateProducerId(this.storage, this.log)),
        (transactionalId) => this.partitionFor(transactionalId),
      ),
      describeLoaded: (shard) => ({ transactions: Object.fromEntries(shard.coordinator.stateCounts()) }),
      ran: (result) => {
        for (const markers of result.markers) this.runtime.track(this.completeMarkers(this.runtime.shard, markers));
      },
    });
  }

  /** Replays `__transaction_state` (when it exists), completes interrupted transactions, arms the timers. */
  static start(options: TransactionCoordinatorServiceOptions): TransactionCoordinatorService {
    const service = new TransactionCoordinatorService(options);
    service.runtime.load();
    return service;
  }

  /** The transaction coordinator as loaded now. */
  get coordinator(): TransactionCoordinator {
    return this.runtime.shard.coordinator;
  }

  /** Creates `__transaction_state` when missing (FindCoordinator for a transactional id, first write). */
  ensureTopic(): void {
    this.runtime.ensureTopic();
  }

  /**
   * Runs one request through the coordinator; resolves with its reply (after the records it
   * wrote are durable).
   */
  submit(ctx: RequestContext, call: (coordinator: TransactionCoordinator, requestId: TxnRequestId, nowMs: number) => TxnResult): Promise<TxnReply> {
    return this.runtime.submit<TxnReply>(
      ctx.signal,
      (shard, requestId, nowMs) => shard.call(call(shard.coordinator, requestId, nowMs)),
      (errorCode) => ({ requestId: -1, errorCode, producerId: -1n, producerEpoch: -1 }),
      ctx.header.requestApiKey,
    );
  }

  /**
   * Appends a COMMIT or ABORT marker to each partition (WriteTxnMarkers, and the
   * coordinator's own markers); resolves with each partition's error once durable. A marker
   * for `__consumer_offsets` goes through the group coordinator, its one writer, which
   * completes the producer's transactional offsets once it is durable (Kafka's
   * GroupCoordinator.completeTransaction from handleWriteTxnMarkersRequest). The storage
   * refuses a marker of an older producer epoch (under transaction version 2, of any epoch
   * not newer than the producer's), which then completes nothing.
   */
  async writeMarkers(
    producerId: bigint, producerEpoch: number, commit: boolean, coordinatorEpoch: number, transactionVersion: number, partitions: readonly TopicPartition[],
  ): Promise<number[]> {
    return Promise.all(partitions.map(async ({ topic, partition }) => {
      if (topic === CONSUMER_OFFSETS_TOPIC) {
        if (this.storage.partition(topic, partition) === undefined) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        const written = this.groups.writeTxnMarker(producerId, producerEpoch, commit, coordinatorEpoch, transactionVersion);
        this.appends.notifyAppend(topic, partition);
        return written;
      }
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
        return ErrorCode.NONE;
      } catch (err) {
        if (err instanceof StorageError) return err.errorCode;
        this.log.error('transaction marker append failed', { topic, partition, err });
        return ErrorCode.UNKNOWN_SERVER_ERROR;
      }
    }));
  }

  /** Shutdown: timers stop, parked requests get NOT_COORDINATOR; resolves once appends settle. */
  stop(): Promise<void> {
    return this.runtime.stop();
  }

  /** Kafka's partitionFor: abs(transactionalId.hashCode) % partitions. */
  private partitionFor(transactionalId: string): number {
    return (stringHash(transactionalId) & 0x7fffffff) % this.runtime.partitions;
  }

  /**
   * Writes the markers, retrying partitions that failed, then tells the coordinator that
   * sent them (one loaded since a fail-stop sends its own again).
   */
  private async completeMarkers(shard: TransactionShard, markers: TxnMarkers): Promise<void> {
    let todo = markers.partitions;
    while (todo.length > 0 && !this.runtime.isStopped) {
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
      if (todo.length > 0) await this.runtime.backoff(MARKER_RETRY_BACKOFF_MS);
    }
    if (this.runtime.isStopped || this.runtime.shard !== shard) return;
    this.runtime.execute('markers written', () => shard.call(shard.coordinator.markersWritten(markers.markerId)), false);
  }
}
