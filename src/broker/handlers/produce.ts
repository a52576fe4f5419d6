/**
 * Produce: appends each partition's batches (validated by storage, base offsets rewritten
 * in place, never re-encoded). acks=all answers once the appended bytes are durable,
 * acks=1 once they are in the log, acks=0 not at all; with acks=0 an error closes the
 * connection, which is how Kafka tells such a producer something went wrong.
 *
 * As Kafka 4's KafkaApis, transactional batches need the request's transactional id (even
 * without an authorizer) and WRITE on it (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the
 * whole request). With an authorizer, each topic needs WRITE (else
 * TOPIC_AUTHORIZATION_FAILED). Idempotent batches need nothing more: Kafka 3.0 (KIP-679)
 * dropped the IDEMPOTENT_WRITE check from Produce. Auto-creating an unknown
 * topic (Brook's, see docs/ARCHITECTURE.md) also needs CREATE on the cluster or the topic, as
 * a Metadata request's does; without it the partition is UNKNOWN_TOPIC_OR_PARTITION, Kafka's
 * answer for any unknown topic.
 *
 * A transactional batch is verified first (KIP-890 part 1, src/broker/transaction-verification.ts):
 * its partition must be in the producer's transaction, else INVALID_TXN_STATE, as Kafka's
 * ReplicaManager.handleProduceAppend.
 */
import { Api } from '../../protocol/messages/index.js';
import type { ProduceRequestData, ProduceResponseData, PartitionProduceResponse, TopicProduceResponse } from '../../protocol/messages/produce.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { ATTRIBUTES_OFFSET, PRODUCER_EPOCH_OFFSET, PRODUCER_ID_OFFSET } from '../../protocol/records/index.js';
import { StorageError } from '../../storage/errors.js';
import { validateProduceRecords } from '../../storage/append-validation.js';
import type { AppendResult } from '../../storage/types.js';
import { defineHandler, NO_RESPONSE, type RequestContext } from '../handler.js';
import { AclOperation, ResourceType, authorize, filterAuthorized, mayCreateTopic } from '../authorization.js';
import { verifyTransaction } from '../transaction-verification.js';

const ACKS_ALL = -1;

function failed(index: number, errorCode: number, errorMessage: string | null = null): PartitionProduceResponse {
  return { index, errorCode, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage };
}

function appended(index: number, result: AppendResult): PartitionProduceResponse {
  return {
    index, errorCode: ErrorCode.NONE, baseOffset: result.baseOffset, logAppendTimeMs: result.logAppendTimeMs,
    logStartOffset: result.logStartOffset, recordErrors: [], errorMessage: null,
  };
}

function appendPartition(ctx: RequestContext, request: ProduceRequestData, topicName: string, index: number, records: Buffer | null): { response: PartitionProduceResponse; durable?: Promise<void> } {
  const { broker } = ctx;
  let topic;
  try {
    topic = broker.topicForProduceOrMetadata(topicName, broker.acls === null || broker.storage.topic(topicName) !== undefined || mayCreateTopic(ctx, topicName));
  } catch (err) {
    if (err instanceof StorageError) return { response: failed(index, err.errorCode, err.message) };
    throw err;
  }
  const log = topic ? broker.storage.partition(topicName, index) : undefined;
  if (!log) return { response: failed(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) };
  if (records === null || records.length === 0) return { response: failed(index, ErrorCode.INVALID_RECORD, 'no records') };
  let checkedByRequest = false;
  try {
    validateProduceRecords(records);
    const unverified = verifyAppend(ctx, request, topicName, index, records);
    if (unverified !== null) return { response: unverified };
    checkedByRequest = true;
    const result = log.append(records, { nowMs: broker.clock.nowMs() });
    broker.appends.notifyAppend(topicName, index);
    if (!result.duplicate) {
      const traffic = broker.metrics.topic(topicName);
      traffic.bytesIn += records.length;
      traffic.recordsIn += Number(result.lastOffset - result.baseOffset) + 1;
    }
    return { response: appended(index, result), durable: result.durable };
  } catch (err) {
    if (err instanceof StorageError) {
      broker.log.debug('produce rejected', { topic: topicName, partition: index, errorCode: err.errorCode, reason: err.message });
      const response = failed(index, err.errorCode, err.message);
      if (checkedByRequest && !NO_LOG_START_OFFSET.has(err.errorCode)) response.logStartOffset = log.logStartOffset;
      return { response };
    }
    throw err;
  }
}

/** Coordinator errors a producer of before KIP-890 may not retry: NOT_ENOUGH_REPLICAS makes it retry (ReplicaManager). */
const RETRY_VERIFICATION: ReadonlySet<number> = new Set([
  ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.NETWORK_EXCEPTION, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR,
]);

/**
 * Transaction verification of a transactional batch (src/broker/transaction-verification.ts),
 * when the request names its transactional id: null to append, else the partition's answer,
 * with ReplicaManager's translation of the coordinator's errors. Produce v11+ clients know
 * TRANSACTION_ABORTABLE.
 */
function verifyAppend(ctx: RequestContext, request: ProduceRequestData, topic: string, partition: number, records: Buffer): PartitionProduceResponse | null {
  if (request.transactionalId == null || records.length <= ATTRIBUTES_OFFSET + 1 || (records.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG) === 0) return null;
  const producer = {
    transactionalId: request.transactionalId,
    producerId: records.readBigInt64BE(PRODUCER_ID_OFFSET),
    producerEpoch: records.readInt16BE(PRODUCER_EPOCH_OFFSET),
  };
  if (producer.producerId < 0n) return null;
  const [errorCode] = verifyTransaction(ctx.broker, producer, [{ topic, partition }], ctx.apiVersion > 10);
  if (errorCode === undefined || errorCode === ErrorCode.NONE) return null;
  if (errorCode === ErrorCode.INVALID_TXN_STATE) return failed(partition, errorCode, 'Partition was not added to the transaction');
  if (RETRY_VERIFICATION.has(errorCode)) {
    return failed(partition, ErrorCode.NOT_ENOUGH_REPLICAS, `Unable to verify the partition has been added to the transaction. Underlying error: ${errorInfo(errorCode).name}`);
  }
  // Only the two translations above carry a message (LogAppendResult.hasCustomErrorMessage).
  return failed(partition, errorCode);
}

/**
 * Kafka (ReplicaManager.appendToLocalLog) answers a rejected append with the log start
 * offset, except for these errors, and for the checks ProduceRequest.validateRecords makes
 * before the log is involved (-1 then).
 */
const NO_LOG_START_OFFSET: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.MESSAGE_TOO_LARGE,
  ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.CORRUPT_MESSAGE, ErrorCode.KAFKA_STORAGE_ERROR,
]);

export const produceHandler = defineHandler<ProduceRequestData, ProduceResponseData>({
  api: Api.Produce,
  // v0-2 carry the legacy message formats, which Brook does not store (Kafka 4 dropped them
  // too); they are still advertised, as Kafka does, so librdkafka keeps compression on.
  minVersion: 3,
  advertisedMinVersion: 0,
  maxVersion: Api.Produce.request.highestVersion,
  handle(ctx, request) {
    const acks = request.acks;
    if (acks !== 0 && acks !== 1 && acks !== ACKS_ALL) {
      return everyPartition(request, ErrorCode.INVALID_REQUIRED_ACKS);
    }
    // Transactional batches need the request's transactional id, with or without an authorizer.
    if (hasTransactionalRecords(request) && (request.transactionalId == null || !authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId))) {
      if (acks === 0) return Promise.reject(new AcksZeroProduceError());
      return everyPartition(request, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
    let writable: Set<string> | null = null;
    if (ctx.broker.acls !== null) writable = filterAuthorized(ctx, AclOperation.WRITE, ResourceType.TOPIC, request.topicData.map((t) => t.name));
    const durables: Promise<void>[] = [];
    let anyError = false;
    const responses: TopicProduceResponse[] = request.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => {
        if (writable !== null && !writable.has(t.name)) {
          anyError = true;
          return failed(p.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        }
        const { response, durable } = appendPartition(ctx, request, t.name, p.index, p.records);
        if (response.errorCode !== ErrorCode.NONE) anyError = true;
        if (durable && acks === ACKS_ALL) {
          durables.push(durable.catch((err: unknown) => {
            ctx.broker.log.error('append not durable', { topic: t.name, partition: p.index, err });
            response.errorCode = ErrorCode.KAFKA_STORAGE_ERROR;
            response.errorMessage = 'the append could not be made durable';
          }));
        }
        return response;
      }),
    }));
    if (acks === 0) {
      if (anyError) ctx.broker.log.info('acks=0 produce failed; closing the connection as Kafka does');
      return anyError ? Promise.reject(new AcksZeroProduceError()) : NO_RESPONSE;
    }
    const body: ProduceResponseData = { throttleTimeMs: 0, responses };
    if (durables.length === 0) return body;
    return Promise.all(durables).then(() => body);
  },
});

function everyPartition(request: ProduceRequestData, errorCode: number): ProduceResponseData {
  return {
    throttleTimeMs: 0,
    responses: request.topicData.map((t) => ({ name: t.name, partitionResponses: t.partitionData.map((p) => failed(p.index, errorCode)) })),
  };
}

/** Bit 4 of a v2 record batch's attributes marks a transactional batch. */
const TRANSACTIONAL_FLAG = 0x10;

/** Kafka's RequestUtils.hasTransactionalRecords: is the first batch of some partition transactional? */
function hasTransactionalRecords(request: ProduceRequestData): boolean {
  for (const t of request.topicData) {
    for (const p of t.partitionData) {
      const r = p.records;
      if (r !== null && r.length > ATTRIBUTES_OFFSET + 1 && (r.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG) !== 0) return true;
    }
  }
  return false;
}

/** Rejecting with this makes the connection close without an "internal error" log. */
export class AcksZeroProduceError extends Error {
  readonly code = 'ERR_ACKS_ZERO_PRODUCE_FAILED' as const;
  constructor() {
    super('acks=0 produce request failed');
  }
}
