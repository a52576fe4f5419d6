/**
 * TxnOffsetCommit: a transactional producer's offsets for a group (sendOffsetsToTransaction).
 * As Kafka's KafkaApis: partitions of unknown topics are answered UNKNOWN_TOPIC_OR_PARTITION
 * by the broker, the rest go to the group coordinator, which holds them pending until the
 * transaction's marker lands in `__consumer_offsets` (coordinator/txn-offsets.ts) and
 * writes them inside the transaction. First the transaction: under transaction version 1
 * (v0-4), as Kafka's coordinator runtime (scheduleTransactionalWriteOperation), it is
 * verified (KIP-890 part 1, src/broker/transaction-verification.ts): the group's
 * `__consumer_offsets` partition must be in it (AddOffsetsToTxn), else INVALID_TXN_STATE
 * (v4: TRANSACTION_ABORTABLE). v5 (transaction version 2, whose client sends no
 * AddOffsetsToTxn) adds it instead, as AddOffsetsToTxn does, every partition answered the
 * add's error (implicitAddError; NOT_ENOUGH_REPLICAS then COORDINATOR_NOT_AVAILABLE, as
 * Kafka's group coordinator normalizes it) when that fails.
 *
 * Authorization as KafkaApis: WRITE on the transactional id, then READ on the group (every
 * partition TRANSACTIONAL_ID_AUTHORIZATION_FAILED or GROUP_AUTHORIZATION_FAILED), then READ
 * on each topic (its partitions TOPIC_AUTHORIZATION_FAILED, the others still committed).
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  TxnOffsetCommitRequestData,
  TxnOffsetCommitRequestTopic,
  TxnOffsetCommitResponseData,
  TxnOffsetCommitResponseTopic,
} from '../../protocol/messages/txn-offset-commit.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { CONSUMER_OFFSETS_TOPIC } from '../group-coordinator-service.js';
import { TRANSACTION_VERSION_2 } from '../../coordinator/transactions/state.js';
import { GROUP_OFFSETS_PARTITION } from './add-offsets-to-txn.js';
import { implicitAddError } from './transaction-errors.js';
import { AclOperation, ResourceType, authorize, filterAuthorized, authorizes } from '../authorization.js';
import { verifyTransaction } from '../transaction-verification.js';

export const txnOffsetCommitHandler = defineHandler<TxnOffsetCommitRequestData, TxnOffsetCommitResponseData>({
  api: Api.TxnOffsetCommit,
  authorization: authorizes({ TRANSACTIONAL_ID: ['WRITE'], GROUP: ['READ'], TOPIC: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.TxnOffsetCommit.request.highestVersion,
  handle(ctx, request) {
    const { storage } = ctx.broker;
    const all = (errorCode: number): TxnOffsetCommitResponseData => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
    });
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId)) return all(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return all(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const readable = filterAuthorized(ctx, AclOperation.READ, ResourceType.TOPIC, request.topics.map((t) => t.name));
    const rejected: TxnOffsetCommitResponseTopic[] = [];
    const valid: TxnOffsetCommitRequestTopic[] = [];
    for (const t of request.topics) {
      if (!readable.has(t.name)) {
        rejected.push({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) });
        continue;
      }
      const unknown = t.partitions.filter((p) => storage.partition(t.name, p.partitionIndex) === undefined);
      if (unknown.length > 0) {
        rejected.push({ name: t.name, partitions: unknown.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION })) });
      }
      const known = t.partitions.filter((p) => storage.partition(t.name, p.partitionIndex) !== undefined);
      if (known.length > 0) valid.push({ ...t, partitions: known });
    }
    if (valid.length === 0) return { throttleTimeMs: 0, topics: rejected };
    // As GroupCoordinatorService.commitTransactionalOffsets: an empty group id is the
    // coordinator's to refuse, before the transaction is looked at.
    if (request.groupId !== '') {
      if (ctx.apiVersion >= TRANSACTION_V2_TXN_OFFSET_COMMIT_VERSION) {
        return addOffsetsImplicitly(ctx, request).then((errorCode) => {
          if (errorCode === ErrorCode.NONE) return commit(ctx, request, valid, rejected, all);
          return { throttleTimeMs: 0, topics: mergeTopics(rejected, failEvery(valid, errorCode)) };
        });
      }
      const producer = { transactionalId: request.transactionalId, producerId: request.producerId, producerEpoch: request.producerEpoch };
      const [unverified] = verifyTransaction(ctx.broker, producer, [{ topic: CONSUMER_OFFSETS_TOPIC, partition: GROUP_OFFSETS_PARTITION }], ctx.apiVersion >= 4);
      if (unverified !== undefined && unverified !== ErrorCode.NONE) return { throttleTimeMs: 0, topics: mergeTopics(rejected, failEvery(valid, unverified)) };
    }
    return commit(ctx, request, valid, rejected, all);
  },
});

const TRANSACTION_V2_TXN_OFFSET_COMMIT_VERSION = 5;

function failEvery(topics: TxnOffsetCommitRequestTopic[], errorCode: number): TxnOffsetCommitResponseTopic[] {
  return topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
}

function commit(
  ctx: RequestContext, request: TxnOffsetCommitRequestData, valid: TxnOffsetCommitRequestTopic[], rejected: TxnOffsetCommitResponseTopic[],
  all: (errorCode: number) => TxnOffsetCommitResponseData,
): Promise<TxnOffsetCommitResponseData> {
  return ctx.broker.groups
    .submit<TxnOffsetCommitResponseData>(ctx, (c, cctx) => c.txnOffsetCommit(cctx, { ...request, topics: valid }), all)
    .then((answer) => ({ ...answer, topics: mergeTopics(rejected, answer.topics) }));
}

/** The group's `__consumer_offsets` partition joins the transaction, as AddOffsetsToTxn would. */
async function addOffsetsImplicitly(ctx: RequestContext, request: TxnOffsetCommitRequestData): Promise<number> {
  try {
    ctx.broker.groups.ensureTopic();
  } catch (err) {
    ctx.broker.log.error('cannot create the group coordinator topic', { err });
    return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  }
  const input = { transactionalId: request.transactionalId, producerId: request.producerId, producerEpoch: request.producerEpoch };
  const partitions = [{ topic: CONSUMER_OFFSETS_TOPIC, partition: GROUP_OFFSETS_PARTITION }];
  const reply = await ctx.broker.transactions.submit(ctx, (c, id, nowMs) => c.addPartitions(id, input, partitions, nowMs, TRANSACTION_VERSION_2));
  const errorCode = implicitAddError(reply.errorCode);
  return errorCode === ErrorCode.NOT_ENOUGH_REPLICAS ? ErrorCode.COORDINATOR_NOT_AVAILABLE : errorCode;
}

/**
 * One entry per topic, as Kafka's TxnOffsetCommitResponse.Builder (keyed by topic name):
 * a known topic's unknown partitions and the coordinator's answer for its others together.
 */
function mergeTopics(first: TxnOffsetCommitResponseTopic[], second: TxnOffsetCommitResponseTopic[]): TxnOffsetCommitResponseTopic[] {
  const byName = new Map<string, TxnOffsetCommitResponseTopic>();
  for (const t of [...first, ...second]) {
    const seen = byName.get(t.name);
    if (seen === undefined) byName.set(t.name, { name: t.name, partitions: [...t.partitions] });
    else seen.partitions.push(...t.partitions);
  }
  return [...byName.values()];
}
