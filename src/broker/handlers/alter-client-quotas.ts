/**
 * AlterClientQuotas: Brook enforces no client quotas, so it stores none: every entry is
 * answered INVALID_REQUEST saying so, with validateOnly too (the change could not be made).
 * Kafka would store and enforce them. Answering an error rather than NONE keeps
 * DescribeClientQuotas truthful (it answers no entries) and tells the operator at once.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { AlterClientQuotasRequestData, AlterClientQuotasResponseData } from '../../protocol/messages/alter-client-quotas.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

export const QUOTAS_NOT_SUPPORTED = 'Client quotas are not supported: Brook enforces no quotas and stores none';

export const alterClientQuotasHandler = defineHandler<AlterClientQuotasRequestData, AlterClientQuotasResponseData>({
  api: Api.AlterClientQuotas,
  authorization: authorizes({ CLUSTER: ['ALTER_CONFIGS'] }),
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, request) {
    // Kafka's ControllerApis: ALTER_CONFIGS on the cluster, else every entry is refused.
    const allowed = authorizeCluster(ctx, AclOperation.ALTER_CONFIGS);
    return {
      throttleTimeMs: 0,
      entries: request.entries.map((e) => ({
        errorCode: allowed ? ErrorCode.INVALID_REQUEST : ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage: allowed ? QUOTAS_NOT_SUPPORTED : null,
        entity: e.entity.map(({ entityType, entityName }) => ({ entityType, entityName })),
      })),
    };
  },
});
