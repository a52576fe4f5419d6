/**
 * AlterConfigs (the legacy API): a resource's configs are replaced as a whole, those not
 * given return to their defaults. Topics, this broker's dynamic configs and groups' configs,
 * checked and worded as Kafka 4.4 does (see ../config-changes.ts).
 */
import { Api } from '../../protocol/messages/index.js';
import type { AlterConfigsRequestAlterConfigsResource, AlterConfigsRequestData, AlterConfigsResponseData } from '../../protocol/messages/alter-configs.js';
import type { BrokerContext } from '../broker-context.js';
import { applyBrokerConfigs, applyGroupConfigs, applyTopicConfigs, preprocess, topicProblem, ResourceType, type ConfigError } from '../config-changes.js';
import { AclOperation, configResourceError, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

function alter(ctx: BrokerContext, resource: AlterConfigsRequestAlterConfigsResource, validateOnly: boolean): ConfigError | Promise<ConfigError> {
  // Preprocessing refused null values.
  const configs = Object.fromEntries(resource.configs.map((c) => [c.name, c.value!]));
  if (resource.resourceType === ResourceType.GROUP) return applyGroupConfigs(ctx, resource.resourceName, () => configs, validateOnly);
  if (resource.resourceType === ResourceType.TOPIC) {
    return topicProblem(ctx, resource.resourceName) ?? applyTopicConfigs(ctx, resource.resourceName, configs, validateOnly);
  }
  return applyBrokerConfigs(ctx, resource.resourceName, configs, validateOnly);
}

export const alterConfigsHandler = defineHandler<AlterConfigsRequestData, AlterConfigsResponseData>({
  api: Api.AlterConfigs,
  authorization: authorizes({ TOPIC: ['ALTER_CONFIGS'], GROUP: ['ALTER_CONFIGS'], CLUSTER: ['ALTER_CONFIGS'] }),
  minVersion: 0,
  maxVersion: Api.AlterConfigs.request.highestVersion,
  handle(ctx, request) {
    const { broker } = ctx;
    const early = preprocess(broker, request.resources, () => false, false, (type, name) => configResourceError(ctx, AclOperation.ALTER_CONFIGS, type, name));
    const outcomes = request.resources.map((r, i) => early[i] ?? alter(broker, r, request.validateOnly));
    const answer = (done: readonly ConfigError[]): AlterConfigsResponseData => ({
      throttleTimeMs: 0,
      responses: done.map((outcome, i) => ({ ...outcome, resourceType: request.resources[i]!.resourceType, resourceName: request.resources[i]!.resourceName })),
    });
    // Group changes answer once durable; the rest at once.
    return outcomes.some((o) => o instanceof Promise) ? Promise.all(outcomes).then(answer) : answer(outcomes as ConfigError[]);
  },
});
