/**
 * The Produce handler's transaction checks, on the batches as received (headers only):
 * whether a request carries transactional batches, transaction version 2's implicit add of
 * their partitions (Produce v12+), and the verification of each transactional batch against
 * the producer's transaction (KIP-890 part 1, src/broker/transaction-verification.ts).
 */
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { ProduceRequestData } from '../../protocol/messages/produce.js';
import { ATTRIBUTES_OFFSET, PRODUCER_EPOCH_OFFSET, PRODUCER_ID_OFFSET } from '../../protocol/records/index.js';
import { TRANSACTION_VERSION_2, type TopicPartition } from '../../coordinator/transactions/state.js';
import type { RequestContext } from '../handler.js';
import { verifyTransaction } from '../transaction-verification.js';
import { implicitAddError } from './transaction-errors.js';

/** Bit 4 of a v2 record batch's attributes marks a transactional batch. */
const TRANSACTIONAL_FLAG = 0x10;

/** Produce v12 and later are transaction version 2: a transactional batch's partition joins its transaction implicitly. */
export const TRANSACTION_V2_PRODUCE_VERSION = 12;

function isTransactional(records: Buffer | null): records is Buffer {
  return records !== null && records.length > ATTRIBUTES_OFFSET + 1 && (records.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG) !== 0;
}

/** Kafka's RequestUtils.hasTransactionalRecords: is the first batch of some partition transactional? */
export function hasTransactionalRecords(request: ProduceRequestData): boolean {
  for (const t of request.topicData) {
    for (const p of t.partitionData) if (isTransactional(p.records)) return true;
  }
  return false;
}

/** The producer id and epoch of the request's first transactional batch, or null. */
export function firstTransactionalBatch(request: ProduceRequestData): { producerId: bigint; producerEpoch: number } | null {
  for (const t of request.topicData) {
    for (const p of t.partitionData) {
      const r = p.records;
      if (isTransactional(r) && r.length > PRODUCER_EPOCH_OFFSET + 1) {
        return { producerId: r.readBigInt64BE(PRODUCER_ID_OFFSET), producerEpoch: r.readInt16BE(PRODUCER_EPOCH_OFFSET) };
      }
    }
  }
  return null;
}

/**
 * Transaction version 2: the partitions of the request's transactional batches join the
 * transaction (ReplicaManager's ADD_PARTITION verification through the transaction
 * coordinator's AddPartitionsToTxn path) before anything is appended; its errors as
 * implicitAddError says. Returns the refused partitions ("topic-partition" → error).
 */
export async function addPartitionsImplicitly(
  ctx: RequestContext, request: ProduceRequestData, transactionalId: string, txn: { producerId: bigint; producerEpoch: number }, writable: Set<string> | null,
): Promise<Map<string, number>> {
  const partitions: TopicPartition[] = [];
  for (const t of request.topicData) {
    // Produce v13's topics are named by then ('' for an unknown id, which no partition has).
    const name = t.name ?? '';
    if (writable !== null && !writable.has(name)) continue;
    for (const p of t.partitionData) {
      if (isTransactional(p.records) && ctx.broker.storage.partition(name, p.index) !== undefined) partitions.push({ topic: name, partition: p.index });
    }
  }
  const refused = new Map<string, number>();
  if (partitions.length === 0) return refused;
  const input = { transactionalId, producerId: txn.producerId, producerEpoch: txn.producerEpoch };
  const add = (): Promise<{ errorCode: number }> => ctx.broker.transactions.submit(ctx, (c, id, nowMs) => c.addPartitions(id, input, partitions, nowMs, TRANSACTION_VERSION_2));
  // As Kafka's AddPartitionsToTxnManager: CONCURRENT_TRANSACTIONS (the previous transaction
  // still completing, as it is right after the client's EndTxn returns) is retried here every
  // add.partitions.to.txn.retry.backoff.ms for up to .max.ms, which the next transaction's
  // first Produce would otherwise wait out as retry.backoff.ms in the client.
  const { addPartitionsToTxnRetryBackoffMs: backoffMs, addPartitionsToTxnRetryBackoffMaxMs: maxMs } = ctx.broker.config;
  const { clock } = ctx.broker;
  const started = clock.nowMs();
  let reply = await add();
  while (reply.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS && clock.nowMs() - started < maxMs && !ctx.signal.aborted) {
    // A closed connection ends the wait (the loop then stops).
    await clock.sleep(backoffMs, ctx.signal).catch(() => undefined);
    reply = await add();
  }
  if (reply.errorCode === ErrorCode.NONE) return refused;
  const errorCode = implicitAddError(reply.errorCode);
  for (const { topic, partition } of partitions) refused.set(`${topic}-${partition}`, errorCode);
  return refused;
}

/** Coordinator errors a producer of before KIP-890 may not retry: NOT_ENOUGH_REPLICAS makes it retry (ReplicaManager). */
const RETRY_VERIFICATION: ReadonlySet<number> = new Set([
  ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.NETWORK_EXCEPTION, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR,
]);

/**
 * Transaction verification of a transactional batch, when the request names its
 * transactional id: null to append, else the partition's error, with ReplicaManager's
 * translation of the coordinator's errors. Produce v11+ clients know TRANSACTION_ABORTABLE.
 */
export function verifyAppend(
  ctx: RequestContext, request: ProduceRequestData, topic: string, partition: number, records: Buffer,
): { errorCode: number; errorMessage: string | null } | null {
  if (request.transactionalId == null || !isTransactional(records) || records.length <= PRODUCER_EPOCH_OFFSET + 1) return null;
  const producer = {
    transactionalId: request.transactionalId,
    producerId: records.readBigInt64BE(PRODUCER_ID_OFFSET),
    producerEpoch: records.readInt16BE(PRODUCER_EPOCH_OFFSET),
  };
  if (producer.producerId < 0n) return null;
  const [errorCode] = verifyTransaction(ctx.broker, producer, [{ topic, partition }], ctx.apiVersion > 10);
  if (errorCode === undefined || errorCode === ErrorCode.NONE) return null;
  if (errorCode === ErrorCode.INVALID_TXN_STATE) return { errorCode, errorMessage: 'Partition was not added to the transaction' };
  if (RETRY_VERIFICATION.has(errorCode)) {
    return { errorCode: ErrorCode.NOT_ENOUGH_REPLICAS, errorMessage: `Unable to verify the partition has been added to the transaction. Underlying error: ${errorInfo(errorCode).name}` };
  }
  // Only the two translations above carry a message (LogAppendResult.hasCustomErrorMessage).
  return { errorCode, errorMessage: null };
}
