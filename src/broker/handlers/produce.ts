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
 * Produce v13 names topics by id (KIP-516): as Kafka's KafkaApis, an id is resolved to its
 * topic's name first, and a partition of an id no topic has is UNKNOWN_TOPIC_ID (never
 * auto-created); the answer names topics by id.
 *
 * Transactional batches (produce-transactions.ts): under transaction version 2 (Produce v12+)
 * their partitions join the transaction first; every transactional batch is then verified
 * (KIP-890 part 1): its partition must be in the producer's transaction, else
 * INVALID_TXN_STATE, as Kafka's ReplicaManager.handleProduceAppend.
 */
import { Api } from '../../protocol/messages/index.js';
import type { ProduceRequestData, ProduceResponseData, PartitionProduceResponse, TopicProduceResponse } from '../../protocol/messages/produce.js';
import { ErrorCode } from '../../protocol/errors.js';
import { StorageError } from '../../storage/errors.js';
import { validateProduceRecords } from '../../storage/append-validation.js';
import type { AppendResult } from '../../storage/types.js';
import { defineHandler, NO_RESPONSE, type HandlerResult, type RequestContext } from '../handler.js';
import { AclOperation, ResourceType, authorize, filterAuthorized, mayCreateTopic, authorizes } from '../authorization.js';
import { topicNameById } from '../topic-ids.js';
import { addPartitionsImplicitly, firstTransactionalBatch, hasTransactionalRecords, TRANSACTION_V2_PRODUCE_VERSION, verifyAppend } from './produce-transactions.js';

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
  if (broker.controls.offlinePartitions.has(topicName, index)) return { response: failed(index, ErrorCode.NOT_LEADER_OR_FOLLOWER) };
  if (records === null || records.length === 0) return { response: failed(index, ErrorCode.INVALID_RECORD, 'no records') };
  const unverified = verifyAppend(ctx, request, topicName, index, records);
  if (unverified !== null) return { response: failed(index, unverified.errorCode, unverified.errorMessage) };
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
  authorization: authorizes({ TRANSACTIONAL_ID: ['WRITE'], TOPIC: ['WRITE', 'CREATE'], CLUSTER: ['CREATE'] }),
  // v0-2 carry the legacy message formats, which Brook does not store (Kafka 4 dropped them
  // too); they are still advertised, as Kafka does, so librdkafka keeps compression on.
  minVersion: 3,
  advertisedMinVersion: 0,
  maxVersion: Api.Produce.request.highestVersion,
  handle(ctx, received) {
    const request = ctx.apiVersion >= TOPIC_IDS_VERSION ? withTopicNames(ctx, received) : received;
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
    if (ctx.broker.acls !== null) writable = filterAuthorized(ctx, AclOperation.WRITE, ResourceType.TOPIC, request.topicData.map((t) => t.name ?? ''));
    if (ctx.apiVersion >= TRANSACTION_V2_PRODUCE_VERSION && request.transactionalId != null) {
      const txn = firstTransactionalBatch(request);
      if (txn !== null) {
        // The producer's next requests carry later sequence numbers: they are taken up once
        // this one has appended (wrapped, so `appended` does not wait for durability).
        const appended = addPartitionsImplicitly(ctx, request, request.transactionalId, txn, writable)
          .then((refused) => ({ answer: appendAll(ctx, request, writable, refused) }));
        ctx.holdLaterRequests(appended);
        return appended.then((r) => r.answer) as HandlerResult<ProduceResponseData>;
      }
    }
    return appendAll(ctx, request, writable, null);
  },
});

/** Produce v13 names topics by id. */
const TOPIC_IDS_VERSION = 13;

/**
 * The request with each topic's name filled in from its id ('' for an id no topic has:
 * appendAll answers those UNKNOWN_TOPIC_ID).
 */
function withTopicNames(ctx: RequestContext, request: ProduceRequestData): ProduceRequestData {
  return { ...request, topicData: request.topicData.map((t) => ({ ...t, name: topicNameById(ctx.broker.storage, t.topicId) })) };
}

/** Appends every partition of the request (`refused`: partitions answered with an error instead). */
function appendAll(
  ctx: RequestContext, request: ProduceRequestData, writable: Set<string> | null, refused: ReadonlyMap<string, number> | null,
): HandlerResult<ProduceResponseData> {
  const acks = request.acks;
  const durables: Promise<void>[] = [];
  let anyError = false;
  const byId = ctx.apiVersion >= TOPIC_IDS_VERSION;
  const responses: TopicProduceResponse[] = request.topicData.map((t) => ({
    name: t.name,
    topicId: t.topicId,
    partitionResponses: t.partitionData.map((p) => {
      const name = t.name ?? '';
      if (byId && name === '') {
        anyError = true;
        return failed(p.index, ErrorCode.UNKNOWN_TOPIC_ID);
      }
      if (writable !== null && !writable.has(name)) {
        anyError = true;
        return failed(p.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      }
      const refusal = refused?.get(`${name}-${p.index}`);
      if (refusal !== undefined) {
        anyError = true;
        return failed(p.index, refusal);
      }
      const { response, durable } = appendPartition(ctx, request, name, p.index, p.records);
      if (response.errorCode !== ErrorCode.NONE) anyError = true;
      if (durable && acks === ACKS_ALL) {
        durables.push(durable.catch((err: unknown) => {
          ctx.broker.log.error('append not durable', { topic: name, partition: p.index, err });
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

export function everyPartition(request: ProduceRequestData, errorCode: number): ProduceResponseData {
  return {
    throttleTimeMs: 0,
    responses: request.topicData.map((t) => ({ name: t.name, topicId: t.topicId, partitionResponses: t.partitionData.map((p) => failed(p.index, errorCode)) })),
  };
}

/** Rejecting with this makes the connection close without an "internal error" log. */
export class AcksZeroProduceError extends Error {
  readonly code = 'ERR_ACKS_ZERO_PRODUCE_FAILED' as const;
  constructor() {
    super('acks=0 produce request failed');
  }
}
