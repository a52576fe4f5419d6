/**
 * Produce: appends each partition's batches (validated by storage, base offsets rewritten
 * in place, never re-encoded). acks=all answers once the appended bytes are durable,
 * acks=1 once they are in the log, acks=0 not at all; with acks=0 an error closes the
 * connection, which is how Kafka tells such a producer something went wrong.
 *
 * With an authorizer, as Kafka 4's KafkaApis: transactional batches need WRITE on the
 * transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the whole request), each
 * topic WRITE (else TOPIC_AUTHORIZATION_FAILED). Idempotent batches need nothing more: Kafka
 * 3.0 (KIP-679) dropped the IDEMPOTENT_WRITE check from Produce. Auto-creating an unknown
 * topic (Brook's, see docs/ARCHITECTURE.md) also needs CREATE on the cluster or the topic, as
 * a Metadata request's does; without it the partition is UNKNOWN_TOPIC_OR_PARTITION, Kafka's
 * answer for any unknown topic.
 */
import { Api } from '../../protocol/messages/index.js';
import type { ProduceRequestData, ProduceResponseData, PartitionProduceResponse, TopicProduceResponse } from '../../protocol/messages/produce.js';
import { ErrorCode } from '../../protocol/errors.js';
import { StorageError } from '../../storage/errors.js';
import { validateProduceRecords } from '../../storage/append-validation.js';
import type { AppendResult } from '../../storage/types.js';
import { defineHandler, NO_RESPONSE, type HandlerResult, type RequestContext } from '../handler.js';
import { AclOperation, ResourceType, authorize, filterAuthorized, mayCreateTopic } from '../authorization.js';
import { TRANSACTION_VERSION_2, type TopicPartition } from '../../coordinator/transactions/state.js';
import { implicitAddError } from './transaction-errors.js';

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

function appendPartition(ctx: RequestContext, topicName: string, index: number, records: Buffer | null): { response: PartitionProduceResponse; durable?: Promise<void> } {
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
    let writable: Set<string> | null = null;
    if (ctx.broker.acls !== null) {
      if (hasTransactionalRecords(request) && (request.transactionalId == null || !authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId))) {
        if (acks === 0) return Promise.reject(new AcksZeroProduceError());
        return everyPartition(request, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
      }
      writable = filterAuthorized(ctx, AclOperation.WRITE, ResourceType.TOPIC, request.topicData.map((t) => t.name));
    }
    if (ctx.apiVersion >= TRANSACTION_V2_PRODUCE_VERSION && request.transactionalId != null) {
      const txn = firstTransactionalBatch(request);
      if (txn !== null) {
        return addPartitionsImplicitly(ctx, request, request.transactionalId, txn, writable).then((refused) => appendAll(ctx, request, writable, refused)) as HandlerResult<ProduceResponseData>;
      }
    }
    return appendAll(ctx, request, writable, null);
  },
});

/** Appends every partition of the request (`refused`: partitions answered with an error instead). */
function appendAll(
  ctx: RequestContext, request: ProduceRequestData, writable: Set<string> | null, refused: ReadonlyMap<string, number> | null,
): HandlerResult<ProduceResponseData> {
  const acks = request.acks;
  const durables: Promise<void>[] = [];
  let anyError = false;
  const responses: TopicProduceResponse[] = request.topicData.map((t) => ({
    name: t.name,
    partitionResponses: t.partitionData.map((p) => {
      if (writable !== null && !writable.has(t.name)) {
        anyError = true;
        return failed(p.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      }
      const refusal = refused?.get(`${t.name}-${p.index}`);
      if (refusal !== undefined) {
        anyError = true;
        return failed(p.index, refusal);
      }
      const { response, durable } = appendPartition(ctx, t.name, p.index, p.records);
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
}

function everyPartition(request: ProduceRequestData, errorCode: number): ProduceResponseData {
  return {
    throttleTimeMs: 0,
    responses: request.topicData.map((t) => ({ name: t.name, partitionResponses: t.partitionData.map((p) => failed(p.index, errorCode)) })),
  };
}

/** Offset of the attributes in a v2 record batch header; bit 4 marks a transactional batch. */
const ATTRIBUTES_OFFSET = 21;
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

/** Produce v12 and later are transaction version 2: a transactional batch's partition joins its transaction implicitly. */
const TRANSACTION_V2_PRODUCE_VERSION = 12;
const PRODUCER_ID_OFFSET = 43;
const PRODUCER_EPOCH_OFFSET = 51;

/** The producer id and epoch of the request's first transactional batch, or null. */
function firstTransactionalBatch(request: ProduceRequestData): { producerId: bigint; producerEpoch: number } | null {
  for (const t of request.topicData) {
    for (const p of t.partitionData) {
      const r = p.records;
      if (r !== null && r.length > PRODUCER_EPOCH_OFFSET + 1 && (r.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG) !== 0) {
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
 * implicitAddError says. Returns the refused partitions.
 */
async function addPartitionsImplicitly(
  ctx: RequestContext, request: ProduceRequestData, transactionalId: string, txn: { producerId: bigint; producerEpoch: number }, writable: Set<string> | null,
): Promise<Map<string, number>> {
  const partitions: TopicPartition[] = [];
  for (const t of request.topicData) {
    if (writable !== null && !writable.has(t.name)) continue;
    for (const p of t.partitionData) {
      const r = p.records;
      const transactional = r !== null && r.length > ATTRIBUTES_OFFSET + 1 && (r.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG) !== 0;
      if (transactional && ctx.broker.storage.partition(t.name, p.index) !== undefined) partitions.push({ topic: t.name, partition: p.index });
    }
  }
  const refused = new Map<string, number>();
  if (partitions.length === 0) return refused;
  const input = { transactionalId, producerId: txn.producerId, producerEpoch: txn.producerEpoch };
  const reply = await ctx.broker.transactions.submit(ctx, (c, id, nowMs) => c.addPartitions(id, input, partitions, nowMs, TRANSACTION_VERSION_2));
  if (reply.errorCode === ErrorCode.NONE) return refused;
  const errorCode = implicitAddError(reply.errorCode);
  for (const { topic, partition } of partitions) refused.set(`${topic}-${partition}`, errorCode);
  return refused;
}

/** Rejecting with this makes the connection close without an "internal error" log. */
export class AcksZeroProduceError extends Error {
  readonly code = 'ERR_ACKS_ZERO_PRODUCE_FAILED' as const;
  constructor() {
    super('acks=0 produce request failed');
  }
}
