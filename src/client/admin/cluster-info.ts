/**
 * The cluster as one Metadata request for every topic describes it (what `kcat -L` prints):
 * its id, brokers, controller, and each topic's partitions with leader, replicas and ISR.
 */
import { Api } from '../../protocol/messages/index.js';
import { ZERO_UUID } from '../cluster.js';
import type { AdminContext } from './requests.js';
import type { ClusterDescription } from './types.js';

export async function describeCluster(ctx: AdminContext): Promise<ClusterDescription> {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  const response = await connection.request(Api.Metadata, {
    topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
  }, { signal: ctx.signal });
  return {
    clusterId: response.clusterId ?? null,
    controllerId: response.controllerId ?? -1,
    brokers: response.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null })).sort((a, b) => a.nodeId - b.nodeId),
    topics: response.topics
      .filter((t) => (t.name ?? '') !== '')
      .map((t) => ({
        name: t.name ?? '',
        topicId: t.topicId ?? ZERO_UUID,
        internal: t.isInternal ?? false,
        errorCode: t.errorCode,
        partitions: t.partitions
          .map((p) => ({ partition: p.partitionIndex, leader: p.leaderId, replicas: p.replicaNodes, isr: p.isrNodes, errorCode: p.errorCode }))
          .sort((a, b) => a.partition - b.partition),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
}
