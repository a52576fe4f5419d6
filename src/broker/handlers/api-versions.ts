/**
 * ApiVersions: the APIs and version ranges this broker serves. Only handlers that exist
 * are listed, so clients never pick an API Brook cannot answer. From v5 (KIP-1242) a client
 * may name the cluster and node it believes it reached, both or neither (INVALID_REQUEST
 * otherwise, as Kafka's ApiVersionsRequest.isValid): when either differs, the answer is
 * REBOOTSTRAP_REQUIRED with no APIs, so that the client goes back to its bootstrap servers.
 */
import { ApiVersionsRequest, type ApiVersionsRequestData, type ApiVersionsResponseData } from '../../protocol/messages/api-versions.js';
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerContext } from '../broker-context.js';
import { defineHandler } from '../handler.js';
import { exemptFromAuthorization } from '../authorization.js';

/** Kafka's rule for client software names and versions (KIP-511). */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/**
 * The features Brook serves, as Kafka 4.4's broker lists them (supported range; finalized
 * level): `transaction.version` 2 is KIP-890's transaction version 2, which Kafka 4.4's
 * clients use when it is finalized; `group.version` 1 is the KIP-848 consumer group protocol.
 * Kafka's KRaft features (metadata.version, kraft.version, ...) are not listed: Brook has no
 * KRaft metadata log.
 */
const FEATURES: readonly { name: string; min: number; max: number; finalized: number }[] = [
  { name: 'group.version', min: 0, max: 1, finalized: 1 },
  { name: 'transaction.version', min: 0, max: 2, finalized: 2 },
];
/** Brook's finalized features never change, so their epoch is fixed. */
const FINALIZED_FEATURES_EPOCH = 0n;

export function apiVersionsResponse(broker: BrokerContext, errorCode: number = ErrorCode.NONE, apiVersion = 0): ApiVersionsResponseData {
  const apiKeys = [...broker.handlers.values()]
    .sort((a, b) => a.api.apiKey - b.api.apiKey)
    .map((h) => ({ apiKey: h.api.apiKey, minVersion: h.advertisedMinVersion ?? h.minVersion, maxVersion: h.maxVersion }));
  return {
    errorCode, apiKeys, throttleTimeMs: 0,
    // As Kafka (ApiVersionsResponse): below v4, supported features whose range starts at 0 are
    // left out (older clients reject a 0 minimum); the finalized ones are listed at any version.
    supportedFeatures: FEATURES.filter((f) => apiVersion >= 4 || f.min > 0).map((f) => ({ name: f.name, minVersion: f.min, maxVersion: f.max })),
    finalizedFeaturesEpoch: FINALIZED_FEATURES_EPOCH,
    finalizedFeatures: FEATURES.map((f) => ({ name: f.name, minVersionLevel: f.finalized, maxVersionLevel: f.finalized })),
  };
}

/**
 * The v0 answer to an ApiVersions request of a version this broker does not serve. As
 * Kafka's (ApiVersionsRequest.getErrorResponse), it lists only ApiVersions' own range: all a
 * client needs to retry with a version both sides speak.
 */
export function unsupportedApiVersionsResponse(): ApiVersionsResponseData {
  return {
    errorCode: ErrorCode.UNSUPPORTED_VERSION,
    apiKeys: [{ apiKey: Api.ApiVersions.apiKey, minVersion: apiVersionsHandler.minVersion, maxVersion: apiVersionsHandler.maxVersion }],
    throttleTimeMs: 0,
  };
}

export const apiVersionsHandler = defineHandler<ApiVersionsRequestData, ApiVersionsResponseData>({
  api: Api.ApiVersions,
  authorization: exemptFromAuthorization('asked before a client authenticates, as in Kafka'),
  minVersion: 0,
  maxVersion: ApiVersionsRequest.highestVersion,
  handle(ctx, request) {
    const clusterId = request.clusterId ?? null;
    const nodeId = request.nodeId ?? -1;
    if (ctx.apiVersion >= 5 && (clusterId === null) !== (nodeId === -1)) return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
    if (ctx.apiVersion >= 3) {
      const name = request.clientSoftwareName ?? '';
      const version = request.clientSoftwareVersion ?? '';
      if (!SOFTWARE_PATTERN.test(name) || !SOFTWARE_PATTERN.test(version)) {
        return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
      }
    }
    if (ctx.apiVersion >= 5 && clusterId !== null && (clusterId !== ctx.broker.storage.clusterId || nodeId !== ctx.broker.config.nodeId)) {
      return { errorCode: ErrorCode.REBOOTSTRAP_REQUIRED, apiKeys: [], throttleTimeMs: 0 };
    }
    return apiVersionsResponse(ctx.broker, ErrorCode.NONE, ctx.apiVersion);
  },
});
