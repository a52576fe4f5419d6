/**
 * The requests of the authorization differential (test/interop/acls-differential.test.ts):
 * every API Brook authorizes, sent as a restricted principal over SASL, each reduced to what
 * authorization decides (error codes per topic, partition, group or resource, and which
 * topics and groups are visible). Names carry the configuration's prefix `p`:
 *   topics  A = p+orders, B = p+payroll, C = p+orders-secret, D = p+orders-hidden,
 *           missing ones p+orders-auto, p+payroll-auto, p+orders-new, p+payroll-new,
 *           p+orders-none (which stays missing: Brook's Produce creates it and the step deletes it);
 *   groups  GA = p+group, GB = p+other, G848 = p+group848, GRE = p+regex, and GX = x-p+group
 *           outside the prefix;
 *   transactional ids TX = p+tx, and TXX = x-p+tx outside the prefix.
 */
import { KafkaConnection, type RequestOf, type ResponseOf } from '../../../src/client/connection.js';
import { Api, type ApiCodecs } from '../../../src/protocol/messages/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeSubscription } from '../../../src/protocol/consumer-protocol.js';
import { encodeRecordBatch } from '../../../src/protocol/records/index.js';
import { ZERO_UUID } from '../../../src/protocol/messages/runtime.js';

export interface AclSide {
  readonly name: 'kafka' | 'brook';
  /** A super user (User:ANONYMOUS on the PLAINTEXT listener). */
  readonly admin: KafkaConnection;
  /** The restricted principal (User:alice, SCRAM-SHA-256 on SASL_PLAINTEXT); connected again when a broker closed it. */
  alice: KafkaConnection;
}

/** The version both brokers get: the highest both support, capped where later versions name topics by id (ids differ between brokers). */
export type VersionOf = (api: ApiCodecs) => number;

export interface Step {
  readonly name: string;
  run(side: AclSide, p: string, v: VersionOf): Promise<unknown>;
}

export const names = (p: string) => ({
  A: `${p}orders`, B: `${p}payroll`, C: `${p}orders-secret`, D: `${p}orders-hidden`,
  autoA: `${p}orders-auto`, autoB: `${p}payroll-auto`, newA: `${p}orders-new`, newB: `${p}payroll-new`,
  none: `${p}orders-none`,
  GA: `${p}group`, GB: `${p}other`, G848: `${p}group848`, GRE: `${p}regex`, GX: `x-${p}group`, TX: `${p}tx`, TXX: `x-${p}tx`,
});

export async function send<A extends ApiCodecs>(conn: KafkaConnection, api: A, v: VersionOf, body: RequestOf<A>): Promise<ResponseOf<A>> {
  return conn.request(api, body, { version: v(api) });
}

export const byFirst = (a: readonly unknown[], b: readonly unknown[]): number => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1]));

/**
 * The groups refused (GROUP_AUTHORIZATION_FAILED) in the answer's order, then the rest
 * sorted: Kafka lists the refused ones first and the others by __consumer_offsets partition.
 */
function refusedFirst(groups: unknown[][]): unknown {
  const refused = groups.filter((g) => g[1] === ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const firstServed = groups.findIndex((g) => g[1] !== ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const lastRefused = groups.map((g) => g[1]).lastIndexOf(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  return { refusedFirst: firstServed === -1 || lastRefused < firstServed, refused, served: groups.filter((g) => !refused.includes(g)).sort(byFirst) };
}

/** Polls the super user's Metadata until the topic has a leader. */
async function untilExists(side: AclSide, v: VersionOf, topic: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const md = await send(side.admin, Api.Metadata, v, { topics: [{ name: topic }], allowAutoTopicCreation: false });
    if (md.topics[0]?.errorCode === ErrorCode.NONE && md.topics[0].partitions.every((x) => x.leaderId >= 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${side.name}: ${topic} was not created`);
}

/** Topic id -> name, as the super user's Metadata tells them. */
export async function topicNamesById(side: AclSide, v: VersionOf): Promise<Map<string, string>> {
  const md = await send(side.admin, Api.Metadata, v, { topics: null, allowAutoTopicCreation: false });
  return new Map(md.topics.map((t) => [t.topicId!, t.name!]));
}

export function produceBody(topics: readonly string[]): RequestOf<typeof Api.Produce> {
  const records = encodeRecordBatch({ records: [{ key: null, value: Buffer.from('acl'), headers: [], timestamp: 1_700_000_000_000 }] });
  return { transactionalId: null, acks: 1, timeoutMs: 10_000, topicData: topics.map((name) => ({ name, partitionData: [{ index: 0, records }] })) };
}

/** JoinGroup (twice when the broker asks for a member id), SyncGroup, Heartbeat, OffsetCommit, OffsetFetch and LeaveGroup of one classic member. */
async function classicMember(conn: KafkaConnection, v: VersionOf, groupId: string, topics: readonly string[]): Promise<Record<string, unknown>> {
  const metadata = encodeSubscription({ topics: [...topics], userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  const join = (memberId: string) => send(conn, Api.JoinGroup, v, {
    groupId, sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, memberId, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata }], reason: null,
  });
  const out: Record<string, unknown> = {};
  let joined = await join('');
  out['JoinGroup'] = joined.errorCode;
  if (joined.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
    joined = await join(joined.memberId);
    out['JoinGroup again'] = joined.errorCode;
  }
  const { memberId, generationId } = joined;
  out['SyncGroup'] = (await send(conn, Api.SyncGroup, v, { groupId, generationId, memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] })).errorCode;
  out['Heartbeat'] = (await send(conn, Api.Heartbeat, v, { groupId, generationId, memberId, groupInstanceId: null })).errorCode;
  const committed = await send(conn, Api.OffsetCommit, v, {
    groupId, generationIdOrMemberEpoch: generationId, memberId, groupInstanceId: null,
    topics: topics.map((name) => ({ name, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }] })),
  });
  out['OffsetCommit'] = committed.topics.flatMap((t) => t.partitions.map((x) => [t.name, x.errorCode])).sort(byFirst);
  out['OffsetFetch'] = await offsetFetch(conn, v, groupId, topics);
  out['OffsetFetch all'] = await offsetFetch(conn, v, groupId, null);
  const left = await send(conn, Api.LeaveGroup, v, { groupId, members: [{ memberId, groupInstanceId: null, reason: null }] });
  out['LeaveGroup'] = [left.errorCode, (left.members ?? []).map((m) => m.errorCode)];
  return out;
}

async function offsetFetch(conn: KafkaConnection, v: VersionOf, groupId: string, topics: readonly string[] | null): Promise<unknown> {
  const r = await send(conn, Api.OffsetFetch, v, {
    groups: [{ groupId, memberId: null, memberEpoch: -1, topics: topics === null ? null : topics.map((name) => ({ name, partitionIndexes: [0] })) }], requireStable: false,
  });
  return r.groups!.map((g) => [g.groupId, g.errorCode, g.topics.flatMap((t) => t.partitions.map((x) => [t.name, x.errorCode, x.committedOffset.toString()])).sort(byFirst)]);
}

/** ConsumerGroupHeartbeat as a new member; leaves again when it joined. */
async function consumerMember(conn: KafkaConnection, v: VersionOf, groupId: string, memberId: string, subscribed: readonly string[]): Promise<number> {
  const r = await send(conn, Api.ConsumerGroupHeartbeat, v, {
    groupId, memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: [...subscribed], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  if (r.errorCode === ErrorCode.NONE) await leave(conn, v, groupId, memberId);
  return r.errorCode;
}

function leave(conn: KafkaConnection, v: VersionOf, groupId: string, memberId: string): Promise<unknown> {
  return send(conn, Api.ConsumerGroupHeartbeat, v, {
    groupId, memberId, memberEpoch: -1, instanceId: null, rackId: null, rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null,
  });
}

/**
 * A member subscribed by regex to everything with the prefix: the topics it is assigned once
 * the regex is resolved (heartbeats until the assignment holds still or 10 s pass).
 */
async function regexMember(side: AclSide, v: VersionOf, groupId: string, regex: string): Promise<unknown> {
  const memberId = `regex-member-${side.name === 'kafka' ? 'k' : 'b'}-0000000001`;
  const beat = (epoch: number, full: boolean) => send(side.alice, Api.ConsumerGroupHeartbeat, v, {
    groupId, memberId, memberEpoch: epoch, instanceId: null, rackId: null, rebalanceTimeoutMs: full ? 30_000 : -1,
    subscribedTopicNames: full ? [] : null, subscribedTopicRegex: full ? regex : null, serverAssignor: full ? 'range' : null, topicPartitions: full ? [] : null,
  });
  let r = await beat(0, true);
  if (r.errorCode !== ErrorCode.NONE) return { errorCode: r.errorCode };
  let epoch = r.memberEpoch;
  let assigned: string[] = [];
  let stableFor = 0;
  const ids = await topicNamesById(side, v);
  for (let i = 0; i < 50 && stableFor < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    r = await beat(epoch, false);
    if (r.errorCode !== ErrorCode.NONE) return { errorCode: r.errorCode };
    epoch = r.memberEpoch;
    if (r.assignment !== null) {
      assigned = r.assignment.topicPartitions.map((tp) => ids.get(tp.topicId) ?? tp.topicId).sort();
      stableFor = 0;
    } else if (assigned.length > 0) {
      stableFor++;
    }
  }
  await leave(side.alice, v, groupId, memberId);
  return { errorCode: ErrorCode.NONE, assigned };
}

/**
 * Every step, in order: later ones change state (deletions) that earlier ones must not see.
 * `more` go before the steps that delete topics and groups.
 */
export function aclSteps(more: readonly Step[] = []): Step[] {
  const topicCodes = <T extends { name: string; errorCode: number }>(ts: readonly T[]) => ts.map((t) => [t.name, t.errorCode]).sort(byFirst);
  return [
    { name: 'Metadata listed (auto-create)', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.Metadata, v, {
        topics: [n.A, n.B, n.C, n.D, n.autoA, n.autoB].map((name) => ({ name })), allowAutoTopicCreation: true, includeTopicAuthorizedOperations: true,
      });
      // Brook creates synchronously and describes the topic (NONE); Kafka answers
      // UNKNOWN_TOPIC_OR_PARTITION and creates it soon after (docs/ARCHITECTURE.md): wait for that.
      const auto = new Set([n.autoA, n.autoB]);
      const created = r.topics.filter((t) => auto.has(t.name!) && [ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION].includes(t.errorCode as 0 | 3));
      for (const t of created) await untilExists(s, v, t.name!);
      // Kafka lists the topics in the order of a hash set; only the set is compared.
      return r.topics.map((t) => [t.name, created.includes(t) ? 'created' : t.errorCode, t.topicAuthorizedOperations]).sort(byFirst);
    } },
    { name: 'Metadata all topics', async run(s, _p, v) {
      const r = await send(s.alice, Api.Metadata, v, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true });
      // Internal topics (__consumer_offsets, __transaction_state) exist in Kafka only.
      return r.topics.filter((t) => !t.name!.startsWith('__')).map((t) => [t.name, t.errorCode, t.topicAuthorizedOperations]).sort(byFirst);
    } },
    { name: 'Produce', async run(s, p, v) {
      const n = names(p);
      const unknown = n.none;
      const r = await send(s.alice, Api.Produce, v, produceBody([n.A, n.B, n.C, n.D, unknown]));
      // Brook's Produce auto-creates an unknown topic the principal may create; Kafka's answers
      // UNKNOWN_TOPIC_OR_PARTITION (docs/ARCHITECTURE.md). Brook's is deleted again, so the later steps see the same topics.
      const answers = r!.responses.flatMap((t) => t.partitionResponses.map((x) => [t.name, x.errorCode] as [string, number | string]));
      for (const a of answers) {
        if (a[0] !== unknown || (a[1] !== ErrorCode.NONE && a[1] !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)) continue;
        if (a[1] === ErrorCode.NONE) await s.admin.request(Api.DeleteTopics, { topics: [{ name: unknown, topicId: ZERO_UUID }], timeoutMs: 10_000 }, { version: v(Api.DeleteTopics) });
        a[1] = 'unknown or auto-created';
      }
      return answers.sort(byFirst);
    } },
    { name: 'Fetch', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.Fetch, v, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [n.A, n.B, n.C, n.D].map((topic) => ({ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] })),
        forgottenTopicsData: [], rackId: '',
      });
      return [r.errorCode, r.responses.flatMap((t) => t.partitions.map((x) => [t.topic, x.errorCode])).sort(byFirst)];
    } },
    { name: 'ListOffsets', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.ListOffsets, v, {
        replicaId: -1, isolationLevel: 0, topics: [n.A, n.B, n.C, n.D].map((name) => ({ name, partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1 }] })),
      });
      return r.topics.flatMap((t) => t.partitions.map((x) => [t.name, x.errorCode])).sort(byFirst);
    } },
    { name: 'FindCoordinator', async run(s, p, v) {
      const n = names(p);
      const groups = await send(s.alice, Api.FindCoordinator, v, { keyType: 0, coordinatorKeys: [n.GA, n.GB] });
      const txns = await send(s.alice, Api.FindCoordinator, v, { keyType: 1, coordinatorKeys: [n.TX] });
      // Kafka answers a transactional id before its state topic exists with COORDINATOR_NOT_AVAILABLE; only authorization is compared.
      const authz = (code: number): number => (code === ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED || code === ErrorCode.GROUP_AUTHORIZATION_FAILED ? code : 0);
      return [...groups.coordinators!, ...txns.coordinators!].map((c) => [c.key, authz(c.errorCode)]).sort(byFirst);
    } },
    { name: 'classic group members', async run(s, p, v) {
      const n = names(p);
      return { [n.GA]: await classicMember(s.alice, v, n.GA, [n.A, n.B, n.C]), [n.GB]: await classicMember(s.alice, v, n.GB, [n.A, n.D]) };
    } },
    { name: 'OffsetCommit without membership', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.OffsetCommit, v, {
        groupId: n.GB, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
        topics: [n.A, n.B, n.C].map((name) => ({ name, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }] })),
      });
      return r.topics.flatMap((t) => t.partitions.map((x) => [t.name, x.errorCode])).sort(byFirst);
    } },
    { name: 'DescribeGroups', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.DescribeGroups, v, { groups: [n.GA, n.GB, n.G848], includeAuthorizedOperations: true });
      return refusedFirst(r.groups.map((g) => [g.groupId, g.errorCode, g.groupState, g.authorizedOperations]));
    } },
    { name: 'ListGroups', async run(s, _p, v) {
      const r = await send(s.alice, Api.ListGroups, v, { statesFilter: [], typesFilter: [] });
      return [r.errorCode, r.groups.map((g) => g.groupId).sort()];
    } },
    { name: 'OffsetDelete', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.OffsetDelete, v, { groupId: n.GB, topics: [n.A, n.B].map((name) => ({ name, partitions: [{ partitionIndex: 0 }] })) });
      return [r.errorCode, r.topics.flatMap((t) => t.partitions.map((x) => [t.name, x.errorCode])).sort(byFirst)];
    } },
    { name: 'ConsumerGroupHeartbeat', async run(s, p, v) {
      const n = names(p);
      const id = `acl-member-${s.name === 'kafka' ? 'k' : 'b'}-000000001`;
      return {
        [n.A]: await consumerMember(s.alice, v, n.G848, id, [n.A]),
        [`${n.A},${n.B}`]: await consumerMember(s.alice, v, n.G848, id, [n.A, n.B]),
        [n.GB]: await consumerMember(s.alice, v, n.GB, id, [n.A]),
      };
    } },
    { name: 'ConsumerGroupHeartbeat regex', async run(s, p, v) {
      const n = names(p);
      return regexMember(s, v, n.GRE, `${p}.*`);
    } },
    { name: 'ConsumerGroupDescribe', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.ConsumerGroupDescribe, v, { groupIds: [n.G848, n.GB, `${n.G848}-a`], includeAuthorizedOperations: true });
      return refusedFirst(r.groups.map((g) => [g.groupId, g.errorCode, g.members.length, g.authorizedOperations]));
    } },
    { name: 'DescribeCluster', async run(s, _p, v) {
      const r = await send(s.alice, Api.DescribeCluster, v, { includeClusterAuthorizedOperations: true });
      return [r.errorCode, r.clusterAuthorizedOperations];
    } },
    { name: 'DescribeTopicPartitions', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.DescribeTopicPartitions, v, { topics: [n.A, n.B, n.C, n.D, n.none].map((name) => ({ name })), responsePartitionLimit: 100, cursor: null });
      return r.topics.map((t) => [t.name, t.errorCode, t.topicAuthorizedOperations]).sort(byFirst);
    } },
    { name: 'DescribeConfigs', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.DescribeConfigs, v, {
        resources: [[2, n.A], [2, n.B], [2, n.D], [4, '1']].map(([resourceType, resourceName]) => ({ resourceType: resourceType as number, resourceName: resourceName as string, configurationKeys: ['retention.ms', 'log.retention.ms', 'consumer.session.timeout.ms'] })),
        includeSynonyms: false, includeDocumentation: false,
      });
      return r.results.map((x) => [x.resourceType, x.resourceName, x.errorCode]);
    } },
    { name: 'IncrementalAlterConfigs (validate only)', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.IncrementalAlterConfigs, v, {
        resources: [
          ...[n.A, n.B].map((resourceName) => ({ resourceType: 2, resourceName, configs: [{ name: 'retention.ms', configOperation: 0, value: '86400000' }] })),
          { resourceType: 4, resourceName: '1', configs: [{ name: 'log.retention.ms', configOperation: 0, value: '86400000' }] },
          // Another node's id and the broker's loggers: authorization comes before either is looked at.
          { resourceType: 4, resourceName: '7', configs: [{ name: 'log.retention.ms', configOperation: 0, value: '86400000' }] },
          { resourceType: 8, resourceName: '1', configs: [] },
        ],
        validateOnly: true,
      });
      return r.responses.map((x) => [x.resourceType, x.resourceName, x.errorCode]);
    } },
    { name: 'group and client-metrics config resources', async run(s, p, v) {
      const n = names(p);
      const resources: [number, string, string, string][] = [[32, n.GA, 'consumer.session.timeout.ms', '45000'], [16, `${p}metrics`, 'interval.ms', '60000']];
      const described = await send(s.alice, Api.DescribeConfigs, v, {
        resources: resources.map(([resourceType, resourceName]) => ({ resourceType, resourceName, configurationKeys: null })), includeSynonyms: false, includeDocumentation: false,
      });
      const altered = await send(s.alice, Api.IncrementalAlterConfigs, v, {
        resources: resources.map(([resourceType, resourceName, name, value]) => ({ resourceType, resourceName, configs: [{ name, configOperation: 0, value }] })), validateOnly: true,
      });
      // Brook has no client-metrics configs (docs/ARCHITECTURE.md): past authorization it refuses them (INVALID_REQUEST) where Kafka goes on.
      const past = (code: number): number | string => {
        if ([ErrorCode.GROUP_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED as number].includes(code)) return code;
        return s.name === 'kafka' || code === ErrorCode.INVALID_REQUEST || code === ErrorCode.NONE ? 'past authorization' : code;
      };
      return [
        described.results.map((x) => [x.resourceType, x.resourceName, past(x.errorCode)]),
        altered.responses.map((x) => [x.resourceType, x.resourceName, past(x.errorCode)]),
      ];
    } },
    { name: 'DescribeLogDirs', async run(s, _p, v) {
      const r = await send(s.alice, Api.DescribeLogDirs, v, { topics: null });
      return [r.errorCode, r.results.length > 0];
    } },
    { name: 'DescribeProducers', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.DescribeProducers, v, { topics: [n.A, n.B, n.D].map((name) => ({ name, partitionIndexes: [0] })) });
      return r.topics.flatMap((t) => t.partitions.map((x) => [t.name, x.errorCode])).sort(byFirst);
    } },
    { name: 'InitProducerId', async run(s, p, v) {
      const n = names(p);
      let idempotent = await send(s.alice, Api.InitProducerId, v, { transactionalId: null, transactionTimeoutMs: 60_000 });
      // Kafka's producer id manager may still be loading its first block.
      for (let i = 0; i < 100 && idempotent.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        idempotent = await send(s.alice, Api.InitProducerId, v, { transactionalId: null, transactionTimeoutMs: 60_000 });
      }
      let transactional = await send(s.alice, Api.InitProducerId, v, { transactionalId: n.TX, transactionTimeoutMs: 60_000 });
      // Kafka's transaction coordinator may still be loading its state topic.
      for (let i = 0; i < 100 && [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR, ErrorCode.CONCURRENT_TRANSACTIONS as number].includes(transactional.errorCode); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        transactional = await send(s.alice, Api.InitProducerId, v, { transactionalId: n.TX, transactionTimeoutMs: 60_000 });
      }
      return [idempotent.errorCode, transactional.errorCode, transactional.producerEpoch];
    } },
    { name: 'CreatePartitions (validate only)', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.CreatePartitions, v, { topics: [n.A, n.B, n.D].map((name) => ({ name, count: 2, assignments: null })), timeoutMs: 10_000, validateOnly: true });
      return topicCodes(r.results);
    } },
    { name: 'DeleteRecords', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.DeleteRecords, v, { topics: [n.A, n.B, n.C].map((name) => ({ name, partitions: [{ partitionIndex: 0, offset: 0n }] })), timeoutMs: 10_000 });
      return r.topics.flatMap((t) => t.partitions.map((x) => [t.name, x.errorCode])).sort(byFirst);
    } },
    { name: 'SCRAM credentials', async run(s, _p, v) {
      // Named users: Kafka 4.4's error response for `users: null` throws, and it then never answers that connection again.
      const described = await send(s.alice, Api.DescribeUserScramCredentials, v, { users: [{ name: 'alice' }, { name: 'nobody' }] });
      const altered = await send(s.alice, Api.AlterUserScramCredentials, v, { deletions: [{ name: 'nobody', mechanism: 1 }], upsertions: [] });
      return [described.errorCode, described.results.map((u) => [u.user, u.errorCode]).sort(byFirst), altered.results.map((u) => [u.user, u.errorCode])];
    } },
    { name: 'Create/Describe/DeleteAcls', async run(s, p, v) {
      const acl = { resourceType: 2, resourceName: `${p}x`, resourcePatternType: 3, principal: 'User:nobody', host: '*', operation: 3, permissionType: 3 };
      const created = await send(s.alice, Api.CreateAcls, v, { creations: [acl] });
      const described = await send(s.alice, Api.DescribeAcls, v, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 });
      const deleted = await send(s.alice, Api.DeleteAcls, v, { filters: [{ resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: 'User:nobody', hostFilter: null, operation: 1, permissionType: 1 }] });
      return [created.results.map((x) => x.errorCode), described.errorCode, deleted.filterResults.map((f) => f.errorCode)];
    } },
    ...more,
    { name: 'CreateTopics', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.CreateTopics, v, {
        topics: [n.newA, n.newB, n.A].map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })), timeoutMs: 10_000, validateOnly: false,
      });
      return r.topics.map((t) => [t.name, t.errorCode, t.topicConfigErrorCode]).sort(byFirst);
    } },
    { name: 'DeleteGroups', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.DeleteGroups, v, { groupsNames: [n.GA, n.GB, `${p}group-none`] });
      return r.results.map((x) => [x.groupId, x.errorCode]).sort(byFirst);
    } },
    { name: 'DeleteTopics', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.DeleteTopics, v, { topics: [n.B, n.C, n.none].map((name) => ({ name, topicId: ZERO_UUID })), timeoutMs: 10_000 });
      return r.responses.map((t) => [t.name, t.errorCode]).sort(byFirst);
    } },
  ];
}
