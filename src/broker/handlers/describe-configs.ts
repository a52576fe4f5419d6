/**
 * DescribeConfigs for topics (every topic config with its value and source) and for this
 * broker (the settings clients ask about, and the dynamic ones), or the cluster-wide
 * dynamic defaults (resource name ''), and for groups (every group config, the group's own
 * or the broker's default). Broker loggers have nothing to report. With an
 * authorizer: DESCRIBE_CONFIGS on the topic, group or cluster (../authorization.ts), the
 * refused resources answered after the others, as Kafka's ConfigHelper orders them.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  DescribeConfigsRequestData, DescribeConfigsResponseData, DescribeConfigsResult, DescribeConfigsResourceResult, DescribeConfigsResource,
} from '../../protocol/messages/describe-configs.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { AclOperation, configResourceError, authorizes } from '../authorization.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { brokerConfigLayers, topicConfigViews } from '../topic-config-view.js';
import { brokerConfigEntries, dynamicDefaultEntries } from '../broker-config-view.js';
import { groupConfigEntries } from '../group-configs/group-config-view.js';

/** Kafka answers a described resource with an empty error message, not null. */
const NO_ERROR_MESSAGE = '';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const GROUP = 32;

/**
 * Topic configs are not read-only (Kafka lets them be altered); broker configs are unless
 * Brook takes them dynamically.
 */
function entry(
  name: string, value: string | null, source: number, type: number, readOnly: boolean,
  synonyms: NonNullable<DescribeConfigsResourceResult['synonyms']>,
): DescribeConfigsResourceResult {
  return {
    name, value, readOnly, configSource: source, isSensitive: false,
    synonyms, configType: type, documentation: null,
  };
}

function describe(ctx: RequestContext, resource: DescribeConfigsResource, includeSynonyms: boolean, includeDocumentation: boolean): DescribeConfigsResult {
  const { broker } = ctx;
  const base = { resourceType: resource.resourceType, resourceName: resource.resourceName, errorMessage: null };
  const keys = resource.configurationKeys === null ? null : new Set(resource.configurationKeys);
  const wanted = (name: string): boolean => keys === null || keys.has(name);
  switch (resource.resourceType) {
    case TOPIC: {
      const topic = broker.storage.topic(resource.resourceName);
      if (!topic) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic '${resource.resourceName}' does not exist.`, configs: [] };
      const configs = topicConfigViews(topic.configs, broker.storage, broker.config.nodeId)
        .filter((c) => wanted(c.name))
        .map((c) => entry(c.name, c.value, c.source, c.type, false, includeSynonyms ? c.synonyms : []));
      return { ...base, errorCode: ErrorCode.NONE, errorMessage: NO_ERROR_MESSAGE, configs };
    }
    case BROKER: case BROKER_LOGGER: {
      if (resource.resourceName !== String(broker.config.nodeId) && resource.resourceName !== '') {
        return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unexpected broker id, expected ${broker.config.nodeId} but received ${resource.resourceName}`, configs: [] };
      }
      if (resource.resourceType === BROKER_LOGGER) return { ...base, errorCode: ErrorCode.NONE, errorMessage: NO_ERROR_MESSAGE, configs: [] };
      // The cluster-wide resource ('') holds only its dynamic defaults, as Kafka's.
      const entries = resource.resourceName === ''
        ? dynamicDefaultEntries(broker.storage.brokerConfigs(''))
        : brokerConfigEntries(broker.config, broker.listeners, brokerConfigLayers(broker.storage, broker.config.nodeId));
      const configs = entries
        .filter((c) => wanted(c.name))
        .map((c) => entry(c.name, c.value, c.source, c.type, c.readOnly, includeSynonyms ? c.synonyms : []));
      return { ...base, errorCode: ErrorCode.NONE, errorMessage: NO_ERROR_MESSAGE, configs };
    }
    case GROUP: {
      if (resource.resourceName === '') return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Group name must not be empty', configs: [] };
      const configs = groupConfigEntries(broker.groupConfigs.get(resource.resourceName), broker.config)
        .filter((c) => wanted(c.name))
        .map((c) => ({
          ...entry(c.name, c.value, c.source, c.type, false, includeSynonyms ? [...c.synonyms] : []),
          documentation: includeDocumentation ? c.documentation : null,
        }));
      return { ...base, errorCode: ErrorCode.NONE, errorMessage: NO_ERROR_MESSAGE, configs };
    }
    default:
      return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unsupported resource type ${resource.resourceType}`, configs: [] };
  }
}

export const describeConfigsHandler = defineHandler<DescribeConfigsRequestData, DescribeConfigsResponseData>({
  api: Api.DescribeConfigs,
  authorization: authorizes({ TOPIC: ['DESCRIBE_CONFIGS'], GROUP: ['DESCRIBE_CONFIGS'], CLUSTER: ['DESCRIBE_CONFIGS'] }),
  // v0 (with isDefault instead of the config source) was removed in Kafka 4 (KIP-896).
  minVersion: 1,
  maxVersion: Api.DescribeConfigs.request.highestVersion,
  handle(ctx, request) {
    const includeSynonyms = request.includeSynonyms === true;
    const includeDocumentation = request.includeDocumentation === true;
    // As Kafka's ConfigHelper: the resources the client may describe first, then the refused ones, each in the request's order.
    const results: DescribeConfigsResult[] = [];
    const refused: DescribeConfigsResult[] = [];
    for (const r of request.resources) {
      const denied = configResourceError(ctx, AclOperation.DESCRIBE_CONFIGS, r.resourceType, r.resourceName);
      if (denied === null) results.push(describe(ctx, r, includeSynonyms, includeDocumentation));
      else refused.push({ resourceType: r.resourceType, resourceName: r.resourceName, errorCode: denied, errorMessage: errorInfo(denied).message, configs: [] });
    }
    results.push(...refused);
    return { throttleTimeMs: 0, results };
  },
});
