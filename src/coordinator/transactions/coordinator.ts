/**
 * The transaction coordinator, after Kafka 4.4's TransactionCoordinator and
 * TransactionStateManager, as a pure state machine: each call takes the time and returns
 * a TxnResult; the runtime appends the writes to `__transaction_state`, appends the markers
 * to the transaction's partitions, runs the timers, and reports back (writeCompleted,
 * markersWritten, onTimer). Transaction version 1 (the client adds every partition; EndTxn
 * does not bump the epoch) and 2 (KIP-890: Produce and TxnOffsetCommit add their partition
 * themselves, through addPartitions with version 2; every EndTxn bumps the epoch, see
 * endTransactionV2). It runs as a shard of the coordinator runtime
 * (src/broker/transaction-coordinator-service.ts); its files and Kafka counterparts:
 * docs/ARCHITECTURE.md, "Transaction coordinator".
 */
import { ErrorCode } from '../../protocol/errors.js';
import { appendErrorToResponseError } from '../append-errors.js';
import type { CoordinatorRecord } from '../types.js';
import { endDecisionV1, endDecisionV2 } from './end-transaction.js';
import { decodeTransactionRecord, encodeTransactionRecord } from './records.js';
import {
  isEpochExhausted, MAX_PRODUCER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, partitionKey, STATE_NAMES,
  TRANSACTION_VERSION_2, TransactionMetadata, TransactionState, type TopicPartition, type TransitMetadata,
} from './state.js';
import {
  DEFAULT_TRANSACTION_COORDINATOR_CONFIG, emptyResult, type ListTransactionsFilter, type TransactionCoordinatorConfig,
  type TransactionDescription, type TxnRequestId, type TxnResult,
} from './types.js';

export const ABORT_TIMED_OUT_KEY = 'abort-timed-out-transactions';
export const EXPIRE_IDS_KEY = 'expire-transactional-ids';
/** Retry of a Complete(Commit|Abort) record whose append failed (Kafka re-enqueues it). */
const COMPLETE_RETRY_PREFIX = 'complete-retry:';
const COMPLETE_RETRY_BACKOFF_MS = 500;

export interface InitProducerIdInput {
  readonly transactionalId: string;
  readonly transactionTimeoutMs: number;
  /** KIP-360: the producer's current id and epoch, or -1 / -1. */
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

export interface TxnInput {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

type WriteDone = (errorCode: number, result: TxnResult, nowMs: number) => void;

interface PendingWrite {
  readonly txn: TransactionMetadata;
  readonly transit: TransitMetadata;
  readonly done: WriteDone;
}

interface PendingMarkers {
  readonly txn: TransactionMetadata;
  /** The Complete(Commit|Abort) transition prepared when the markers went out. */
  readonly complete: TransitMetadata;
}

function answer(result: TxnResult, requestId: TxnRequestId, errorCode: number, producerId = NO_PRODUCER_ID, producerEpoch = NO_PRODUCER_EPOCH): void {
  result.replies.push({ requestId, errorCode, producerId, producerEpoch });
}

export class TransactionCoordinator {
  private readonly config: TransactionCoordinatorConfig;
  private readonly txns = new Map<string, TransactionMetadata>();
  private readonly writes = new Map<number, PendingWrite>();
  private readonly markers = new Map<number, PendingMarkers>();
  private nextWriteId = 1;
  private nextMarkerId = 1;
  private isLoaded = false;

  /**
   * @param allocateProducerId a producer id never used before, or null when none can be had
   *   now (answered COORDINATOR_LOAD_IN_PROGRESS, retriable, as Brook's idempotent path)
   * @param coordinatorEpoch written into the markers (Kafka: the `__transaction_state`
   *   partition's leader epoch; a single node keeps 0)
   */
  constructor(
    config: Partial<TransactionCoordinatorConfig>,
    private readonly allocateProducerId: () => bigint | null,
    readonly coordinatorEpoch = 0,
  ) {
    this.config = { ...DEFAULT_TRANSACTION_COORDINATOR_CONFIG, ...config };
  }

  /** Start-up: one `__transaction_state` record, in log order (the latest per id wins). */
  replay(record: CoordinatorRecord): void {
    const { transactionalId, transit } = decodeTransactionRecord(record.key, record.value);
    if (transit === null) {
      this.txns.delete(transactionalId);
      return;
    }
    const existing = this.txns.get(transactionalId);
    if (existing === undefined) this.txns.set(transactionalId, new TransactionMetadata(transactionalId, transit));
    else {
      existing.pending = null;
      existing.complete(transit);
    }
  }

  /**
   * After replay, as Kafka's TransactionStateManager.loadTransactionsForTxnTopicPartition:
   * transactions caught in PrepareCommit/PrepareAbort get their markers (again) and then
   * their Complete record; Ongoing ones are left to the timeout. Arms the periodic timers.
   */
  loaded(nowMs: number): TxnResult {
    const result = emptyResult();
    this.isLoaded = true;
    for (const txn of this.txns.values()) {
      if (txn.state === TransactionState.PrepareCommit || txn.state === TransactionState.PrepareAbort) this.sendMarkers(txn, nowMs, result);
    }
    result.timers.push({ schedule: ABORT_TIMED_OUT_KEY, atMs: nowMs + this.config.abortTimedOutTransactionCleanupIntervalMs });
    result.timers.push({ schedule: EXPIRE_IDS_KEY, atMs: nowMs + this.config.removeExpiredTransactionalIdsCleanupIntervalMs });
    return result;
  }

  /** Kafka's handleInitProducerId for a transactional id. */
  initProducerId(requestId: TxnRequestId, input: InitProducerIdInput, nowMs: number): TxnResult {
    const result = emptyResult();
    const reply = (errorCode: number): void => answer(result, requestId, errorCode);
    if (input.transactionalId === '') return reply(ErrorCode.INVALID_REQUEST), result;
    if (input.transactionTimeoutMs <= 0 || input.transactionTimeoutMs > this.config.transactionMaxTimeoutMs) {
      return reply(ErrorCode.INVALID_TRANSACTION_TIMEOUT), result;
    }
    if (!this.isLoaded) return reply(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS), result;
    let txn = this.txns.get(input.transactionalId);
    if (txn === undefined) {
      const producerId = this.allocateProducerId();
      if (producerId === null) return reply(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS), result;
      txn = new TransactionMetadata(input.transactionalId, {
        producerId, prevProducerId: NO_PRODUCER_ID, nextProducerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH,
        lastProducerEpoch: NO_PRODUCER_EPOCH, txnTimeoutMs: input.transactionTimeoutMs, state: TransactionState.Empty,
        partitions: new Map(), txnStartTimestamp: -1, txnLastUpdateTimestamp: nowMs, clientTransactionVersion: 0,
      });
      this.txns.set(input.transactionalId, txn);
    }
    const expected = input.producerId === NO_PRODUCER_ID ? null : { producerId: input.producerId, epoch: input.producerEpoch };
    if (txn.pending !== null) return reply(ErrorCode.CONCURRENT_TRANSACTIONS), result;
    // isValidProducerId: a just-created id, the current id, or the previous one retried after exhausting its epochs.
    if (expected !== null && !(txn.producerEpoch === NO_PRODUCER_EPOCH || expected.producerId === txn.producerId ||
      (expected.producerId === txn.prevProducerId && isEpochExhausted(expected.epoch)))) {
      return reply(ErrorCode.PRODUCER_FENCED), result;
    }
    switch (txn.state) {
      case TransactionState.PrepareAbort:
      case TransactionState.PrepareCommit:
        return reply(ErrorCode.CONCURRENT_TRANSACTIONS), result;
      case TransactionState.Ongoing: {
        // Abort the ongoing transaction under a bumped epoch (fencing its producer), and have
        // this producer retry: its retry bumps the epoch once more.
        const fenced = this.fenceAndAbort(txn, nowMs, result, (errorCode, later) => {
          answer(later, requestId, errorCode === ErrorCode.NONE ? ErrorCode.CONCURRENT_TRANSACTIONS : errorCode);
        });
        if (fenced !== ErrorCode.NONE) reply(fenced);
        return result;
      }
      case TransactionState.Empty:
      case TransactionState.CompleteAbort:
      case TransactionState.CompleteCommit: {
        let transit: TransitMetadata;
        if (txn.isProducerEpochExhausted) {
          const producerId = this.allocateProducerId();
          if (producerId === null) return reply(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS), result;
          transit = txn.prepare({
            state: TransactionState.Empty, producerId, producerEpoch: 0,
            lastProducerEpoch: expected !== null ? txn.producerEpoch : NO_PRODUCER_EPOCH,
            txnTimeoutMs: input.transactionTimeoutMs, partitions: new Map(), txnStartTimestamp: -1, txnLastUpdateTimestamp: nowMs,
          });
        } else {
          // prepareIncrementProducerEpoch: a retry of the request that bumped the epoch gets that epoch again.
          let epoch = txn.producerEpoch + 1;
          let lastEpoch = NO_PRODUCER_EPOCH;
          if (expected !== null) {
            if (txn.producerEpoch === NO_PRODUCER_EPOCH || expected.epoch === txn.producerEpoch) lastEpoch = txn.producerEpoch;
            else if (expected.epoch === txn.lastProducerEpoch) {
              epoch = txn.producerEpoch;
              lastEpoch = txn.lastProducerEpoch;
            } else return reply(ErrorCode.PRODUCER_FENCED), result;
          }
          transit = txn.prepare({
            state: TransactionState.Empty, producerEpoch: epoch, lastProducerEpoch: lastEpoch,
            txnTimeoutMs: input.transactionTimeoutMs, partitions: new Map(), txnStartTimestamp: -1, txnLastUpdateTimestamp: nowMs,
          });
        }
        this.write(txn, transit, result, (errorCode, later) => {
          if (errorCode === ErrorCode.NONE) answer(later, requestId, ErrorCode.NONE, transit.producerId, transit.producerEpoch);
          else answer(later, requestId, errorCode);
        });
        return result;
      }
      default:
        return reply(ErrorCode.CONCURRENT_TRANSACTIONS), result;
    }
  }

  /**
   * Kafka's handleAddPartitionsToTransaction: the client's AddPartitionsToTxn and
   * AddOffsetsToTxn (clientTransactionVersion 0), or under transaction version 2 the
   * implicit add of a Produce v12 or TxnOffsetCommit v5 (2).
   */
  addPartitions(requestId: TxnRequestId, input: TxnInput, partitions: readonly TopicPartition[], nowMs: number, clientTransactionVersion = 0): TxnResult {
    const result = emptyResult();
    const reply = (errorCode: number): void => answer(result, requestId, errorCode);
    const txn = this.lookup(input.transactionalId, reply);
    if (txn === undefined) return result;
    if (txn.producerId !== input.producerId) return reply(ErrorCode.INVALID_PRODUCER_ID_MAPPING), result;
    if (txn.producerEpoch !== input.producerEpoch) return reply(ErrorCode.PRODUCER_FENCED), result;
    if (txn.pending !== null || txn.state === TransactionState.PrepareCommit || txn.state === TransactionState.PrepareAbort) {
      return reply(ErrorCode.CONCURRENT_TRANSACTIONS), result;
    }
    if (txn.state === TransactionState.Ongoing && partitions.every((p) => txn.partitions.has(partitionKey(p.topic, p.partition)))) {
      return reply(ErrorCode.NONE), result;
    }
    const merged = new Map(txn.partitions);
    for (const p of partitions) merged.set(partitionKey(p.topic, p.partition), { topic: p.topic, partition: p.partition });
    const starting = txn.state !== TransactionState.Ongoing;
    const transit = txn.prepare({
      state: TransactionState.Ongoing, partitions: merged,
      txnStartTimestamp: starting ? nowMs : txn.txnStartTimestamp, txnLastUpdateTimestamp: nowMs, clientTransactionVersion,
    });
    this.write(txn, transit, result, (errorCode, later) => answer(later, requestId, errorCode));
    return result;
  }

  /**
   * Kafka's handleVerifyPartitionsInTransaction (KIP-890 part 1): each partition's answer to
   * "is it in the transaction of this producer id and epoch?", asked before a transactional
   * append (Produce, TxnOffsetCommit). Reads only. TRANSACTION_ABORTABLE for a partition not
   * added; pending transitions are not looked at (Kafka leaves that to the append).
   */
  verifyPartitions(input: TxnInput, partitions: readonly TopicPartition[]): number[] {
    const all = (errorCode: number): number[] => partitions.map(() => errorCode);
    if (input.transactionalId === '') return all(ErrorCode.INVALID_REQUEST);
    if (!this.isLoaded) return all(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    const txn = this.txns.get(input.transactionalId);
    if (txn === undefined || txn.producerId !== input.producerId) return all(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if (txn.producerEpoch !== input.producerEpoch) return all(ErrorCode.PRODUCER_FENCED);
    if (txn.state === TransactionState.PrepareCommit || txn.state === TransactionState.PrepareAbort) return all(ErrorCode.CONCURRENT_TRANSACTIONS);
    return partitions.map((p) => (txn.partitions.has(partitionKey(p.topic, p.partition)) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE));
  }

  /**
   * Kafka's handleEndTransaction for a client's EndTxn: transaction version 1 (v0-4), or 2
   * (v5, clientTransactionVersion 2), whose reply carries the producer id and epoch to use next.
   */
  endTxn(requestId: TxnRequestId, input: TxnInput, commit: boolean, nowMs: number, clientTransactionVersion = 0): TxnResult {
    const result = emptyResult();
    const reply = (errorCode: number): void => answer(result, requestId, errorCode);
    const txn = this.lookup(input.transactionalId, reply);
    if (txn === undefined) return result;
    if (clientTransactionVersion >= TRANSACTION_VERSION_2) {
      const error = this.endTransactionV2(txn, input.producerId, input.producerEpoch, commit, true, nowMs, result, (errorCode, later, id, epoch) => {
        answer(later, requestId, errorCode, id, epoch);
      });
      if (error !== null) answer(result, requestId, error.answer, error.producerId, error.producerEpoch);
      return result;
    }
    const error = this.endTransaction(txn, input.producerId, input.producerEpoch, commit, nowMs, result, (errorCode, later) => {
      answer(later, requestId, errorCode);
    });
    if (error !== null) reply(error);
    return result;
  }

  /** A write's record is durable (NONE) or failed (the append's error code, mapped as append-errors.ts maps it). */
  writeCompleted(writeId: number, errorCode: number, nowMs: number): TxnResult {
    const result = emptyResult();
    const pending = this.writes.get(writeId);
    if (pending === undefined) return result;
    this.writes.delete(writeId);
    const { txn, transit } = pending;
    if (errorCode === ErrorCode.NONE) {
      txn.complete(transit);
      if (transit.state === TransactionState.Dead && this.txns.get(txn.transactionalId) === txn) this.txns.delete(txn.transactionalId);
    } else {
      txn.pending = null;
    }
    pending.done(appendErrorToResponseError(errorCode), result, nowMs);
    return result;
  }

  /** Every partition of a TxnMarkers has its marker: the transaction completes. */
  markersWritten(markerId: number): TxnResult {
    const result = emptyResult();
    const pending = this.markers.get(markerId);
    if (pending === undefined) return result;
    this.markers.delete(markerId);
    this.writeComplete(pending.txn, pending.complete, result);
    return result;
  }

  onTimer(key: string, nowMs: number): TxnResult {
    const result = emptyResult();
    if (key === ABORT_TIMED_OUT_KEY) {
      this.abortTimedOutTransactions(nowMs, result);
      result.timers.push({ schedule: ABORT_TIMED_OUT_KEY, atMs: nowMs + this.config.abortTimedOutTransactionCleanupIntervalMs });
    } else if (key === EXPIRE_IDS_KEY) {
      this.removeExpiredTransactionalIds(nowMs, result);
      result.timers.push({ schedule: EXPIRE_IDS_KEY, atMs: nowMs + this.config.removeExpiredTransactionalIdsCleanupIntervalMs });
    } else if (key.startsWith(COMPLETE_RETRY_PREFIX)) {
      const txn = this.txns.get(key.slice(COMPLETE_RETRY_PREFIX.length));
      if (txn !== undefined && (txn.state === TransactionState.PrepareCommit || txn.state === TransactionState.PrepareAbort) && txn.pending === null) {
        this.writeComplete(txn, txn.prepareComplete(nowMs), result);
      }
    }
    return result;
  }

  describe(transactionalId: string): TransactionDescription | null {
    const txn = this.txns.get(transactionalId);
    if (txn === undefined || txn.state === TransactionState.Dead) return null;
    return {
      transactionalId,
      state: STATE_NAMES[txn.state],
      producerId: txn.producerId,
      producerEpoch: txn.producerEpoch,
      transactionTimeoutMs: txn.txnTimeoutMs,
      transactionStartTimeMs: txn.txnStartTimestamp,
      partitions: [...txn.partitions.values()],
    };
  }

  /**
   * Kafka's listTransactionStates: filters combine with AND; an empty filter matches all.
   * The duration filter, as Kafka's, compares the start of the last transaction whatever the
   * state: an id without one (start -1, e.g. Empty after InitProducerId) always passes it.
   */
  list(filter: ListTransactionsFilter, nowMs: number): TransactionDescription[] {
    const out: TransactionDescription[] = [];
    for (const txn of this.txns.values()) {
      if (txn.state === TransactionState.Dead) continue;
      if (filter.states.length > 0 && !filter.states.includes(STATE_NAMES[txn.state])) continue;
      if (filter.producerIds.length > 0 && !filter.producerIds.includes(txn.producerId)) continue;
      if (filter.durationMs >= 0 && nowMs - txn.txnStartTimestamp <= filter.durationMs) continue;
      if (filter.idPattern != null && !filter.idPattern.test(txn.transactionalId)) continue;
      out.push(this.describe(txn.transactionalId)!);
    }
    return out;
  }

  get loadInProgress(): boolean {
    return !this.isLoaded;
  }

  /** The transactions' count by state name (metrics, logs, tests). */
  stateCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const txn of this.txns.values()) counts.set(STATE_NAMES[txn.state], (counts.get(STATE_NAMES[txn.state]) ?? 0) + 1);
    return counts;
  }

  private lookup(transactionalId: string, reply: (errorCode: number) => void): TransactionMetadata | undefined {
    if (transactionalId === '') return reply(ErrorCode.INVALID_REQUEST), undefined;
    if (!this.isLoaded) return reply(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS), undefined;
    const txn = this.txns.get(transactionalId);
    if (txn === undefined) reply(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    return txn;
  }

  /**
   * A client's EndTxn under transaction version 1 (endDecisionV1). Returns an error to answer
   * at once, or null when `done` answers after the Prepare record is written (then the
   * markers go out under the same epoch).
   */
  private endTransaction(
    txn: TransactionMetadata, producerId: bigint, producerEpoch: number, commit: boolean,
    nowMs: number, result: TxnResult, done: (errorCode: number, later: TxnResult) => void,
  ): number | null {
    const decision = endDecisionV1(txn, producerId, producerEpoch, commit);
    if ('answer' in decision) return decision.answer;
    const transit = txn.prepare({ state: decision.prepare, txnLastUpdateTimestamp: nowMs });
    this.write(txn, transit, result, (errorCode, later, at) => {
      done(errorCode, later);
      if (errorCode === ErrorCode.NONE) this.sendMarkers(txn, at, later);
    });
    return null;
  }

  /**
   * An end under transaction version 2 (endDecisionV2), as Kafka 4.4's endTransaction: the
   * Prepare transition bumps the epoch (prepareAbortOrCommit), and one that exhausts it gets
   * the producer id its Complete transition moves to. Returns what to answer at once, or
   * null when `done` answers after the Prepare record is written, with the Complete
   * transition's id and epoch.
   */
  private endTransactionV2(
    txn: TransactionMetadata, producerId: bigint, producerEpoch: number, commit: boolean, fromClient: boolean, nowMs: number,
    result: TxnResult, done: (errorCode: number, later: TxnResult, producerId: bigint, producerEpoch: number) => void,
  ): { answer: number; producerId: bigint; producerEpoch: number } | null {
    const isEpochFence = txn.pending === TransactionState.PrepareEpochFence;
    const decision = endDecisionV2(txn, producerId, producerEpoch, commit, fromClient);
    if ('answer' in decision) return decision;
    let nextProducerId = NO_PRODUCER_ID;
    if (!isEpochFence && txn.isProducerEpochExhausted) {
      const allocated = this.allocateProducerId();
      if (allocated === null) return { answer: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
      nextProducerId = allocated;
    }
    // The fence's abort takes the place of the pending fence; its bump is prepareAbortOrCommit's.
    if (isEpochFence) txn.pending = null;
    const transit = txn.prepareAbortOrCommit(decision.prepare, TRANSACTION_VERSION_2, nextProducerId, nowMs, decision.noPartitionAdded);
    this.write(txn, transit, result, (errorCode, later, at) => {
      if (errorCode !== ErrorCode.NONE) {
        if (isEpochFence) txn.hasFailedEpochFence = true;
        return done(errorCode, later, NO_PRODUCER_ID, NO_PRODUCER_EPOCH);
      }
      txn.hasFailedEpochFence = false;
      const next = this.sendMarkers(txn, at, later);
      done(ErrorCode.NONE, later, next.producerId, next.producerEpoch);
    });
    return null;
  }

  /**
   * prepareFenceProducerEpoch then an abort (InitProducerId over an ongoing transaction, and
   * timed-out transactions). Kafka 4.4 runs this abort through transaction version 2's
   * endTransaction whatever the client's version, since its broker finalizes
   * transaction.version 2 (as Brook's does): the PrepareAbort is written at epoch + 1 with
   * the fenced epoch kept as the last one. A fence whose write failed is not bumped again
   * (that epoch never reached a client).
   */
  private fenceAndAbort(txn: TransactionMetadata, nowMs: number, result: TxnResult, done: (errorCode: number, later: TxnResult) => void): number {
    const epoch = txn.producerEpoch >= MAX_PRODUCER_EPOCH || txn.hasFailedEpochFence ? txn.producerEpoch : txn.producerEpoch + 1;
    txn.pending = TransactionState.PrepareEpochFence;
    const failed = this.endTransactionV2(txn, txn.producerId, epoch, false, false, nowMs, result, (errorCode, later) => done(errorCode, later));
    if (failed !== null && txn.pending === TransactionState.PrepareEpochFence) txn.pending = null;
    return failed?.answer ?? ErrorCode.NONE;
  }

  /** The markers of a prepared end, under its (bumped) epoch; returns the Complete transition to follow them. */
  private sendMarkers(txn: TransactionMetadata, nowMs: number, result: TxnResult): TransitMetadata {
    const commit = txn.state === TransactionState.PrepareCommit;
    const partitions = [...txn.partitions.values()];
    const complete = txn.prepareComplete(nowMs);
    const markerId = this.nextMarkerId++;
    this.markers.set(markerId, { txn, complete });
    result.markers.push({
      markerId, transactionalId: txn.transactionalId, producerId: txn.producerId, producerEpoch: txn.producerEpoch,
      commit, coordinatorEpoch: this.coordinatorEpoch, transactionVersion: txn.clientTransactionVersion, partitions,
    });
    return complete;
  }

  /** Appends the prepared Complete record; a failed append is retried after a backoff (Kafka re-enqueues it). */
  private writeComplete(txn: TransactionMetadata, complete: TransitMetadata, result: TxnResult): void {
    this.write(txn, complete, result, (errorCode, later, at) => {
      if (errorCode === ErrorCode.NONE) return;
      later.timers.push({ schedule: COMPLETE_RETRY_PREFIX + txn.transactionalId, atMs: at + COMPLETE_RETRY_BACKOFF_MS });
    });
  }

  private write(txn: TransactionMetadata, transit: TransitMetadata, result: TxnResult, done: WriteDone): void {
    const writeId = this.nextWriteId++;
    this.writes.set(writeId, { txn, transit, done });
    result.writes.push({ writeId, transactionalId: txn.transactionalId, record: encodeTransactionRecord(txn.transactionalId, transit) });
  }

  /** Kafka's abortTimedOutTransactions: Ongoing past its timeout, nothing pending. */
  private abortTimedOutTransactions(nowMs: number, result: TxnResult): void {
    for (const txn of this.txns.values()) {
      if (txn.state !== TransactionState.Ongoing || txn.pending !== null || txn.txnStartTimestamp + txn.txnTimeoutMs >= nowMs) continue;
      this.fenceAndAbort(txn, nowMs, result, () => {});
    }
  }

  /** Kafka's removeExpiredTransactionalIds: idle, finished ids older than transactional.id.expiration.ms. */
  private removeExpiredTransactionalIds(nowMs: number, result: TxnResult): void {
    for (const txn of this.txns.values()) {
      const finished = txn.state === TransactionState.Empty || txn.state === TransactionState.CompleteCommit || txn.state === TransactionState.CompleteAbort;
      if (!finished || txn.pending !== null || txn.txnLastUpdateTimestamp + this.config.transactionalIdExpirationMs > nowMs) continue;
      this.write(txn, txn.prepareDead(), result, () => {});
    }
  }
}
