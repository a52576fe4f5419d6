/**
 * WriteTxnMarkers, as a partition leader receives it from a transaction coordinator: a
 * COMMIT or ABORT control batch appended to each partition, answered once durable. The
 * same append the local coordinator uses (TransactionCoordinatorService.writeMarkers). Only for a
 * principal with ALTER or CLUSTER_ACTION on the cluster (KafkaApis: else every partition
 * CLUSTER_AUTHORIZATION_FAILED). v0 is not served, as in Kafka 4 (KIP-896). v2 carries
 * each marker's transaction version (KIP-1228): from version 2 a partition refuses a marker
 * whose producer epoch is not newer than the producer's there (INVALID_PRODUCER_EPOCH),
 * unless it repeats the marker that completed the producer's last transaction.
 */
import { Api } from '../../protocol/messages/index.js';
import type { WriteTxnMarkersRequestData, WriteTxnMarkersResponseData } from '../../protocol/messages/write-txn-markers.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';

export const writeTxnMarkersHandler = defineHandler<WriteTxnMarkersRequestData, WriteTxnMarkersResponseData>({
  api: Api.WriteTxnMarkers,
  authorization: authorizes({ CLUSTER: ['ALTER', 'CLUSTER_ACTION'] }),
  minVersion: 1,
  maxVersion: Api.WriteTxnMarkers.request.highestVersion,
  async handle(ctx, request) {
    // KafkaApis asks for ALTER on the cluster first, then CLUSTER_ACTION.
    if (!authorizeCluster(ctx, AclOperation.ALTER) && !authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) {
      return {
        markers: request.markers.map((m) => ({
          producerId: m.producerId,
          topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED })) })),
        })),
      };
    }
    const markers = await Promise.all(request.markers.map(async (m) => {
      const partitions = m.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
      const errors = await ctx.broker.transactions.writeMarkers(m.producerId, m.producerEpoch, m.transactionResult, m.coordinatorEpoch, m.transactionVersion ?? 0, partitions);
      let i = 0;
      return {
        producerId: m.producerId,
        topics: m.topics.map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: errors[i++]! })),
        })),
      };
    }));
    return { markers };
  },
});
