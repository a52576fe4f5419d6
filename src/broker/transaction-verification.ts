/**
 * Transaction verification (KIP-890 part 1), on as in Kafka by default
 * (transaction.partition.verification.enable): before a transactional producer's first
 * append to a partition in a transaction (a Produce batch, or TxnOffsetCommit's offsets in
 * `__consumer_offsets`), the partition leader asks the transaction coordinator whether the
 * partition was added to the transaction, so data written outside any transaction the
 * coordinator will end cannot leave a hanging transaction. Kafka sends AddPartitionsToTxn
 * v4 (verifyOnly) to the coordinator; Brook's coordinator is in-process and answers directly.
 *
 * As Kafka's ReplicaManager.maybeStartTransactionVerificationForPartitions: a partition
 * where the producer (at that epoch) already has an open transaction needs no verification
 * (UnifiedLog.maybeStartTransactionVerification); the coordinator's errors reach the
 * client as AddPartitionsToTxnManager maps them: PRODUCER_FENCED becomes
 * INVALID_PRODUCER_EPOCH, TRANSACTION_ABORTABLE becomes INVALID_TXN_STATE for clients
 * older than that error (`genericError` false).
 */
import { ErrorCode } from '../protocol/errors.js';
import type { TopicPartition } from '../coordinator/transactions/state.js';
import type { BrokerContext } from './broker-context.js';

export interface VerifiedProducer {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

/** Each partition's verification error (NONE: the append may go ahead). */
export function verifyTransaction(broker: BrokerContext, producer: VerifiedProducer, partitions: readonly TopicPartition[], genericError: boolean): number[] {
  const errors: number[] = partitions.map(() => ErrorCode.NONE);
  const toVerify: TopicPartition[] = [];
  const at: number[] = [];
  partitions.forEach((tp, i) => {
    const log = broker.storage.partition(tp.topic, tp.partition);
    if (log !== undefined && log.hasOngoingTransaction(producer.producerId, producer.producerEpoch)) return;
    toVerify.push(tp);
    at.push(i);
  });
  if (toVerify.length === 0) return errors;
  const verified = broker.transactions.coordinator.verifyPartitions(producer, toVerify);
  verified.forEach((errorCode, j) => {
    let mapped = errorCode;
    if (errorCode === ErrorCode.PRODUCER_FENCED) mapped = ErrorCode.INVALID_PRODUCER_EPOCH;
    else if (errorCode === ErrorCode.TRANSACTION_ABORTABLE && !genericError) mapped = ErrorCode.INVALID_TXN_STATE;
    errors[at[j]!] = mapped;
  });
  return errors;
}
