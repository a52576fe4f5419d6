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

/** Kafka answers a described resource with an empty error message, not null. */
const NO_ERROR_MESSAGE = '';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;

/**
 * Topic configs are not read-only (Kafka lets them be altered); Brook's broker configs are
 * static. `isDefault` exists in v0 only (v1 replaced it with the config source): a later
 * version must leave it false or the response cannot be encoded.
 */
function entry(
  version: number, name: string, value: string | null, source: number, type: number, readOnly: boolean,
  synonyms: NonNullable<DescribeConfigsResourceResult['synonyms']>,
): DescribeConfigsResourceResult {
  return {
    name, value, readOnly, isDefault: version === 0 && source === ConfigSource.DEFAULT_CONFIG, configSource: source, isSensitive: false,
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
        .map((c) => entry(ctx.apiVersion, c.name, c.value, c.source, c.type, false, includeSynonyms ? c.synonyms : []));
      return { ...base, errorCode: ErrorCode.NONE, errorMessage: NO_ERROR_MESSAGE, configs };
    }
    case BROKER: case BROKER_LOGGER: {
      if (resource.resourceName !== String(broker.config.nodeId) && resource.resourceName !== '') {
        return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unexpected broker id, expected ${broker.config.nodeId} but received ${resource.resourceName}`, configs: [] };
      }
      if (resource.resourceType === BROKER_LOGGER || resource.resourceName === '') return { ...base, errorCode: ErrorCode.NONE, errorMessage: NO_ERROR_MESSAGE, configs: [] };
      const configs = brokerConfigEntries(broker.config, broker.listeners)
        .filter((c) => wanted(c.name))
        .map((c) => {
          const source = c.isDefault ? ConfigSource.DEFAULT_CONFIG : ConfigSource.STATIC_BROKER_CONFIG;
          // As Kafka: the value in force first, then Kafka's default when there is one.
          const synonyms = [];
          if (c.value !== null && !c.isDefault) synonyms.push({ name: c.name, value: c.value, source });
          if (c.kafkaDefault !== null) synonyms.push({ name: c.name, value: c.kafkaDefault, source: ConfigSource.DEFAULT_CONFIG });
          return entry(ctx.apiVersion, c.name, c.value, source, c.type, true, includeSynonyms ? synonyms : []);
        });
      return { ...base, errorCode: ErrorCode.NONE, errorMessage: NO_ERROR_MESSAGE, configs };
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
