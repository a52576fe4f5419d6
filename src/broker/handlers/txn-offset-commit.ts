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
 *
 * v6 names topics by id (KIP-1319): an id is resolved to its topic's name first, an unknown
 * one answered UNKNOWN_TOPIC_ID. Before v6 the broker looks each named topic's id up, as
 * Kafka 4.4 does, so that the coordinator checks a consumer-group member's older epoch
 * against the epochs its partitions were assigned at (KIP-1251), whatever the version.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  TxnOffsetCommitRequestData,
  TxnOffsetCommitRequestTopic,
  TxnOffsetCommitResponseData,
  TxnOffsetCommitResponsePartition,
  TxnOffsetCommitResponseTopic,
} from '../../protocol/messages/txn-offset-commit.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import { TopicMerger, topicIdByName, topicNameById } from '../topic-ids.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { CONSUMER_OFFSETS_TOPIC } from '../group-coordinator-service.js';
import { TRANSACTION_VERSION_2 } from '../../coordinator/transactions/state.js';
import { GROUP_OFFSETS_PARTITION } from './add-offsets-to-txn.js';
import { implicitAddError } from './transaction-errors.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { verifyTransaction } from '../transaction-verification.js';

export const txnOffsetCommitHandler = defineHandler<TxnOffsetCommitRequestData, TxnOffsetCommitResponseData>({
  api: Api.TxnOffsetCommit,
  authorization: authorizes({ TRANSACTIONAL_ID: ['WRITE'], GROUP: ['READ'], TOPIC: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.TxnOffsetCommit.request.highestVersion,
  handle(ctx, request) {
    const { storage } = ctx.broker;
    const all = (errorCode: number): TxnOffsetCommitResponseData => ({ throttleTimeMs: 0, topics: failEvery(request.topics, errorCode) });
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId)) return all(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return all(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const useTopicIds = ctx.apiVersion >= TOPIC_IDS_VERSION;
    const rejected = new TopicMerger<TxnOffsetCommitResponsePartition>(useTopicIds);
    const refuse = (topicId: string | undefined, name: string, partitions: TxnOffsetCommitRequestTopic['partitions'], errorCode: number): void =>
      rejected.add(topicId, name, partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })));
    const valid: TxnOffsetCommitRequestTopic[] = [];
    for (const t of request.topics) {
      const name = useTopicIds ? topicNameById(storage, t.topicId) : (t.name ?? '');
      if (useTopicIds && name === '') refuse(t.topicId, name, t.partitions, ErrorCode.UNKNOWN_TOPIC_ID);
      else if (!authorize(ctx, AclOperation.READ, ResourceType.TOPIC, name)) refuse(t.topicId, name, t.partitions, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      else {
        const topicId = useTopicIds ? t.topicId : topicIdByName(storage, name);
        if (topicId === undefined || topicId === ZERO_UUID) refuse(t.topicId, name, t.partitions, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        else {
          const partitions = t.partitions.filter((p) => {
            if (storage.partition(name, p.partitionIndex) !== undefined) return true;
            refuse(t.topicId, name, [p], ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
            return false;
          });
          if (partitions.length > 0) valid.push({ ...t, name, topicId, partitions });
        }
      }
    }
    if (valid.length === 0) return { throttleTimeMs: 0, topics: rejected.topics };
    // As GroupCoordinatorService.commitTransactionalOffsets: an empty group id is the
    // coordinator's to refuse, before the transaction is looked at.
    if (request.groupId !== '') {
      if (ctx.apiVersion >= TRANSACTION_V2_TXN_OFFSET_COMMIT_VERSION) {
        return addOffsetsImplicitly(ctx, request).then((errorCode) => {
          if (errorCode === ErrorCode.NONE) return commit(ctx, request, valid, rejected);
          return merged(rejected, failEvery(valid, errorCode));
        });
      }
      const producer = { transactionalId: request.transactionalId, producerId: request.producerId, producerEpoch: request.producerEpoch };
      const [unverified] = verifyTransaction(ctx.broker, producer, [{ topic: CONSUMER_OFFSETS_TOPIC, partition: GROUP_OFFSETS_PARTITION }], ctx.apiVersion >= 4);
      if (unverified !== undefined && unverified !== ErrorCode.NONE) return merged(rejected, failEvery(valid, unverified));
    }
    return commit(ctx, request, valid, rejected);
  },
});

/** TxnOffsetCommit v6 names topics by id. */
const TOPIC_IDS_VERSION = 6;

const TRANSACTION_V2_TXN_OFFSET_COMMIT_VERSION = 5;

function failEvery(topics: readonly TxnOffsetCommitRequestTopic[], errorCode: number): TxnOffsetCommitResponseTopic[] {
  return topics.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
}

/** The broker's answers, then `topics`' partitions, one entry per topic (Kafka's TxnOffsetCommitResponse.Builder). */
function merged(rejected: TopicMerger<TxnOffsetCommitResponsePartition>, topics: readonly TxnOffsetCommitResponseTopic[]): TxnOffsetCommitResponseData {
  for (const t of topics) rejected.add(t.topicId, t.name, t.partitions);
  return { throttleTimeMs: 0, topics: rejected.topics };
}

function commit(
  ctx: RequestContext, request: TxnOffsetCommitRequestData, valid: TxnOffsetCommitRequestTopic[], rejected: TopicMerger<TxnOffsetCommitResponsePartition>,
): Promise<TxnOffsetCommitResponseData> {
  return ctx.broker.groups
    .submit<TxnOffsetCommitResponseData>(ctx, (c, cctx) => c.txnOffsetCommit(cctx, { ...request, topics: valid }), (errorCode) => ({ throttleTimeMs: 0, topics: failEvery(valid, errorCode) }))
    .then((answer) => merged(rejected, answer.topics));
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
