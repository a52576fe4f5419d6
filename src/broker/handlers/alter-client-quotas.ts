/**
 * AlterClientQuotas: Brook enforces no client quotas, so it stores none: every entry is
 * answered INVALID_REQUEST saying so, with validateOnly too (the change could not be made).
 * Kafka would store and enforce them. Answering an error rather than NONE keeps
 * DescribeClientQuotas truthful (it answers no entries) and tells the operator at once.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { AlterClientQuotasRequestData, AlterClientQuotasResponseData } from '../../protocol/messages/alter-client-quotas.js';
import { defineHandler } from '../handler.js';

export const QUOTAS_NOT_SUPPORTED = 'Client quotas are not supported: Brook enforces no quotas and stores none';

export const alterClientQuotasHandler = defineHandler<AlterClientQuotasRequestData, AlterClientQuotasResponseData>({
  api: Api.AlterClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  handle(_ctx, request) {
    return {
      throttleTimeMs: 0,
      entries: request.entries.map((e) => ({
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: QUOTAS_NOT_SUPPORTED,
        entity: e.entity.map(({ entityType, entityName }) => ({ entityType, entityName })),
      })),
    };
  },
});
