/**
 * DescribeConfigs for topics (every topic config with its value and source) and for this
 * broker (the static settings clients ask about). Broker loggers have nothing to report.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  DescribeConfigsRequestData, DescribeConfigsResponseData, DescribeConfigsResult, DescribeConfigsResourceResult, DescribeConfigsResource,
} from '../../protocol/messages/describe-configs.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { ConfigSource, topicConfigViews } from '../topic-config-view.js';
import { brokerConfigEntries } from '../broker-config-view.js';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;

/** Topic configs are not read-only (Kafka lets them be altered); Brook's broker configs are static. */
function entry(
  name: string, value: string | null, source: number, type: number, readOnly: boolean,
  synonyms: NonNullable<DescribeConfigsResourceResult['synonyms']>,
): DescribeConfigsResourceResult {
  return {
    name, value, readOnly, isDefault: source === ConfigSource.DEFAULT_CONFIG, configSource: source, isSensitive: false,
    synonyms, configType: type, documentation: null,
  };
}

function describe(ctx: RequestContext, resource: DescribeConfigsResource, includeSynonyms: boolean): DescribeConfigsResult {
  const { broker } = ctx;
  const base = { resourceType: resource.resourceType, resourceName: resource.resourceName, errorMessage: null };
  const keys = resource.configurationKeys === null ? null : new Set(resource.configurationKeys);
  const wanted = (name: string): boolean => keys === null || keys.has(name);
  switch (resource.resourceType) {
    case TOPIC: {
      const topic = broker.storage.topic(resource.resourceName);
      if (!topic) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic '${resource.resourceName}' does not exist.`, configs: [] };
      const configs = topicConfigViews(topic.configs, broker.storage.topicDefaults)
        .filter((c) => wanted(c.name))
        .map((c) => entry(c.name, c.value, c.source, c.type, false, includeSynonyms ? c.synonyms : []));
      return { ...base, errorCode: ErrorCode.NONE, configs };
    }
    case BROKER: case BROKER_LOGGER: {
      if (resource.resourceName !== String(broker.config.nodeId) && resource.resourceName !== '') {
        return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unexpected broker id, expected ${broker.config.nodeId} but received ${resource.resourceName}`, configs: [] };
      }
      if (resource.resourceType === BROKER_LOGGER || resource.resourceName === '') return { ...base, errorCode: ErrorCode.NONE, configs: [] };
      const configs = brokerConfigEntries(broker.config)
        .filter((c) => wanted(c.name))
        .map((c) => {
          const source = c.isDefault ? ConfigSource.DEFAULT_CONFIG : ConfigSource.STATIC_BROKER_CONFIG;
          return entry(c.name, c.value, source, c.type, true, includeSynonyms ? [{ name: c.name, value: c.value, source }] : []);
        });
      return { ...base, errorCode: ErrorCode.NONE, configs };
    }
    default:
      return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unsupported resource type ${resource.resourceType}`, configs: [] };
  }
}

export const describeConfigsHandler = defineHandler<DescribeConfigsRequestData, DescribeConfigsResponseData>({
  api: Api.DescribeConfigs,
  minVersion: 0,
  maxVersion: Api.DescribeConfigs.request.highestVersion,
  handle(ctx, request) {
    const includeSynonyms = request.includeSynonyms === true;
    return { throttleTimeMs: 0, results: request.resources.map((r) => describe(ctx, r, includeSynonyms)) };
  },
});
