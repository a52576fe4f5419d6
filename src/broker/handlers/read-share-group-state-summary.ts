/**
 * ReadShareGroupStateSummary, as the group coordinator sends it to the share coordinator
 * to describe a share group's offsets: each share-partition's start offset, epochs and
 * delivery complete count, without its batches. Served by the broker's share coordinator
 * (share-coordinator-service.ts), for a principal with CLUSTER_ACTION on the cluster
 * (KafkaApis: else every partition CLUSTER_AUTHORIZATION_FAILED).
 */
import { Api } from '../../protocol/messages/index.js';
import type { ReadShareGroupStateSummaryRequestData, ReadShareGroupStateSummaryResponseData } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { summaryGlobalError } from '../../coordinator/share-state/responses.js';
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';

export const readShareGroupStateSummaryHandler = defineHandler<ReadShareGroupStateSummaryRequestData, ReadShareGroupStateSummaryResponseData>({
  api: Api.ReadShareGroupStateSummary,
  authorization: authorizes({ CLUSTER: ['CLUSTER_ACTION'] }),
  minVersion: 0,
  maxVersion: Api.ReadShareGroupStateSummary.request.highestVersion,
  handle(ctx, request) {
    if (!authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) return summaryGlobalError(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    return ctx.broker.shareState.readSummary(request, ctx.signal);
  },
});
