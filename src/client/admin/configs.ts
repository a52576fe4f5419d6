/**
 * Configs: DescribeConfigs, IncrementalAlterConfigs and AlterConfigs, for topics and groups
 * (any broker answers) and brokers (the broker named by the resource answers for itself; the
 * cluster default, name '', any broker), as Kafka's admin client routes them. A broker's
 * refusal is thrown as KafkaProtocolError with its code and message.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import type { BrokerConnection } from '../connection.js';
import { check, type AdminContext } from './requests.js';
import type { AlterConfigOp, ConfigEntry, ConfigResource, ConfigSourceName, ConfigTypeName, DescribeConfigsOptions } from './types.js';

const RESOURCE_TYPES = { topic: 2, broker: 4, 'broker-logger': 8, group: 32 } as const;
const OPS = { set: 0, delete: 1, append: 2, subtract: 3 } as const;

/** Kafka's ConfigEntry.ConfigSource names, by DescribeConfigs source id. */
const SOURCES: readonly ConfigSourceName[] = [
  'UNKNOWN', 'DYNAMIC_TOPIC_CONFIG', 'DYNAMIC_BROKER_CONFIG', 'DYNAMIC_DEFAULT_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG', 'CLIENT_METRICS_CONFIG', 'GROUP_CONFIG',
];
/** Kafka's ConfigEntry.ConfigType names, by id. */
const TYPES: readonly ConfigTypeName[] = ['UNKNOWN', 'BOOLEAN', 'STRING', 'INT', 'SHORT', 'LONG', 'DOUBLE', 'LIST', 'CLASS', 'PASSWORD'];

const sourceName = (id: number): ConfigSourceName => SOURCES[id] ?? 'UNKNOWN';

/** The broker that answers for `resource`. */
async function connectionFor(ctx: AdminContext, resource: ConfigResource): Promise<BrokerConnection> {
  if ((resource.type === 'broker' || resource.type === 'broker-logger') && resource.name !== '') {
    const nodeId = Number(resource.name);
    if (Number.isInteger(nodeId) && ctx.cluster.broker(nodeId) !== undefined) return ctx.cluster.connectionToNode(nodeId, ctx.signal);
  }
  return ctx.cluster.anyConnection(ctx.signal);
}

function only<T>(items: readonly T[], api: string): T {
  const first = items[0];
  if (first === undefined) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `empty ${api} response`);
  return first;
}

export async function describeConfigs(ctx: AdminContext, resource: ConfigResource, options: DescribeConfigsOptions): Promise<ConfigEntry[]> {
  const connection = await connectionFor(ctx, resource);
  const response = await connection.request(Api.DescribeConfigs, {
    resources: [{ resourceType: RESOURCE_TYPES[resource.type], resourceName: resource.name, configurationKeys: options.keys ? [...options.keys] : null }],
    includeSynonyms: options.synonyms ?? false,
    includeDocumentation: options.documentation ?? false,
  }, { signal: ctx.signal });
  const result = only(response.results, 'DescribeConfigs');
  check(result.errorCode, result.errorMessage || resource.name);
  return result.configs
    .map((c): ConfigEntry => ({
      name: c.name,
      value: c.value,
      source: sourceName(c.configSource ?? 0),
      readOnly: c.readOnly,
      sensitive: c.isSensitive,
      type: TYPES[c.configType ?? 0] ?? 'UNKNOWN',
      synonyms: (c.synonyms ?? []).map((s) => ({ name: s.name, value: s.value, source: sourceName(s.source) })),
      documentation: c.documentation ?? null,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export async function incrementalAlterConfigs(ctx: AdminContext, resource: ConfigResource, ops: readonly AlterConfigOp[], validateOnly: boolean): Promise<void> {
  const connection = await connectionFor(ctx, resource);
  const response = await connection.request(Api.IncrementalAlterConfigs, {
    resources: [{
      resourceType: RESOURCE_TYPES[resource.type],
      resourceName: resource.name,
      configs: ops.map((o) => ({ name: o.name, configOperation: OPS[o.op], value: o.op === 'delete' ? null : (o.value ?? null) })),
    }],
    validateOnly,
  }, { signal: ctx.signal });
  const result = only(response.responses, 'IncrementalAlterConfigs');
  check(result.errorCode, result.errorMessage ?? resource.name);
}

export async function alterConfigs(ctx: AdminContext, resource: ConfigResource, configs: Readonly<Record<string, string>>, validateOnly: boolean): Promise<void> {
  const connection = await connectionFor(ctx, resource);
  const response = await connection.request(Api.AlterConfigs, {
    resources: [{ resourceType: RESOURCE_TYPES[resource.type], resourceName: resource.name, configs: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
    validateOnly,
  }, { signal: ctx.signal });
  const result = only(response.responses, 'AlterConfigs');
  check(result.errorCode, result.errorMessage ?? resource.name);
}
