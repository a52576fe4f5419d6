/**
 * KafkaJS's admin client over Brook's Admin. Answers have KafkaJS's shapes: offsets as
 * strings, `-1` for "no committed offset", describeConfigs' numeric resource types and
 * config sources. The ACL calls are in acls.ts.
 */
import { Admin, GroupNotFoundError, type ConfigResource, type ConfigSourceName } from '../client/admin/index.js';
import type { CommonClientOptions } from '../client/options.js';
import { encodeAssignment } from '../protocol/consumer-protocol.js';
import { ErrorCode, KafkaProtocolError } from '../protocol/errors.js';
import { KafkaJSDeleteGroupsError, KafkaJSNonRetriableError, KafkaJSProtocolError, kafkajsCall, toKafkaJSError } from './errors.js';
import { createAcls, deleteAcls, describeAcls, type AclEntry, type AclFilter } from './acls.js';
import * as reassignments from './reassignments.js';
import * as check from './admin-validation.js';
import { Instrumentation, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './events.js';
import type { GroupAdmin } from './group-admin.js';
import type { KafkaJSLogging } from './logger.js';

export const ConfigResourceTypes = Object.freeze({ UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const);
export const ConfigSource = Object.freeze({
  UNKNOWN: 0, TOPIC_CONFIG: 1, DYNAMIC_BROKER_CONFIG: 2, DYNAMIC_DEFAULT_BROKER_CONFIG: 3, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5, DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const);
export const AclResourceTypes = Object.freeze({ UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6 } as const);
export const AclOperationTypes = Object.freeze({
  UNKNOWN: 0, ANY: 1, ALL: 2, READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8, CLUSTER_ACTION: 9, DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12,
} as const);
export const AclPermissionTypes = Object.freeze({ UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const);
export const ResourcePatternTypes = Object.freeze({ UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const);

const RESOURCE_TYPES: Record<number, ConfigResource['type']> = { 2: 'topic', 4: 'broker', 8: 'broker-logger' };
const SOURCES: Partial<Record<ConfigSourceName, number>> = {
  DYNAMIC_TOPIC_CONFIG: 1, DYNAMIC_BROKER_CONFIG: 2, DYNAMIC_DEFAULT_BROKER_CONFIG: 3, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5, DYNAMIC_BROKER_LOGGER_CONFIG: 6,
};

export const ADMIN_EVENTS = Object.freeze({
  CONNECT: 'admin.connect',
  DISCONNECT: 'admin.disconnect',
  REQUEST: 'admin.network.request',
  REQUEST_TIMEOUT: 'admin.network.request_timeout',
  REQUEST_QUEUE_SIZE: 'admin.network.request_queue_size',
});

export interface ITopicConfig {
  topic: string;
  numPartitions?: number;
  replicationFactor?: number;
  replicaAssignment?: object[];
  configEntries?: { name: string; value: string }[];
}

interface PartitionOffset { partition: number; offset: string }

export class KafkaJSAdmin implements GroupAdmin {
  readonly events = ADMIN_EVENTS;
  private readonly instrumentation: Instrumentation;
  private admin: Admin | null = null;
  private connecting: Promise<Admin> | null = null;
  private clientId = '';

  constructor(private readonly resolveCommon: () => Promise<CommonClientOptions>, private readonly logging: KafkaJSLogging) {
    this.instrumentation = new Instrumentation(ADMIN_EVENTS, ADMIN_EVENTS.REQUEST, () => this.clientId);
  }

  on(eventName: string, listener: (event: InstrumentationEvent<unknown>) => void): RemoveInstrumentationEventListener {
    return this.instrumentation.on(eventName, listener);
  }

  logger(): ReturnType<KafkaJSLogging['logger']> {
    return this.logging.logger('Admin');
  }

  async connect(): Promise<void> {
    await this.open();
    this.instrumentation.emit(ADMIN_EVENTS.CONNECT);
  }

  private async open(): Promise<Admin> {
    this.connecting ??= kafkajsCall(async () => {
      const common = await this.resolveCommon();
      this.clientId = common.clientId ?? '';
      return Admin.connect({ ...common, logger: this.logging.brook('Admin') });
    });
    try {
      this.admin = await this.connecting;
    } catch (err) {
      this.connecting = null;
      throw err;
    }
    return this.admin;
  }

  /**
   * Runs an admin call, connecting first if needed: KafkaJS's admin calls work before
   * connect() (its cluster connects on the first request), and applications rely on it.
   */
  private call<T>(fn: () => Promise<T>): Promise<T> {
    return kafkajsCall(async () => {
      if (!this.admin) await this.open();
      return fn();
    });
  }

  async disconnect(): Promise<void> {
    const admin = this.admin;
    this.admin = null;
    this.connecting = null;
    admin?.close();
    this.instrumentation.unwatchRequests();
    this.instrumentation.emit(ADMIN_EVENTS.DISCONNECT);
  }

  private get a(): Admin {
    if (!this.admin) throw new KafkaJSNonRetriableError('The admin client is not connected (call connect() first)');
    return this.admin;
  }

  /** Resolves true when a topic was created, false when every one existed already. */
  async createTopics({ topics, validateOnly, timeout }: { topics: ITopicConfig[]; validateOnly?: boolean; waitForLeaders?: boolean; timeout?: number }): Promise<boolean> {
    check.checkCreateTopics(topics);
    if (validateOnly) return true;
    if (!this.admin) await this.open();
    let created = false;
    for (const t of topics) {
      try {
        await this.a.createTopic({
          name: t.topic, partitions: t.numPartitions ?? -1, replicationFactor: t.replicationFactor ?? -1,
          ...(t.configEntries ? { configs: Object.fromEntries(t.configEntries.map((c) => [c.name, c.value])) } : {}),
        }, timeout !== undefined ? { timeoutMs: timeout } : {});
        created = true;
      } catch (err) {
        if (err instanceof KafkaProtocolError && err.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS) continue;
        throw (await kafkajsCall(() => Promise.reject(err)).catch((e: unknown) => e));
      }
    }
    return created;
  }

  async deleteTopics({ topics, timeout }: { topics: string[]; timeout?: number }): Promise<void> {
    check.checkDeleteTopics(topics);
    return this.call(async () => {
      for (const t of topics) await this.a.deleteTopic(t, timeout !== undefined ? { timeoutMs: timeout } : {});
    });
  }

  async createPartitions({ topicPartitions, validateOnly, timeout }: { topicPartitions: { topic: string; count: number; assignments?: number[][] }[]; validateOnly?: boolean; timeout?: number }): Promise<boolean> {
    check.checkCreatePartitions(topicPartitions);
    return this.call(async () => {
      for (const t of topicPartitions) {
        await this.a.createPartitions(t.topic, t.count, { ...(validateOnly ? { validateOnly } : {}), ...(t.assignments ? { assignments: t.assignments } : {}), ...(timeout !== undefined ? { timeoutMs: timeout } : {}) });
      }
      return true;
    });
  }

  listTopics(): Promise<string[]> {
    return this.call(() => this.a.listTopics());
  }

  async fetchTopicMetadata({ topics = [] }: { topics?: string[] } = {}): Promise<{ topics: { name: string; partitions: { partitionErrorCode: number; partitionId: number; leader: number; replicas: number[]; isr: number[]; offlineReplicas: number[] }[] }[] }> {
    topics?.forEach(check.checkTopic);
    return this.call(async () => {
      const names = topics.length > 0 ? topics : await this.a.listTopics();
      const described = await this.a.describeTopics(names);
      return {
        topics: described.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partitionErrorCode: 0, partitionId: p.partition, leader: p.leader, replicas: p.replicas, isr: p.isr, offlineReplicas: p.offline })),
        })),
      };
    });
  }

  private async partitionsOf(topic: string): Promise<{ topic: string; partition: number }[]> {
    const d = await this.a.describeTopic(topic);
    return d.partitions.map((p) => ({ topic, partition: p.partition })).sort((x, y) => x.partition - y.partition);
  }

  /** Per partition: `offset` and `high` the log end offset, `low` the log start offset. */
  async fetchTopicOffsets(topic: string): Promise<{ partition: number; offset: string; high: string; low: string }[]> {
    check.checkTopic(topic);
    return this.call(async () => {
      const tps = await this.partitionsOf(topic);
      const [ends, starts] = await Promise.all([this.a.logEndOffsets(tps), this.a.logStartOffsets(tps)]);
      const at = (m: Map<string, bigint>, p: number): string => String(pick(m, topic, p) ?? -1n);
      return tps.map(({ partition }) => ({ partition, offset: at(ends, partition), high: at(ends, partition), low: at(starts, partition) }));
    });
  }

  /** The first offset at or after `timestamp` per partition; the log end when there is none (KafkaJS's answer). */
  async fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number): Promise<PartitionOffset[]> {
    check.checkTopic(topic);
    return this.call(async () => {
      const tps = await this.partitionsOf(topic);
      if (timestamp === undefined) return (await this.fetchTopicOffsets(topic)).map(({ partition, offset }) => ({ partition, offset }));
      const [found, ends] = await Promise.all([this.a.offsetsForTime(tps, BigInt(timestamp)), this.a.logEndOffsets(tps)]);
      return tps.map(({ partition }) => {
        const f = pick(found, topic, partition);
        return { partition, offset: String(f ?? pick(ends, topic, partition) ?? -1n) };
      });
    });
  }

  /** The group's committed offsets of `topics` (every partition, '-1' where none), or of every topic it committed for. */
  async fetchOffsets({ groupId, topics }: { groupId: string; topics?: string[]; resolveOffsets?: boolean }): Promise<{ topic: string; partitions: (PartitionOffset & { metadata: string | null })[] }[]> {
    check.checkFetchOffsets(groupId, topics);
    return this.call(async () => {
      const committed = await this.a.committedOffsets(groupId);
      const names = topics ?? [...new Set(committed.map((c) => c.topic))];
      const out = [];
      for (const topic of names) {
        const partitions = topics ? (await this.partitionsOf(topic)).map((tp) => tp.partition) : committed.filter((c) => c.topic === topic).map((c) => c.partition).sort((a, b) => a - b);
        out.push({
          topic,
          partitions: partitions.map((partition) => {
            const c = committed.find((x) => x.topic === topic && x.partition === partition);
            return { partition, offset: String(c?.offset ?? -1n), metadata: c?.metadata || null };
          }),
        });
      }
      return out;
    });
  }

  /** Commits these offsets for the group (which must have no active members, as Kafka requires). */
  async setOffsets({ groupId, topic, partitions }: { groupId: string; topic: string; partitions: PartitionOffset[] }): Promise<void> {
    check.checkGroupTopic(groupId, topic, { partitions });
    return this.call(async () => {
      await this.checkGroupInactive(groupId);
      await this.a.commitOffsets(groupId, partitions.map((p) => ({ topic, partition: p.partition, offset: BigInt(p.offset) })));
    });
  }

  /** Moves the group's offsets of `topic` to the log end, or the log start with `earliest`. */
  async resetOffsets({ groupId, topic, earliest = false }: { groupId: string; topic: string; earliest?: boolean }): Promise<void> {
    check.checkGroupTopic(groupId, topic);
    return this.call(async () => {
      await this.checkGroupInactive(groupId);
      await this.a.resetOffsets(groupId, { scope: { kind: 'topics', topics: [{ topic }] }, spec: { kind: earliest ? 'earliest' : 'latest' }, execute: true });
    });
  }

  /** KafkaJS's check before it moves a group's offsets: no member may be running (the group Empty or Dead). */
  private async checkGroupInactive(groupId: string): Promise<void> {
    const { state } = await this.describeGroup(groupId);
    if (state !== 'Empty' && state !== 'Dead') throw new KafkaJSNonRetriableError(`The consumer group must have no running instances, current state: ${state}`);
  }

  listGroups(): Promise<{ groups: { groupId: string; protocolType: string }[] }> {
    return this.call(async () => ({ groups: (await this.a.listGroups()).map((g) => ({ groupId: g.group, protocolType: g.protocolType })) }));
  }

  describeGroups(groupIds: string[]): Promise<{ groups: GroupDescription[] }> {
    return this.call(async () => ({ groups: await Promise.all(groupIds.map((g) => this.describeGroup(g))) }));
  }

  /** @internal one group as KafkaJS describes it; memberMetadata is not available (an empty buffer). */
  async describeGroup(groupId: string): Promise<GroupDescription> {
    // A group that does not exist is described as KafkaJS (Kafka's DescribeGroups) describes it: Dead, no members.
    const d = await this.call(() => this.a.describeGroup(groupId).catch((err: unknown) => {
      if (err instanceof GroupNotFoundError) return { protocol: '', protocolType: '', state: 'Dead', members: [] };
      throw err;
    }));
    const byTopic = (tps: readonly { topic: string; partition: number }[]): { topic: string; partitions: number[] }[] => {
      const m = new Map<string, number[]>();
      for (const tp of tps) (m.get(tp.topic) ?? m.set(tp.topic, []).get(tp.topic)!).push(tp.partition);
      return [...m].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) }));
    };
    return {
      groupId, errorCode: 0, protocol: d.protocol, protocolType: d.protocolType, state: d.state,
      members: d.members.map((m) => ({
        memberId: m.memberId, clientId: m.clientId, clientHost: m.host, memberMetadata: Buffer.alloc(0),
        memberAssignment: encodeAssignment({ assignedPartitions: byTopic(m.assignment), userData: null }, 0),
      })),
    };
  }

  async deleteGroups(groupIds: string[]): Promise<{ groupId: string; errorCode: number }[]> {
    check.checkDeleteGroups(groupIds);
    return this.call(async () => {
      // As KafkaJS: every group is tried; those Kafka refused come back together in a KafkaJSDeleteGroupsError.
      const out = [];
      const refused: { groupId: string; errorCode: number; error: KafkaJSProtocolError }[] = [];
      for (const groupId of groupIds) {
        try {
          await this.a.deleteGroup(groupId);
          out.push({ groupId, errorCode: 0 });
        } catch (err) {
          const error = err instanceof GroupNotFoundError ? new KafkaJSProtocolError(ErrorCode.GROUP_ID_NOT_FOUND, { cause: err }) : toKafkaJSError(err);
          if (!(error instanceof KafkaJSProtocolError)) throw error;
          refused.push({ groupId, errorCode: error.code, error });
        }
      }
      if (refused.length > 0) throw new KafkaJSDeleteGroupsError('Error in DeleteGroups', refused);
      return out;
    });
  }

  describeCluster(): Promise<{ brokers: { nodeId: number; host: string; port: number }[]; controller: number | null; clusterId: string }> {
    return this.call(async () => {
      const c = await this.a.describeCluster();
      return { brokers: c.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })), controller: c.controllerId < 0 ? null : c.controllerId, clusterId: c.clusterId ?? '' };
    });
  }

  async describeConfigs({ resources, includeSynonyms = false }: { resources: { type: number; name: string; configNames?: string[] }[]; includeSynonyms?: boolean }): Promise<unknown> {
    check.checkDescribeConfigs(resources);
    return this.call(async () => ({
      throttleTime: 0,
      resources: await Promise.all(resources.map(async (r) => {
        const type = RESOURCE_TYPES[r.type];
        if (!type) throw new KafkaJSNonRetriableError(`Invalid ConfigResourceType: ${r.type}`);
        const entries = await this.a.describeConfigs({ type, name: r.name }, { ...(r.configNames && r.configNames.length > 0 ? { keys: r.configNames } : {}), synonyms: includeSynonyms });
        return {
          errorCode: 0, errorMessage: '', resourceType: r.type, resourceName: r.name,
          configEntries: entries.map((e) => ({
            configName: e.name, configValue: e.value, readOnly: e.readOnly, isDefault: e.source === 'DEFAULT_CONFIG', configSource: SOURCES[e.source] ?? 0, isSensitive: e.sensitive,
            configSynonyms: includeSynonyms ? e.synonyms.map((s) => ({ configName: s.name, configValue: s.value, configSource: SOURCES[s.source] ?? 0 })) : [],
          })),
        };
      })),
    }));
  }

  /** Sets each resource's configs (KafkaJS's alterConfigs: the entries given replace the resource's dynamic configs). */
  async alterConfigs({ resources, validateOnly = false }: { resources: { type: number; name: string; configEntries: { name: string; value: string }[] }[]; validateOnly?: boolean }): Promise<unknown> {
    check.checkAlterConfigs(resources);
    return this.call(async () => {
      for (const r of resources) {
        const type = RESOURCE_TYPES[r.type];
        if (!type) throw new KafkaJSNonRetriableError(`Invalid ConfigResourceType: ${r.type}`);
        await this.a.alterConfigs({ type, name: r.name }, Object.fromEntries(r.configEntries.map((c) => [c.name, c.value])), validateOnly ? { validateOnly } : {});
      }
      return { throttleTime: 0, resources: resources.map((r) => ({ errorCode: 0, errorMessage: '', resourceType: r.type, resourceName: r.name })) };
    });
  }

  /** Deletes records before each offset; '-1' means the high watermark (everything). */
  async deleteTopicRecords({ topic, partitions }: { topic: string; partitions: PartitionOffset[] }): Promise<void> {
    check.checkDeleteTopicRecords(topic, partitions);
    return this.call(async () => {
      const ends = await this.a.logEndOffsets(partitions.map((p) => ({ topic, partition: p.partition })));
      await this.a.deleteRecords(partitions.map((p) => ({ topic, partition: p.partition, offset: p.offset === '-1' ? pick(ends, topic, p.partition) ?? 0n : BigInt(p.offset) })));
    });
  }

  async alterPartitionReassignments(request: { topics: reassignments.PartitionReassignment[]; timeout?: number }): Promise<void> {
    if (!this.admin) await this.call(() => this.open());
    return reassignments.alterPartitionReassignments(this.a, request);
  }

  async listPartitionReassignments(request: { topics?: { topic: string; partitions: number[] }[] | null; timeout?: number } = {}): Promise<reassignments.ListPartitionReassignmentsResponse> {
    if (!this.admin) await this.call(() => this.open());
    return reassignments.listPartitionReassignments(this.a, request);
  }

  /** @internal the consumer's commits outside run(). */
  commitOffsets(groupId: string, offsets: readonly { topic: string; partition: number; offset: bigint }[]): Promise<void> {
    return this.call(() => this.a.commitOffsets(groupId, offsets));
  }

  async createAcls({ acl }: { acl: AclEntry[] }): Promise<true> {
    check.checkAclEntries(acl, 'ACL');
    return this.call(() => createAcls(this.a, acl));
  }

  async describeAcls(filter: AclFilter): ReturnType<typeof describeAcls> {
    check.checkDescribeAcls(filter as unknown as Record<string, unknown>);
    return this.call(() => describeAcls(this.a, filter));
  }

  async deleteAcls({ filters }: { filters: AclFilter[] }): ReturnType<typeof deleteAcls> {
    check.checkAclEntries(filters, 'ACL Filter');
    return this.call(() => deleteAcls(this.a, filters));
  }
}

export interface GroupDescription {
  groupId: string;
  errorCode: number;
  protocol: string;
  protocolType: string;
  state: string;
  members: { memberId: string; clientId: string; clientHost: string; memberMetadata: Buffer; memberAssignment: Buffer }[];
}

/** A partition's entry of Brook's per-partition maps (keyed `topic:partition`). */
function pick<T>(m: ReadonlyMap<string, T>, topic: string, partition: number): T | undefined {
  return m.get(`${topic}:${partition}`);
}
