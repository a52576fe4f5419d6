/**
 * Share groups (KIP-932) for the admin client, at the group's coordinator as Kafka's
 * Admin.describeShareGroups, listShareGroupOffsets, alterShareGroupOffsets and
 * deleteShareGroupOffsets do them: ShareGroupDescribe, DescribeShareGroupOffsets (v1: with
 * the lag), AlterShareGroupOffsets and DeleteShareGroupOffsets. A share group's "offsets"
 * are its share-partitions' start offsets in the share coordinator.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError, errorInfo } from '../../protocol/errors.js';
import { GroupNotFoundError } from './errors.js';
import { check, compareTopicPartition, groupByTopic, withCoordinator, type AdminContext } from './requests.js';
import type { PlannedOffset, TopicPartition } from './types.js';

export interface ShareMemberDescription {
  readonly memberId: string;
  readonly clientId: string;
  readonly host: string;
  readonly rackId: string | null;
  readonly memberEpoch: number;
  /** The topics the member subscribed to, sorted. */
  readonly subscribedTopics: string[];
  /** Its share-partitions (a share-partition may be assigned to several members), sorted. */
  readonly assignment: TopicPartition[];
}

/** A share group as ShareGroupDescribe reports it. */
export interface ShareGroupDescription {
  readonly group: string;
  /** Empty, Stable (or Dead). */
  readonly state: string;
  /** The server-side assignor, e.g. 'simple'. */
  readonly assignor: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
  readonly members: ShareMemberDescription[];
  readonly coordinator: { readonly nodeId: number; readonly host: string; readonly port: number };
}

/** A share-partition's offsets: null where the broker does not know them (yet). */
export interface ShareGroupOffset extends TopicPartition {
  /** The first offset not yet delivered for good. */
  readonly startOffset: bigint | null;
  readonly leaderEpoch: number | null;
  /** Records from the start offset to the log end not yet delivered for good. */
  readonly lag: bigint | null;
}

/** DeleteShareGroupOffsets' answer for one topic: null when deleted, else Kafka's error name and message. */
export interface DeletedShareGroupOffsets {
  readonly topic: string;
  readonly error: string | null;
  readonly message: string | null;
}

/** ShareGroupDescribe at the coordinator; GroupNotFoundError for an unknown group or one of another type. */
export async function describeShareGroup(ctx: AdminContext, group: string): Promise<ShareGroupDescription> {
  return withCoordinator(ctx, group, async (connection, coordinator) => {
    // A broker without share groups has none of this id.
    if (connection.supportedVersion(Api.ShareGroupDescribe) === undefined) throw new GroupNotFoundError(group);
    const response = await connection.request(Api.ShareGroupDescribe, { groupIds: [group], includeAuthorizedOperations: false }, { signal: ctx.signal });
    const g = response.groups.find((x) => x.groupId === group);
    if (!g) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `ShareGroupDescribe left out group ${group}`);
    if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw new GroupNotFoundError(group);
    check(g.errorCode, g.errorMessage ?? group);
    return {
      group: g.groupId,
      state: g.groupState,
      assignor: g.assignorName,
      groupEpoch: g.groupEpoch,
      assignmentEpoch: g.assignmentEpoch,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        clientId: m.clientId,
        host: m.clientHost,
        rackId: m.rackId ?? null,
        memberEpoch: m.memberEpoch,
        subscribedTopics: [...m.subscribedTopicNames].sort(),
        assignment: m.assignment.topicPartitions
          .flatMap((t) => t.partitions.map((partition): TopicPartition => ({ topic: t.topicName, partition })))
          .sort(compareTopicPartition),
      })),
      coordinator,
    };
  });
}

/**
 * The start offset, leader epoch and lag of each of the group's initialized share-partitions
 * (DescribeShareGroupOffsets without topics), sorted; null where the broker answers -1
 * (not known yet).
 */
export async function shareGroupOffsets(ctx: AdminContext, group: string): Promise<ShareGroupOffset[]> {
  return withCoordinator(ctx, group, async (connection) => {
    const response = await connection.request(Api.DescribeShareGroupOffsets, { groups: [{ groupId: group, topics: null }] }, { signal: ctx.signal });
    const g = response.groups.find((x) => x.groupId === group);
    if (!g) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `DescribeShareGroupOffsets left out group ${group}`);
    if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw new GroupNotFoundError(group);
    check(g.errorCode, g.errorMessage ?? group);
    const rows: ShareGroupOffset[] = [];
    for (const t of g.topics) {
      for (const p of t.partitions) {
        check(p.errorCode, p.errorMessage ?? `${t.topicName}-${p.partitionIndex}`);
        rows.push({
          topic: t.topicName,
          partition: p.partitionIndex,
          startOffset: p.startOffset < 0n ? null : p.startOffset,
          leaderEpoch: p.startOffset < 0n ? null : p.leaderEpoch,
          lag: p.lag === undefined || p.lag < 0n ? null : p.lag,
        });
      }
    }
    return rows.sort(compareTopicPartition);
  });
}

/**
 * New start offsets for an Empty share group's share-partitions (AlterShareGroupOffsets).
 * A group error (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND for a group of another type) or a
 * partition's error throws KafkaProtocolError with the broker's message.
 */
export async function alterShareGroupOffsets(ctx: AdminContext, group: string, offsets: readonly PlannedOffset[]): Promise<void> {
  await withCoordinator(ctx, group, async (connection) => {
    const topics = [...groupByTopic(offsets)].map(([topicName, list]) => ({
      topicName, partitions: list.map((o) => ({ partitionIndex: o.partition, startOffset: o.offset })),
    }));
    const response = await connection.request(Api.AlterShareGroupOffsets, { groupId: group, topics }, { signal: ctx.signal });
    check(response.errorCode, response.errorMessage);
    for (const t of response.responses) for (const p of t.partitions) check(p.errorCode, `${t.topicName}-${p.partitionIndex}: ${p.errorMessage ?? ''}`);
  });
}

/**
 * Deletes an Empty share group's share state for whole topics (DeleteShareGroupOffsets): per
 * topic, the error (null when deleted). A group error throws.
 */
export async function deleteShareGroupOffsets(ctx: AdminContext, group: string, topics: readonly string[]): Promise<DeletedShareGroupOffsets[]> {
  return withCoordinator(ctx, group, async (connection) => {
    const response = await connection.request(Api.DeleteShareGroupOffsets, { groupId: group, topics: topics.map((topicName) => ({ topicName })) }, { signal: ctx.signal });
    if (response.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw new GroupNotFoundError(group);
    check(response.errorCode, response.errorMessage);
    return response.responses.map((t) => ({
      topic: t.topicName,
      error: t.errorCode === ErrorCode.NONE ? null : errorInfo(t.errorCode).name,
      message: t.errorCode === ErrorCode.NONE ? null : t.errorMessage,
    }));
  });
}
