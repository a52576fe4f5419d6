/**
 * A group as the console shows it: its members (member id, client id, host, instance id) and
 * what each owns, read through the Kafka API of its type (DescribeGroups for classic groups,
 * ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe), so what the page shows
 * is what Kafka's tools show the same principal. A classic consumer group's assignment is
 * the consumer protocol's (decoded from the member's assignment bytes); a streams group's
 * is its active tasks, by subtopology.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeGroupsRequestData, DescribeGroupsResponseData } from '../../protocol/messages/describe-groups.js';
import type { ConsumerGroupDescribeRequestData, ConsumerGroupDescribeResponseData } from '../../protocol/messages/consumer-group-describe.js';
import type { ShareGroupDescribeRequestData, ShareGroupDescribeResponseData } from '../../protocol/messages/share-group-describe.js';
import type { StreamsGroupDescribeRequestData, StreamsGroupDescribeResponseData } from '../../protocol/messages/streams-group-describe.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment } from '../../protocol/consumer-protocol.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { GroupType } from '../../coordinator/index.js';
import type { BrokerContext } from '../broker-context.js';
import { callKafkaApi, type ConsoleCaller } from './kafka-calls.js';

export interface MemberView {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** The member's protocol: a consumer group may have classic members. */
  readonly protocol: GroupType;
  /** Partitions by topic (streams groups: active tasks by subtopology id). */
  readonly assignment: Record<string, number[]>;
}

export interface GroupDescription {
  readonly groupId: string;
  readonly type: GroupType;
  readonly state: string;
  /** Classic: the generation; the others: the group epoch. Null when the Kafka API does not say (DescribeGroups). */
  readonly generation: number | null;
  readonly protocolType: string | null;
  readonly protocol: string | null;
  readonly members: readonly MemberView[];
}

/** What a describe refused: the Kafka error (GROUP_AUTHORIZATION_FAILED, GROUP_ID_NOT_FOUND, ...). */
export class DescribeError extends Error {
  constructor(readonly errorCode: number, message?: string | null) {
    super(message ?? errorInfo(errorCode).message);
  }
}

const byTopic = (topics: readonly { topicName: string; partitions: number[] }[]): Record<string, number[]> =>
  Object.fromEntries(topics.map((t) => [t.topicName, [...t.partitions].sort((a, b) => a - b)]));

function classicAssignment(protocolType: string, bytes: Buffer): Record<string, number[]> {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE || bytes.length === 0) return {};
  try {
    const out: Record<string, number[]> = {};
    for (const tp of decodeAssignment(bytes).assignment.assignedPartitions) out[tp.topic] = [...(out[tp.topic] ?? []), ...tp.partitions].sort((a, b) => a - b);
    return out;
  } catch {
    // A client's own protocol under the consumer type: shown without an assignment.
    return {};
  }
}

async function describeClassic(broker: BrokerContext, caller: ConsoleCaller, groupId: string, generation: number | null): Promise<GroupDescription> {
  const answer = await callKafkaApi<DescribeGroupsRequestData, DescribeGroupsResponseData>(broker, caller, Api.DescribeGroups, { groups: [groupId], includeAuthorizedOperations: false });
  const g = answer.groups[0]!;
  if (g.errorCode !== ErrorCode.NONE) throw new DescribeError(g.errorCode, g.errorMessage);
  return {
    groupId, type: 'classic', state: g.groupState, generation, protocolType: g.protocolType, protocol: g.protocolData,
    members: g.members.map((m) => ({
      memberId: m.memberId, instanceId: m.groupInstanceId ?? null, clientId: m.clientId, clientHost: m.clientHost, protocol: 'classic',
      assignment: classicAssignment(g.protocolType, m.memberAssignment),
    })),
  };
}

async function describeConsumer(broker: BrokerContext, caller: ConsoleCaller, groupId: string): Promise<GroupDescription> {
  const answer = await callKafkaApi<ConsumerGroupDescribeRequestData, ConsumerGroupDescribeResponseData>(
    broker, caller, Api.ConsumerGroupDescribe, { groupIds: [groupId], includeAuthorizedOperations: false },
  );
  const g = answer.groups[0]!;
  if (g.errorCode !== ErrorCode.NONE) throw new DescribeError(g.errorCode, g.errorMessage);
  return {
    groupId, type: 'consumer', state: g.groupState, generation: g.groupEpoch, protocolType: CONSUMER_PROTOCOL_TYPE, protocol: g.assignorName,
    members: g.members.map((m) => ({
      // memberType (v1): 0 classic, 1 consumer.
      memberId: m.memberId, instanceId: m.instanceId, clientId: m.clientId, clientHost: m.clientHost, protocol: m.memberType === 0 ? 'classic' : 'consumer',
      assignment: byTopic(m.assignment.topicPartitions),
    })),
  };
}

async function describeShare(broker: BrokerContext, caller: ConsoleCaller, groupId: string): Promise<GroupDescription> {
  const answer = await callKafkaApi<ShareGroupDescribeRequestData, ShareGroupDescribeResponseData>(
    broker, caller, Api.ShareGroupDescribe, { groupIds: [groupId], includeAuthorizedOperations: false },
  );
  const g = answer.groups[0]!;
  if (g.errorCode !== ErrorCode.NONE) throw new DescribeError(g.errorCode, g.errorMessage);
  return {
    groupId, type: 'share', state: g.groupState, generation: g.groupEpoch, protocolType: 'share', protocol: g.assignorName,
    members: g.members.map((m) => ({
      memberId: m.memberId, instanceId: null, clientId: m.clientId, clientHost: m.clientHost, protocol: 'share', assignment: byTopic(m.assignment.topicPartitions),
    })),
  };
}

async function describeStreams(broker: BrokerContext, caller: ConsoleCaller, groupId: string): Promise<GroupDescription> {
  const answer = await callKafkaApi<StreamsGroupDescribeRequestData, StreamsGroupDescribeResponseData>(
    broker, caller, Api.StreamsGroupDescribe, { groupIds: [groupId], includeAuthorizedOperations: false },
  );
  const g = answer.groups[0]!;
  if (g.errorCode !== ErrorCode.NONE) throw new DescribeError(g.errorCode, g.errorMessage);
  return {
    groupId, type: 'streams', state: g.groupState, generation: g.groupEpoch, protocolType: 'streams', protocol: null,
    members: g.members.map((m) => ({
      memberId: m.memberId, instanceId: m.instanceId, clientId: m.clientId, clientHost: m.clientHost, protocol: 'streams',
      assignment: Object.fromEntries(m.assignment.activeTasks.map((t) => [t.subtopologyId, [...t.partitions].sort((a, b) => a - b)])),
    })),
  };
}

/** The group as its type's describe API shows it to `caller`; throws DescribeError when refused. */
export function describeGroup(broker: BrokerContext, caller: ConsoleCaller, groupId: string, type: GroupType, generation: number | null): Promise<GroupDescription> {
  switch (type) {
    case 'classic': return describeClassic(broker, caller, groupId, generation);
    case 'consumer': return describeConsumer(broker, caller, groupId);
    case 'share': return describeShare(broker, caller, groupId);
    case 'streams': return describeStreams(broker, caller, groupId);
  }
}
