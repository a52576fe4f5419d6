/**
 * ApiVersions: the APIs and version ranges this broker serves. Only handlers that exist
 * are listed, so clients never pick an API Brook cannot answer.
 */
import { ApiVersionsRequest, type ApiVersionsRequestData, type ApiVersionsResponseData } from '../../protocol/messages/api-versions.js';
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerContext } from '../broker-context.js';
import { defineHandler } from '../handler.js';

/** Kafka's rule for client software names and versions (KIP-511). */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export function apiVersionsResponse(broker: BrokerContext, errorCode: number = ErrorCode.NONE): ApiVersionsResponseData {
  const apiKeys = [...broker.handlers.values()]
    .sort((a, b) => a.api.apiKey - b.api.apiKey)
    .map((h) => ({ apiKey: h.api.apiKey, minVersion: h.advertisedMinVersion ?? h.minVersion, maxVersion: h.maxVersion }));
  return { errorCode, apiKeys, throttleTimeMs: 0 };
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
  minVersion: 0,
  maxVersion: ApiVersionsRequest.highestVersion,
  handle(ctx, request) {
    if (ctx.apiVersion >= 3) {
      const name = request.clientSoftwareName ?? '';
      const version = request.clientSoftwareVersion ?? '';
      if (!SOFTWARE_PATTERN.test(name) || !SOFTWARE_PATTERN.test(version)) {
        return { ...apiVersionsResponse(ctx.broker, ErrorCode.INVALID_REQUEST), apiKeys: [] };
      }
    }
    return apiVersionsResponse(ctx.broker);
  },
});
