/**
 * What the transaction coordinator takes and gives: settings, and the result of each call
 * (replies, `__transaction_state` records to append, markers to write, timer changes).
 */
import type { CoordinatorRecord, TimerOp } from '../types.js';
import type { TopicPartition } from './state.js';

export interface TransactionCoordinatorConfig {
  /** `transaction.max.timeout.ms` */
  readonly transactionMaxTimeoutMs: number;
  /** `transactional.id.expiration.ms` */
  readonly transactionalIdExpirationMs: number;
  /** `transaction.abort.timed.out.transaction.cleanup.interval.ms` */
  readonly abortTimedOutTransactionCleanupIntervalMs: number;
  /** `transaction.remove.expired.transaction.cleanup.interval.ms` */
  readonly removeExpiredTransactionalIdsCleanupIntervalMs: number;
}

export const DEFAULT_TRANSACTION_COORDINATOR_CONFIG: TransactionCoordinatorConfig = {
  transactionMaxTimeoutMs: 900_000,
  transactionalIdExpirationMs: 604_800_000,
  abortTimedOutTransactionCleanupIntervalMs: 10_000,
  removeExpiredTransactionalIdsCleanupIntervalMs: 3_600_000,
};

export type TxnRequestId = number;

/** An answer to a request: its error and, for InitProducerId, the producer id and epoch. */
export interface TxnReply {
  readonly requestId: TxnRequestId;
  readonly errorCode: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

/** A record to append; `writeCompleted(writeId, …)` must follow once it is durable or failed. */
export interface TxnWrite {
  readonly writeId: number;
  readonly transactionalId: string;
  readonly record: CoordinatorRecord;
}

/**
 * Markers to append (one COMMIT or ABORT control batch per partition); `markersWritten
 * (markerId, …)` must follow once every partition has its marker (or is gone).
 */
export interface TxnMarkers {
  readonly markerId: number;
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly commit: boolean;
  readonly coordinatorEpoch: number;
  /** The transaction's clientTransactionVersion: from 2 a partition takes the marker only with a newer producer epoch (KIP-1228). */
  readonly transactionVersion: number;
  readonly partitions: readonly TopicPartition[];
}

export interface TxnResult {
  readonly replies: TxnReply[];
  readonly writes: TxnWrite[];
  readonly markers: TxnMarkers[];
  readonly timers: TimerOp[];
}

export function emptyResult(): TxnResult {
  return { replies: [], writes: [], markers: [], timers: [] };
}

/** One transaction as DescribeTransactions reports it. */
export interface TransactionDescription {
  readonly transactionalId: string;
  readonly state: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly transactionTimeoutMs: number;
  /** -1 when no transaction is ongoing. */
  readonly transactionStartTimeMs: number;
  readonly partitions: readonly TopicPartition[];
}

export interface ListTransactionsFilter {
  readonly states: readonly string[];
  readonly producerIds: readonly bigint[];
  /** Only transactions running longer than this (ms); -1: any. */
  readonly durationMs: number;
  /** Only transactional ids this matches in full (ListTransactions v2, KIP-1152); null: any. */
  readonly idPattern?: RegExp | null;
}
