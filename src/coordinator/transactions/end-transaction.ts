/**
 * The checks of an end of transaction, before anything is written: Kafka 4.4's
 * TransactionCoordinator.endTransactionWithTV1 (a client's EndTxn v0-4) and endTransaction
 * (transaction version 2: EndTxn v5, and the coordinator's own aborts when it fences).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { MAX_PRODUCER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TransactionState, type TransactionMetadata } from './state.js';

export type EndDecision =
  /**
   * Answer at once: an error, or NONE for an end already done (a retry), with the producer id
   * and epoch to go on with (version 2 only; -1 otherwise).
   */
  | { readonly answer: number; readonly producerId: bigint; readonly producerEpoch: number }
  /** Write the PrepareCommit/PrepareAbort transition; noPartitionAdded: an abort with no transaction ongoing. */
  | { readonly prepare: TransactionState; readonly noPartitionAdded: boolean };

const fail = (answer: number): EndDecision => ({ answer, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH });

/** Version 1: the client's epoch must be the transaction's, which the end keeps. */
export function endDecisionV1(txn: TransactionMetadata, producerId: bigint, producerEpoch: number, commit: boolean): EndDecision {
  if (txn.producerId !== producerId) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  if (producerEpoch !== txn.producerEpoch) return fail(ErrorCode.PRODUCER_FENCED);
  if (txn.pending !== null) return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
  switch (txn.state) {
    case TransactionState.Ongoing:
      return { prepare: commit ? TransactionState.PrepareCommit : TransactionState.PrepareAbort, noPartitionAdded: false };
    case TransactionState.CompleteCommit:
      return fail(commit ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE);
    case TransactionState.CompleteAbort:
      return fail(commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.NONE);
    case TransactionState.PrepareCommit:
      return fail(commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
    case TransactionState.PrepareAbort:
      return fail(commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
    default:
      return fail(ErrorCode.INVALID_TXN_STATE);
  }
}

/**
 * Version 2: every end bumps the epoch, so the same epoch means the next end and a retry is
 * told apart by its epoch being one behind the transaction's (retryOnEpochBump), or, after an
 * end that exhausted the epoch moved the producer to a new id, by the previous id at
 * Short.MaxValue - 1 (retryOnOverflow). An abort with nothing ongoing (Empty, Complete*)
 * still ends (and bumps). A pending PrepareEpochFence marks the coordinator's own abort, whose
 * epoch (the fenced one + 1) need only not be older than the transaction's.
 */
export function endDecisionV2(txn: TransactionMetadata, producerId: bigint, producerEpoch: number, commit: boolean, fromClient: boolean): EndDecision {
  const isEpochFence = txn.pending === TransactionState.PrepareEpochFence;
  const retryOnOverflow = !isEpochFence && txn.prevProducerId === producerId && producerEpoch === MAX_PRODUCER_EPOCH - 1 && txn.producerEpoch === 0;
  const retryOnEpochBump = !isEpochFence && txn.producerEpoch === producerEpoch + 1;
  const isRetry = retryOnEpochBump || retryOnOverflow;
  let validEpoch: boolean;
  if (isEpochFence) validEpoch = (!fromClient || producerEpoch === txn.producerEpoch) && producerEpoch >= txn.producerEpoch;
  else if (txn.state === TransactionState.PrepareCommit || txn.state === TransactionState.PrepareAbort) validEpoch = retryOnEpochBump;
  else if (txn.state === TransactionState.CompleteCommit || txn.state === TransactionState.CompleteAbort) validEpoch = isRetry || producerEpoch === txn.producerEpoch;
  else validEpoch = producerEpoch === txn.producerEpoch;
  if (txn.producerId !== producerId && !retryOnOverflow) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  if (!validEpoch) return fail(ErrorCode.PRODUCER_FENCED);
  if (txn.pending !== null && !isEpochFence) return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
  const retried: EndDecision = { answer: ErrorCode.NONE, producerId: txn.producerId, producerEpoch: txn.producerEpoch };
  const abortIdle: EndDecision = { prepare: TransactionState.PrepareAbort, noPartitionAdded: true };
  switch (txn.state) {
    case TransactionState.Ongoing:
      return { prepare: commit ? TransactionState.PrepareCommit : TransactionState.PrepareAbort, noPartitionAdded: false };
    case TransactionState.CompleteCommit:
      if (commit) return isRetry ? retried : fail(ErrorCode.INVALID_TXN_STATE);
      return isRetry ? fail(ErrorCode.INVALID_TXN_STATE) : abortIdle;
    case TransactionState.CompleteAbort:
      if (commit) return fail(ErrorCode.INVALID_TXN_STATE);
      return isRetry ? retried : abortIdle;
    case TransactionState.PrepareCommit:
      return fail(commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
    case TransactionState.PrepareAbort:
      return fail(commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
    case TransactionState.Empty:
      return commit ? fail(ErrorCode.INVALID_TXN_STATE) : abortIdle;
    default:
      return fail(ErrorCode.INVALID_TXN_STATE);
  }
}
