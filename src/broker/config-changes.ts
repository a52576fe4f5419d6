/**
 * What IncrementalAlterConfigs and AlterConfigs share: checking a request's resources as
 * Kafka does (ConfigAdminManager.preprocess on the broker, then the controller's
 * ConfigurationControlManager), and applying a resource's new configs, as a whole, to a
 * topic, to this broker's dynamic configs or to a group. Errors carry Kafka's codes and messages.
 *
 * Deliberate differences (test/interop/admin-configs-differential.test.ts):
 *  - broker configs Brook does not change at runtime (Kafka's other dynamic ones:
 *    listeners, thread pools, quotas, TLS; and names Kafka does not know, which Kafka keeps
 *    for plugins) are refused as configs that "cannot be updated dynamically";
 *  - Brook has no log4j loggers (BROKER_LOGGER): every logger is unknown;
 *  - client-metrics configs are not supported (INVALID_REQUEST).
 */
import { ErrorCode } from '../protocol/errors.js';
import { StorageError } from '../storage/errors.js';
import type { TopicConfigs } from '../storage/types.js';
import { DYNAMIC_BROKER_CONFIGS } from './broker-configs.js';
import type { BrokerContext } from './broker-context.js';
import { groupConfigsProblem } from './group-configs/group-config-defs.js';
import type { GroupConfigs } from './group-configs/group-config-store.js';

/** Kafka's ConfigResource.Type ids. */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const;

export interface ConfigError {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export const NO_ERROR: ConfigError = { errorCode: ErrorCode.NONE, errorMessage: null };

export function configError(errorCode: number, errorMessage: string | null): ConfigError {
  return { errorCode, errorMessage };
}

interface Resource {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly configs: readonly { readonly name: string; readonly value: string | null }[];
}

/**
 * Kafka's preprocessing, per resource in request order: null where the resource may go on,
 * else its error. `nullAllowed` says which entries may carry a null value (DELETE).
 * `authorizationError` is the resource's ALTER_CONFIGS check (the error code, or null when
 * allowed): as Kafka's ConfigAdminManager and ControllerApis, it comes after the duplicate
 * and null checks and before anything else is looked at (the node id, the logger, whether
 * Brook has the resource type at all).
 */
export function preprocess<R extends Resource>(
  ctx: BrokerContext, resources: readonly R[], nullAllowed: (config: R['configs'][number]) => boolean, loggers: boolean,
  authorizationError: (resourceType: number, resourceName: string) => number | null,
): (ConfigError | null)[] {
  const seen = new Map<string, number>();
  for (const r of resources) {
    const key = `${r.resourceType}\u0000${r.resourceName}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return resources.map((r) => {
    if (seen.get(`${r.resourceType}\u0000${r.resourceName}`)! > 1) return configError(ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.');
    const names = r.configs.map((c) => c.name);
    if (new Set(names).size !== names.length) return configError(ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys');
    const nulls = r.configs.filter((c) => c.value === null && !nullAllowed(c)).map((c) => c.name);
    if (nulls.length > 0) return configError(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${nulls.join(', ')}`);
    const known = r.resourceType === ResourceType.TOPIC || r.resourceType === ResourceType.BROKER || r.resourceType === ResourceType.CLIENT_METRICS
      || r.resourceType === ResourceType.GROUP || (loggers && r.resourceType === ResourceType.BROKER_LOGGER);
    const denied = known ? authorizationError(r.resourceType, r.resourceName) : null;
    if (denied !== null) return configError(denied, null);
    switch (r.resourceType) {
      case ResourceType.TOPIC:
        return null;
      case ResourceType.BROKER:
        return r.resourceName === '' ? null : checkNodeId(ctx, r.resourceName);
      case ResourceType.BROKER_LOGGER: {
        if (!loggers) break;
        const wrongNode = checkNodeId(ctx, r.resourceName);
        if (wrongNode) return wrongNode;
        const first = r.configs[0];
        return first === undefined ? NO_ERROR : configError(ErrorCode.INVALID_CONFIG, `Logger ${first.name} does not exist!`);
      }
      case ResourceType.GROUP:
        return null;
      case ResourceType.CLIENT_METRICS:
        return configError(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`);
    }
    return configError(ErrorCode.INVALID_REQUEST, `Unknown resource type ${r.resourceType}`);
  });
}

/** Kafka's validateResourceNameIsCurrentNodeId. */
function checkNodeId(ctx: BrokerContext, name: string): ConfigError | null {
  if (!/^[+-]?\d+$/.test(name)) return configError(ErrorCode.INVALID_REQUEST, `Node id must be an integer, but it is: ${name}`);
  if (Number(name) !== ctx.config.nodeId) return configError(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${ctx.config.nodeId}, but received ${name}`);
  return null;
}

/** Why a topic's configs cannot be altered (no such topic, or the topic default ''), or null. */
export function topicProblem(ctx: BrokerContext, name: string): ConfigError | null {
  if (name === '') return configError(ErrorCode.INVALID_REQUEST, 'Default topic resources are not allowed.');
  if (!ctx.storage.topic(name)) return configError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
  return null;
}

/** Replaces a topic's explicit configs (validated as Kafka's LogConfig.validate), unless `validateOnly`. */
export function applyTopicConfigs(ctx: BrokerContext, name: string, configs: TopicConfigs, validateOnly: boolean): ConfigError {
  try {
    ctx.storage.alterTopicConfigs(name, configs, { validateOnly });
  } catch (err) {
    if (err instanceof StorageError) return configError(err.errorCode, err.detail);
    throw err;
  }
  if (!validateOnly) ctx.log.info('altered topic configs', { topic: name, configs });
  return NO_ERROR;
}

/**
 * Replaces one broker resource's dynamic configs ('' = the cluster default), unless
 * `validateOnly`. As Kafka (KAFKA-13609), a bad broker config is INVALID_REQUEST.
 */
export function applyBrokerConfigs(ctx: BrokerContext, resource: string, configs: TopicConfigs, validateOnly: boolean): ConfigError {
  const fixed = Object.keys(configs).filter((name) => !DYNAMIC_BROKER_CONFIGS.has(name)).sort();
  if (fixed.length > 0) return configError(ErrorCode.INVALID_REQUEST, `Cannot update these configs dynamically: [${fixed.join(', ')}]`);
  try {
    ctx.storage.setBrokerConfigs(resource, configs, { validateOnly });
  } catch (err) {
    if (err instanceof StorageError) return configError(ErrorCode.INVALID_REQUEST, err.detail);
    throw err;
  }
  if (!validateOnly) ctx.log.info('altered dynamic broker configs', { resource, configs });
  return NO_ERROR;
}

/**
 * Replaces a group's configs with what `change` makes of them (or its error), validated as
 * Kafka's GroupConfig.validate against the broker's bounds; answered once durable. Kafka's
 * controller neither needs nor checks that the group exists.
 */
export async function applyGroupConfigs(
  ctx: BrokerContext, group: string, change: (current: GroupConfigs) => TopicConfigs | ConfigError, validateOnly: boolean,
): Promise<ConfigError> {
  if (group === '') return configError(ErrorCode.INVALID_REQUEST, 'Default group resources are not allowed.');
  const failed = await ctx.groupConfigs.alter<ConfigError>(group, (current) => {
    const next = change(current);
    if ('errorCode' in next) return { error: next as ConfigError };
    const problem = groupConfigsProblem(next, ctx.config);
    return problem === null ? { configs: next } : { error: configError(ErrorCode.INVALID_CONFIG, problem) };
  }, validateOnly, (message) => configError(ErrorCode.KAFKA_STORAGE_ERROR, message));
  if (failed !== null) return failed;
  if (!validateOnly) ctx.log.info('altered group configs', { group, configs: ctx.groupConfigs.get(group) });
  return NO_ERROR;
}
