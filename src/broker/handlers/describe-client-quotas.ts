/**
 * DescribeClientQuotas: Brook enforces no client quotas (produce and fetch byte rates,
 * request percentages, connection creation rates), so a filter Kafka takes matches no
 * entity and the answer is no entries, which is what Kafka answers when no quota is set.
 * The filter is checked first as Kafka's broker checks it, with its codes and messages: a
 * bad one answers INVALID_REQUEST (or UNSUPPORTED_VERSION for a custom entity type) instead
 * of an empty list. `kafka-configs --describe --entity-type users` asks this, then
 * DescribeUserScramCredentials.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ComponentData, DescribeClientQuotasRequestData, DescribeClientQuotasResponseData } from '../../protocol/messages/describe-client-quotas.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

/** Kafka's ClientQuotaEntity types. */
const ENTITY_TYPES: ReadonlySet<string> = new Set(['user', 'client-id', 'ip']);
/** ComponentData.matchType: an exact name, the default entity, or any specified entity. */
const MATCH_EXACT = 0;
const MATCH_DEFAULT = 1;
const MATCH_SPECIFIED = 2;

interface FilterError { readonly code: number; readonly message: string }

/** Why Kafka refuses the filter, or null when it is one Kafka answers. */
function filterError(components: readonly ComponentData[]): FilterError | null {
  const seen = new Set<string>();
  for (const c of components) {
    if (c.matchType !== MATCH_EXACT && c.matchType !== MATCH_DEFAULT && c.matchType !== MATCH_SPECIFIED) {
      return { code: ErrorCode.INVALID_REQUEST, message: `Unknown match type ${c.matchType}` };
    }
    if (c.matchType === MATCH_EXACT && c.match === null) {
      return { code: ErrorCode.INVALID_REQUEST, message: 'Request specified MATCH_TYPE_EXACT, but set match string to null.' };
    }
    if (seen.has(c.entityType)) return { code: ErrorCode.INVALID_REQUEST, message: `Entity type ${c.entityType} cannot appear more than once in the filter.` };
    if (c.entityType === '') return { code: ErrorCode.INVALID_REQUEST, message: 'Invalid empty entity type.' };
    if (!ENTITY_TYPES.has(c.entityType)) return { code: ErrorCode.UNSUPPORTED_VERSION, message: `Unsupported entity type ${c.entityType}` };
    seen.add(c.entityType);
  }
  if (seen.has('ip') && seen.size > 1) {
    return { code: ErrorCode.INVALID_REQUEST, message: 'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.' };
  }
  return null;
}

export const describeClientQuotasHandler = defineHandler<DescribeClientQuotasRequestData, DescribeClientQuotasResponseData>({
  api: Api.DescribeClientQuotas,
  authorization: authorizes({ CLUSTER: ['DESCRIBE_CONFIGS'] }),
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, request) {
    // Kafka's KafkaApis: DESCRIBE_CONFIGS on the cluster, else the whole request is refused.
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE_CONFIGS)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, entries: null };
    }
    const error = filterError(request.components);
    if (error !== null) return { throttleTimeMs: 0, errorCode: error.code, errorMessage: error.message, entries: null };
    // Kafka answers an empty message, not null, with its entries.
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '', entries: [] };
  },
});
