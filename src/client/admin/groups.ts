/**
 * Group operations of the classic protocol: ListGroups (every broker: each lists the groups
 * it coordinates), DescribeGroups and DeleteGroups (the group's coordinator).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment } from '../../protocol/consumer-protocol.js';
import { GroupNotFoundError } from './errors.js';
import { check, compareTopicPartition, withCoordinator, type AdminContext } from './requests.js';
import type { GroupDescription, GroupListing, TopicPartition } from './types.js';

/** Every group of the cluster, sorted by id. */
export async function listGroups(ctx: AdminContext): Promise<GroupListing[]> {
  await ctx.cluster.refreshMetadata([], ctx.signal);
  const perBroker = await Promise.all(ctx.cluster.knownBrokers().map(async (broker) => {
    const connection = await ctx.cluster.connectionTo(broker, ctx.signal);
    const response = await connection.request(Api.ListGroups, { statesFilter: [], typesFilter: [] }, { signal: ctx.signal });
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

/**
 * DescribeGroups at the coordinator. An unknown group comes back as state 'Dead' (classic
 * DescribeGroups answers so, without an error); GROUP_ID_NOT_FOUND becomes GroupNotFoundError.
 */
export async function describeGroup(ctx: AdminContext, group: string): Promise<GroupDescription> {
  return withCoordinator(ctx, group, async (connection, coordinator) => {
    const response = await connection.request(Api.DescribeGroups, { groups: [group], includeAuthorizedOperations: false }, { signal: ctx.signal });
    const g = response.groups.find((x) => x.groupId === group);
    if (!g) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `DescribeGroups left out group ${group}`);
    if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw new GroupNotFoundError(group);
    check(g.errorCode, group);
    return {
      group,
      state: g.groupState,
      protocolType: g.protocolType,
      protocol: g.protocolData,
      generation: null,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId ?? null,
        clientId: m.clientId,
        host: m.clientHost,
        assignment: decodeMemberAssignment(g.protocolType, m.memberAssignment),
      })),
      coordinator,
    };
  });
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
