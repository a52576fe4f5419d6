/**
 * What the share coordinator takes and gives: its settings (Kafka's ShareCoordinatorConfig
 * names and defaults), the topics it checks requests against, and the result of each call.
 */
import type { CoordinatorRecord, RequestId, ResultToken, TimerOp } from '../types.js';

export interface ShareCoordinatorConfig {
  /** `share.coordinator.snapshot.update.records.per.snapshot`: ShareUpdate records written between two ShareSnapshots of a share-partition. */
  readonly snapshotUpdateRecordsPerSnapshot: number;
  /**
   * `share.coordinator.cold.partition.snapshot.interval.ms`: a share-partition whose last
   * snapshot is this old gets a new one (snapshotColdPartitions), so that an idle
   * share-partition does not hold the prune point of `__share_group_state` back.
   */
  readonly coldPartitionSnapshotIntervalMs: number;
}

export const DEFAULT_SHARE_COORDINATOR_CONFIG: ShareCoordinatorConfig = {
  snapshotUpdateRecordsPerSnapshot: 500,
  coldPartitionSnapshotIntervalMs: 300_000,
};

/**
 * The broker's topics as the share coordinator sees them (Kafka's metadata image): a topic
 * id's partition count, undefined for a topic that does not exist.
 */
export type TopicPartitionCount = (topicId: string) => number | undefined;

/** Where a record lies in `__share_group_state` (the runtime's RecordPosition). */
export interface LogPosition {
  readonly partition: number;
  readonly offset: bigint;
}

/** A result in the coordinator runtime's terms (its ShardResult), one reply per request. */
export interface ShareStateResult {
  readonly replies: { readonly requestId: RequestId; readonly response: unknown }[];
  readonly timers: TimerOp[];
  readonly records: CoordinatorRecord[];
  readonly token: ResultToken | null;
}

export function emptyShareStateResult(): ShareStateResult {
  return { replies: [], timers: [], records: [], token: null };
}
