/**
 * Group operations: ListGroups (every broker: each lists the groups it coordinates, v4+
 * filtered by state, v5+ by type), describe (ConsumerGroupDescribe for KIP-848 consumer
 * groups, DescribeGroups for classic ones, as Kafka's Admin.describeConsumerGroups) and
 * DeleteGroups (the group's coordinator).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment } from '../../protocol/consumer-protocol.js';
import type { ConsumerGroupDescribeResponseDescribedGroup, ConsumerGroupDescribeResponseTopicPartitions } from '../../protocol/messages/consumer-group-describe.js';
import type { BrokerAddress } from '../cluster.js';
import type { BrokerConnection } from '../connection.js';
import { UnsupportedApiVersionError } from '../errors.js';
import { GroupNotFoundError } from './errors.js';
import { check, compareTopicPartition, withCoordinator, type AdminContext } from './requests.js';
import type { GroupDescription, GroupListing, ListGroupsOptions, TopicPartition } from './types.js';

/** The ListGroups version a filter needs, as Kafka's ListGroupsRequest.Builder demands it. */
function checkFilterVersion(version: number, filter: { states: readonly string[]; types: readonly string[] }): void {
  if (filter.types.length > 0 && version < 5) {
    throw new UnsupportedApiVersionError(`The broker only supports ListGroups v${version}, but we need v5 or newer to request groups by type.`);
  }
  if (filter.states.length > 0 && version < 4) {
    throw new UnsupportedApiVersionError(`The broker only supports ListGroups v${version}, but we need v4 or newer to request groups by states.`);
  }
}

/** Every group of the cluster (or those the filters let through), sorted by id. */
export async function listGroups(ctx: AdminContext, options: Pick<ListGroupsOptions, 'states' | 'types'> = {}): Promise<GroupListing[]> {
  const filter = { states: [...(options.states ?? [])], types: [...(options.types ?? [])] };
  await ctx.cluster.refreshMetadata([], ctx.signal);
  const perBroker = await Promise.all(ctx.cluster.knownBrokers().map(async (broker) => {
    const connection = await ctx.cluster.connectionTo(broker, ctx.signal);
    const version = connection.supportedVersion(Api.ListGroups);
    if (version !== undefined) checkFilterVersion(version, filter);
    const response = await connection.request(Api.ListGroups, { statesFilter: filter.states, typesFilter: filter.types }, { signal: ctx.signal });
    check(response.errorCode, `ListGroups on broker ${broker.nodeId}`);
    return response.groups;
  }));
  const byId = new Map<string, GroupListing>();
  for (const g of perBroker.flat()) {
    byId.set(g.groupId, { group: g.groupId, state: g.groupState ?? '', type: g.groupType ?? '', protocolType: g.protocolType });
  }
  return [...byId.values()].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

/** A member's assignment from the consumer protocol; [] when it has none or it is not a consumer group. */
function decodeMemberAssignment(protocolType: string, bytes: Buffer): TopicPartition[] {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE || bytes.length === 0) return [];
  const { assignment } = decodeAssignment(bytes);
  return assignment.assignedPartitions
    .flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })))
    .sort(compareTopicPartition);
}

/** ConsumerGroupDescribe's topic partitions as sorted (topic, partition) pairs. */
function topicPartitions(list: readonly ConsumerGroupDescribeResponseTopicPartitions[]): TopicPartition[] {
  return list.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topicName, partition }))).sort(compareTopicPartition);
}

function consumerGroupDescription(g: ConsumerGroupDescribeResponseDescribedGroup, coordinator: BrokerAddress): GroupDescription {
  return {
    group: g.groupId,
    type: 'consumer',
    state: g.groupState,
    protocolType: CONSUMER_PROTOCOL_TYPE,
    protocol: g.assignorName,
    generation: g.groupEpoch,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.instanceId,
      clientId: m.clientId,
      host: m.clientHost,
      assignment: topicPartitions(m.assignment.topicPartitions),
      memberEpoch: m.memberEpoch,
      targetAssignment: topicPartitions(m.targetAssignment.topicPartitions),
      subscribedTopics: [...m.subscribedTopicNames].sort(),
      // Kafka sends '' for a member without a regex.
      subscribedTopicRegex: m.subscribedTopicRegex === '' ? null : m.subscribedTopicRegex,
      rackId: m.rackId === '' ? null : m.rackId,
    })),
    coordinator,
  };
}

/**
 * ConsumerGroupDescribe at the coordinator: the description of a consumer group, or null
 * when the group is not one (GROUP_ID_NOT_FOUND: classic or unknown) or the broker cannot
 * describe consumer groups (no ConsumerGroupDescribe, or UNSUPPORTED_VERSION: the consumer
 * protocol is off), the cases where Kafka's admin client falls back to DescribeGroups.
 */
async function describeConsumerGroup(ctx: AdminContext, group: string, connection: BrokerConnection, coordinator: BrokerAddress): Promise<GroupDescription | null> {
  if (connection.supportedVersion(Api.ConsumerGroupDescribe) === undefined) return null;
  const response = await connection.request(Api.ConsumerGroupDescribe, { groupIds: [group], includeAuthorizedOperations: false }, { signal: ctx.signal });
  const g = response.groups.find((x) => x.groupId === group);
  if (!g) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `ConsumerGroupDescribe left out group ${group}`);
  if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND || g.errorCode === ErrorCode.UNSUPPORTED_VERSION) return null;
  check(g.errorCode, g.errorMessage ?? group);
  return consumerGroupDescription(g, coordinator);
}

/** DescribeGroups (the classic describe) at the coordinator. */
async function describeClassicGroup(ctx: AdminContext, group: string, connection: BrokerConnection, coordinator: BrokerAddress): Promise<GroupDescription> {
  const response = await connection.request(Api.DescribeGroups, { groups: [group], includeAuthorizedOperations: false }, { signal: ctx.signal });
  const g = response.groups.find((x) => x.groupId === group);
  if (!g) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `DescribeGroups left out group ${group}`);
  if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw new GroupNotFoundError(group);
  check(g.errorCode, group);
  return {
    group,
    type: 'classic',
    state: g.groupState,
    protocolType: g.protocolType,
    protocol: g.protocolData,
    generation: null,
    groupEpoch: null,
    assignmentEpoch: null,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId ?? null,
      clientId: m.clientId,
      host: m.clientHost,
      assignment: decodeMemberAssignment(g.protocolType, m.memberAssignment),
      memberEpoch: null,
      targetAssignment: null,
      subscribedTopics: null,
      subscribedTopicRegex: null,
      rackId: null,
    })),
    coordinator,
  };
}

/**
 * Describes the group at its coordinator as Kafka's Admin.describeConsumerGroups (4.x) does:
 * ConsumerGroupDescribe first; for a group that is not a consumer group, or a broker that
 * cannot describe one, DescribeGroups. GROUP_ID_NOT_FOUND (ConsumerGroupDescribe, and
 * DescribeGroups from v6, KIP-1043) becomes GroupNotFoundError; DescribeGroups before v6
 * answers an unknown group with state 'Dead' and no error, which is passed on.
 */
export async function describeGroup(ctx: AdminContext, group: string): Promise<GroupDescription> {
  return withCoordinator(ctx, group, async (connection, coordinator) =>
    (await describeConsumerGroup(ctx, group, connection, coordinator)) ?? describeClassicGroup(ctx, group, connection, coordinator));
}

/** DeleteGroups: only an Empty group can go (NON_EMPTY_GROUP otherwise; GROUP_ID_NOT_FOUND when unknown). */
export async function deleteGroup(ctx: AdminContext, group: string): Promise<void> {
  await withCoordinator(ctx, group, async (connection) => {
    const response = await connection.request(Api.DeleteGroups, { groupsNames: [group] }, { signal: ctx.signal });
    const result = response.results.find((r) => r.groupId === group);
    if (!result) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `DeleteGroups left out group ${group}`);
    if (result.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw new GroupNotFoundError(group);
    check(result.errorCode, `group '${group}'`);
  });
}
