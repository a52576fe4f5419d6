/**
 * The values a share-partition (share-partition.ts) takes and gives: record states and
 * acknowledge types with Kafka's ids, its settings, the log batches it acquires from, the
 * AcquiredRecords it hands out, the state writes it asks for, and its acknowledgement error.
 */
import type { StateBatch } from '../../coordinator/share-state/state-batches.js';

/**
 * ARCHIVING: archived, but first written to the group's dead-letter queue topic (KIP-1191);
 * persisted as such, so a share-partition loaded again resumes the write.
 */
export const RecordState = { AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVING: 3, ARCHIVED: 4 } as const;
export type RecordState = (typeof RecordState)[keyof typeof RecordState];

/** ShareFetch/ShareAcknowledge acknowledge types. */
export const AcknowledgeType = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const;

export interface SharePartitionSettings {
  /** group.share.delivery.count.limit: a record delivered this often is archived instead of made available again. */
  readonly deliveryCountLimit: number;
  /** group.share.partition.max.record.locks: in-flight records beyond which no new record is acquired. */
  readonly maxInFlightRecords: number;
  /** group.share.record.lock.duration.ms */
  readonly recordLockDurationMs: number;
  /**
   * Whether the group has a dead-letter queue topic (errors.deadletterqueue.topic.name): a
   * rejected record, or one at the delivery count limit, is then ARCHIVING until written
   * there. Asked at each archive, as Kafka reads the group config then.
   */
  readonly deadLetterQueue?: () => boolean;
}

/** Why records go to the dead-letter queue: rejected by a member, or delivered as often as allowed. */
export type DlqCause = 'reject' | 'limit';

/** A run of ARCHIVING records with one delivery count and cause (Kafka's DlqBatch). */
export interface DlqBatch {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly deliveryCount: number;
  readonly cause: DlqCause;
}

/** A log batch read for acquisition: its offsets, inclusive. */
export interface FetchedBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /**
   * Data of an aborted transaction, read for a read_committed share group: its records are
   * ARCHIVED, never delivered (Kafka's filterAbortedTransactionalAcquiredRecords).
   */
  readonly aborted?: boolean;
}

/** ShareFetchResponse's AcquiredRecords. */
export interface AcquiredRecords {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly deliveryCount: number;
}

/** What must be durable: the start offset and the offsets whose state changed. */
export interface StateWrite {
  readonly startOffset: number;
  readonly stateBatches: StateBatch[];
  /**
   * Records at or after the start offset whose delivery is complete (ACKNOWLEDGED or
   * ARCHIVED): WriteShareGroupState's DeliveryCompleteCount, from which the share-group lag
   * is computed (high watermark - start offset - this).
   */
  readonly deliveryCompleteCount: number;
}

export interface AcknowledgementBatch {
  readonly firstOffset: number;
  readonly lastOffset: number;
  /** One type for the whole batch, or one per offset. */
  readonly acknowledgeTypes: readonly number[];
}

export class ShareAcknowledgeError extends Error {
  readonly code = 'SHARE_ACKNOWLEDGE_ERROR';
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

