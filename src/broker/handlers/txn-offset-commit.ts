/**
 * TxnOffsetCommit: a transactional producer's offsets for a group (sendOffsetsToTransaction).
 * As Kafka's KafkaApis: partitions of unknown topics are answered UNKNOWN_TOPIC_OR_PARTITION
 * by the broker, the rest go to the group coordinator, which holds them pending until the
 * transaction's marker lands in `__consumer_offsets` (coordinator/txn-offsets.ts) and
 * writes them inside the transaction. First, as Kafka's coordinator runtime
 * (scheduleTransactionalWriteOperation), the transaction is verified (KIP-890 part 1,
 * src/broker/transaction-verification.ts): the group's `__consumer_offsets` partition must be
 * in it (AddOffsetsToTxn), else INVALID_TXN_STATE (v4+: TRANSACTION_ABORTABLE).
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
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, filterAuthorized } from '../authorization.js';
import { CONSUMER_OFFSETS_TOPIC } from '../coordinator-runtime.js';
import { verifyTransaction } from '../transaction-verification.js';
import { GROUP_OFFSETS_PARTITION } from './add-offsets-to-txn.js';

export const txnOffsetCommitHandler = defineHandler<TxnOffsetCommitRequestData, TxnOffsetCommitResponseData>({
  api: Api.TxnOffsetCommit,
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
    // coordinator's to refuse, before any verification.
    if (request.groupId !== '') {
      const producer = { transactionalId: request.transactionalId, producerId: request.producerId, producerEpoch: request.producerEpoch };
      const [unverified] = verifyTransaction(ctx.broker, producer, [{ topic: CONSUMER_OFFSETS_TOPIC, partition: GROUP_OFFSETS_PARTITION }], ctx.apiVersion >= 4);
      if (unverified !== undefined && unverified !== ErrorCode.NONE) {
        const failed = valid.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: unverified })) }));
        return { throttleTimeMs: 0, topics: mergeTopics(rejected, failed) };
      }
    }
    return ctx.broker.groups
      .submit<TxnOffsetCommitResponseData>(ctx, (c, cctx) => c.txnOffsetCommit(cctx, { ...request, topics: valid }), all)
      .then((answer) => ({ ...answer, topics: mergeTopics(rejected, answer.topics) }));
  },
});

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
