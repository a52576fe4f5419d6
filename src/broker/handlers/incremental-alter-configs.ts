/**
 * IncrementalAlterConfigs: SET, DELETE, APPEND and SUBTRACT (list configs only) on a topic's
 * configs, this broker's dynamic configs or a group's configs, checked and worded as Kafka
 * 4.4 does (see ../config-changes.ts). A resource's changes apply together or not at all;
 * topic changes persist and reach the topic's logs at once, as do broker defaults for every
 * topic that does not override them; group changes are answered once durable.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  IncrementalAlterConfigsRequestAlterConfigsResource, IncrementalAlterConfigsRequestData, IncrementalAlterConfigsResponseData,
} from '../../protocol/messages/incremental-alter-configs.js';
import { ErrorCode } from '../../protocol/errors.js';
import { TOPIC_CONFIG_DEFS, TOPIC_DEFS_BY_BROKER_NAME } from '../../storage/topic-configs.js';
import type { TopicConfigs } from '../../storage/types.js';
import type { BrokerContext } from '../broker-context.js';
import {
  applyBrokerConfigs, applyGroupConfigs, applyTopicConfigs, configError, preprocess, topicProblem, ResourceType, type ConfigError,
} from '../config-changes.js';
import { AclOperation, configResourceError, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

/** Kafka's AlterConfigOp.OpType. */
const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
const OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

/** A list value's items, empty ones dropped (Kafka's getParts). */
function parts(value: string | null | undefined): string[] {
  return (value ?? '').split(',').filter((p) => p !== '');
}

/**
 * The resource's configs after the operations, or the error that refuses them. `isList`
 * and `kafkaDefault` describe a config by name; `listError` words a refused APPEND/SUBTRACT.
 */
function applyOps(
  current: TopicConfigs, resource: IncrementalAlterConfigsRequestAlterConfigsResource,
  isList: (name: string) => boolean, kafkaDefault: (name: string) => string | null,
  listError: (op: string, name: string) => string, unknownOp: (op: number) => ConfigError,
): TopicConfigs | ConfigError {
  const next: Record<string, string> = { ...current };
  for (const { name, configOperation, value } of resource.configs) {
    switch (configOperation) {
      case OpType.SET:
        next[name] = value!;
        break;
      case OpType.DELETE:
        delete next[name];
        break;
      case OpType.APPEND: case OpType.SUBTRACT: {
        if (!isList(name)) return configError(ErrorCode.INVALID_CONFIG, listError(OP_NAMES[configOperation]!, name));
        const items = parts(next[name] ?? kafkaDefault(name));
        const given = value!.split(',');
        const result = configOperation === OpType.APPEND
          ? [...items, ...given.filter((v, i) => !items.includes(v) && given.indexOf(v) === i)]
          : items.filter((v) => !given.includes(v));
        next[name] = result.join(',');
        break;
      }
      default:
        return unknownOp(configOperation);
    }
  }
  return next;
}

function alter(ctx: BrokerContext, resource: IncrementalAlterConfigsRequestAlterConfigsResource, validateOnly: boolean): ConfigError | Promise<ConfigError> {
  if (resource.resourceType === ResourceType.GROUP) {
    // Kafka's controller knows no group config as a list: APPEND and SUBTRACT are refused for every one.
    return applyGroupConfigs(ctx, resource.resourceName, (current) => applyOps(current, resource, () => false, () => null,
      (op, name) => `Can't ${op} to key ${name} because its type is not LIST.`,
      () => configError(ErrorCode.UNKNOWN_SERVER_ERROR, null)), validateOnly);
  }
  if (resource.resourceType === ResourceType.TOPIC) {
    // As Kafka's controller: the operations first, then whether the topic exists.
    const next = applyOps(ctx.storage.topic(resource.resourceName)?.configs ?? {}, resource,
      (name) => TOPIC_CONFIG_DEFS.get(name)?.type === 'list',
      (name) => TOPIC_CONFIG_DEFS.get(name)?.default ?? null,
      (op, name) => `Can't ${op} to key ${name} because its type is not LIST.`,
      // Kafka's controller meets an unknown operation without a message (a null OpType).
      () => configError(ErrorCode.UNKNOWN_SERVER_ERROR, null));
    if ('errorCode' in next) return next as ConfigError;
    return topicProblem(ctx, resource.resourceName) ?? applyTopicConfigs(ctx, resource.resourceName, next, validateOnly);
  }
  const current = ctx.storage.brokerConfigs(resource.resourceName);
  const next = applyOps(current, resource,
    (name) => TOPIC_DEFS_BY_BROKER_NAME.get(name)?.type === 'list',
    (name) => TOPIC_DEFS_BY_BROKER_NAME.get(name)?.default ?? null,
    (op, name) => `Config value ${op.toLowerCase()} is not allowed for config key: ${name}`,
    (op) => configError(ErrorCode.INVALID_REQUEST, `Unknown operations type ${op}`));
  if ('errorCode' in next) return next as ConfigError;
  return applyBrokerConfigs(ctx, resource.resourceName, next, validateOnly);
}

export const incrementalAlterConfigsHandler = defineHandler<IncrementalAlterConfigsRequestData, IncrementalAlterConfigsResponseData>({
  api: Api.IncrementalAlterConfigs,
  authorization: authorizes({ TOPIC: ['ALTER_CONFIGS'], GROUP: ['ALTER_CONFIGS'], CLUSTER: ['ALTER_CONFIGS'] }),
  minVersion: 0,
  maxVersion: Api.IncrementalAlterConfigs.request.highestVersion,
  handle(ctx, request) {
    const { broker } = ctx;
    const early = preprocess(broker, request.resources, (c) => c.configOperation === OpType.DELETE, true, (type, name) => configResourceError(ctx, AclOperation.ALTER_CONFIGS, type, name));
    const outcomes = request.resources.map((r, i) => early[i] ?? alter(broker, r, request.validateOnly));
    const answer = (done: readonly ConfigError[]): IncrementalAlterConfigsResponseData => ({
      throttleTimeMs: 0,
      responses: done.map((outcome, i) => ({ ...outcome, resourceType: request.resources[i]!.resourceType, resourceName: request.resources[i]!.resourceName })),
    });
    // Group changes answer once durable; the rest at once.
    return outcomes.some((o) => o instanceof Promise) ? Promise.all(outcomes).then(answer) : answer(outcomes as ConfigError[]);
  },
});
