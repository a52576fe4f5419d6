/**
 * AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the transaction, so
 * its offsets (TxnOffsetCommit) are committed or aborted by the transaction's marker. As in
 * KafkaApis, the coordinator's AddPartitionsToTxn path with that one partition, after
 * WRITE on the transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and READ on the
 * group (GROUP_AUTHORIZATION_FAILED).
 */
import { Api } from '../../protocol/messages/index.js';
import type { AddOffsetsToTxnRequestData, AddOffsetsToTxnResponseData } from '../../protocol/messages/add-offsets-to-txn.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { CONSUMER_OFFSETS_TOPIC } from '../group-coordinator-service.js';
import { clientError } from './transaction-errors.js';

/** Brook's `__consumer_offsets` has one partition: every group's offsets live in partition 0. */
export const GROUP_OFFSETS_PARTITION = 0;

export const addOffsetsToTxnHandler = defineHandler<AddOffsetsToTxnRequestData, AddOffsetsToTxnResponseData>({
  api: Api.AddOffsetsToTxn,
  authorization: authorizes({ TRANSACTIONAL_ID: ['WRITE'], GROUP: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.AddOffsetsToTxn.request.highestVersion,
  async handle(ctx, request) {
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    }
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    try {
      ctx.broker.groups.ensureTopic();
    } catch (err) {
      ctx.broker.log.error('cannot create the group coordinator topic', { err });
      return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    }
    const input = { transactionalId: request.transactionalId, producerId: request.producerId, producerEpoch: request.producerEpoch };
    const partitions = [{ topic: CONSUMER_OFFSETS_TOPIC, partition: GROUP_OFFSETS_PARTITION }];
    const reply = await ctx.broker.transactions.submit(ctx, (c, id, nowMs) => c.addPartitions(id, input, partitions, nowMs));
    return { throttleTimeMs: 0, errorCode: clientError(reply.errorCode, ctx.apiVersion, 2) };
  },
});
