/**
 * The share coordinator's periodic jobs, as Kafka 4.4's ShareCoordinatorService runs them on
 * its timer: `__share_group_state` has `cleanup.policy=delete` and `retention.ms=-1` (it
 * cannot be compacted: a share-partition's state is its last snapshot plus every update
 * after it), so without them it would grow with every acknowledgement and every start would
 * replay all of it.
 *
 * - Prune (`share.coordinator.state.topic.prune.interval.ms`): for each partition of the
 *   topic, the shard's last redundant offset (the lowest offset of a live share-partition's
 *   latest snapshot, ShareCoordinatorOffsetsManager) becomes the log start offset
 *   (DeleteRecords; the segments below it go at the next retention pass). An offset already
 *   pruned to is not asked for again.
 * - Cold snapshots (`share.coordinator.cold.partition.snapshot.interval.ms`): the shard
 *   snapshots the share-partitions whose last snapshot is that old, so that one idle
 *   share-partition does not hold the prune point back forever.
 *
 * Each job runs again an interval after the previous run, on the broker's clock (a test's
 * manual clock moves it); neither runs while the shard is unloaded (fail-stop) or after stop.
 */
import type { Storage } from '../storage/types.js';
import type { Scheduler, TimerHandle } from '../util/clock.js';
import type { Logger } from '../util/log.js';

export interface ShareCoordinatorJobsOptions {
  readonly storage: Storage;
  readonly clock: Scheduler;
  readonly log: Logger;
  readonly topic: string;
  /** `share.coordinator.state.topic.prune.interval.ms` */
  readonly pruneIntervalMs: number;
  /** `share.coordinator.cold.partition.snapshot.interval.ms` */
  readonly coldPartitionSnapshotIntervalMs: number;
  /** False while the shard is unloaded or stopped: the job waits for its next run. */
  active(): boolean;
  /** The shard's last redundant offset of a partition (Kafka's ShareCoordinatorShard.lastRedundantOffset). */
  lastRedundantOffset(partition: number): bigint | undefined;
  /** Runs the shard's snapshotColdPartitions through the runtime (its records are appended). */
  snapshotColdPartitions(): void;
}

export class ShareCoordinatorJobs {
  /** Kafka's lastPrunedOffsets: per partition, the offset the log start was last moved to. */
  private readonly lastPrunedOffsets = new Map<number, bigint>();
  private pruneTimer: TimerHandle | null = null;
  private coldTimer: TimerHandle | null = null;
  private stopped = false;

  constructor(private readonly options: ShareCoordinatorJobsOptions) {}

  /** Kafka's setupPeriodicJobs: the first runs an interval from now. */
  start(): void {
    this.schedulePrune();
    this.scheduleColdSnapshots();
  }

  stop(): void {
    this.stopped = true;
    this.pruneTimer?.cancel();
    this.coldTimer?.cancel();
  }

  /** Kafka's performRecordPruning, for every partition of the topic. */
  prune(): void {
    const { storage, topic, log } = this.options;
    if (!this.options.active()) return;
    const partitions = storage.topic(topic)?.partitions ?? 0;
    for (let p = 0; p < partitions; p++) {
      const offset = this.options.lastRedundantOffset(p);
      if (offset === undefined || this.lastPrunedOffsets.get(p) === offset) continue;
      const partitionLog = storage.partition(topic, p);
      if (partitionLog === undefined) continue;
      try {
        const { durable } = partitionLog.deleteRecords(offset);
        // Recorded once the new log start is durable, as Kafka records it once DeleteRecords
        // completed: a failed checkpoint is tried again at the next run.
        durable.then(
          () => this.lastPrunedOffsets.set(p, offset),
          (err: unknown) => log.warn('pruning the share-group state topic failed', { topic, partition: p, offset, err }),
        );
        log.debug('pruned the share-group state topic', { topic, partition: p, offset });
      } catch (err) {
        log.error('pruning the share-group state topic failed', { topic, partition: p, offset, err });
      }
    }
  }

  private schedulePrune(): void {
    if (this.stopped) return;
    this.pruneTimer = this.options.clock.schedule(this.options.pruneIntervalMs, () => {
      this.prune();
      this.schedulePrune();
    });
  }

  private scheduleColdSnapshots(): void {
    if (this.stopped) return;
    this.coldTimer = this.options.clock.schedule(this.options.coldPartitionSnapshotIntervalMs, () => {
      if (this.options.active()) this.options.snapshotColdPartitions();
      this.scheduleColdSnapshots();
    });
  }
}
