/**
 * The group coordinator's part of the share-group offset APIs (KIP-932), as Kafka 4.4's
 * GroupMetadataManager and GroupCoordinatorShard do it. A share group's "offsets" live in the
 * share coordinator (`__share_group_state`); the group coordinator only knows which
 * share-partitions have state (ShareGroupStatePartitionMetadata), so each API is a step here
 * and a step in the share coordinator, which the broker's handlers chain as Kafka's
 * GroupCoordinatorService does:
 *
 * - DescribeShareGroupOffsets without topics: `initializedShareGroupPartitions` (a read), then
 *   ReadShareGroupStateSummary for them.
 * - AlterShareGroupOffsets: `alterShareGroupOffsets` records the partitions as initializing
 *   and answers the InitializeShareGroupState to send (new start offsets, the group epoch as
 *   state epoch); once that succeeded, the partitions are recorded as initialized
 *   (initialize.ts).
 * - DeleteShareGroupOffsets: `initiateDeleteShareGroupOffsets` moves the topics to deleting
 *   and answers the DeleteShareGroupState to send; `completeDeleteShareGroupOffsets` takes
 *   the topics whose state went off deleting.
 * - DeleteGroups of share groups: `sharePartitionDeleteRequests` moves every topic of each
 *   Empty share group to deleting and answers the DeleteShareGroupState per group, before
 *   the groups themselves are deleted.
 *
 * Each replies with a plain value (not a response of the protocol) for the handler to go on with.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import type { AlterShareGroupOffsetsRequestData, AlterShareGroupOffsetsResponseData } from '../../protocol/messages/alter-share-group-offsets.js';
import type { DeleteShareGroupOffsetsRequestData, DeleteShareGroupOffsetsResponseTopic } from '../../protocol/messages/delete-share-group-offsets.js';
import type { DeleteShareGroupStateRequestData } from '../../protocol/messages/delete-share-group-state.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import type { RequestContext, ShareGroupStateInitialization } from '../types.js';
import { kafkaErrorMessage } from '../share-state/responses.js';
import { combineInitMaps } from './initialize.js';
import type { InitMapValue, ShareGroup } from './group.js';
import { shareStatePartitionMetadataRecord } from './records.js';
import { writeShareGroupRecords } from './write.js';


/** AlterShareGroupOffsets' first step: the answer, and the share state to initialize (null: none). */
export interface AlterShareGroupOffsetsStep {
  readonly response: AlterShareGroupOffsetsResponseData;
  readonly initialize: ShareGroupStateInitialization | null;
}

/** DeleteShareGroupOffsets' first step (Kafka's DeleteShareGroupOffsetsResultHolder). */
export interface DeleteShareGroupOffsetsStep {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly errorTopics: DeleteShareGroupOffsetsResponseTopic[];
  /** The share state to delete; null when there is none. */
  readonly deleteState: DeleteShareGroupStateRequestData | null;
}

/** DeleteGroups' first step for one share group: refused (errorCode), or the share state to delete (null: none). */
export interface ShareGroupDeletionStep {
  readonly errorCode: number;
  readonly deleteState: DeleteShareGroupStateRequestData | null;
}

/** A share group, or Kafka's GroupIdNotFoundException message. */
function shareGroupOrWhy(s: CoordinatorState, groupId: string): ShareGroup | string {
  const group = s.shareGroups.get(groupId);
  if (group !== undefined) return group;
  return s.groups.has(groupId) || s.consumerGroups.has(groupId) ? `Group ${groupId} is not a share group.` : `Group ${groupId} not found.`;
}

/** Kafka's attachTopicName: the topics being deleted, with their names (`<UNKNOWN>` once gone). */
function withNames(s: CoordinatorState, topicIds: Iterable<string>): Map<string, string> {
  return new Map([...topicIds].map((id) => [id, s.metadata.byId(id)?.name ?? '<UNKNOWN>']));
}

/** Kafka's initializedShareGroupPartitions: topic id → partitions whose share state is initialized. */
export function initializedShareGroupPartitions(s: CoordinatorState, op: Operation, ctx: RequestContext, groupId: string): void {
  const info = s.shareGroups.get(groupId)?.statePartitionMetadata ?? null;
  const out = new Map<string, number[]>();
  for (const [topicId, v] of info?.initializedTopics ?? []) out.set(topicId, [...v.partitions]);
  op.reply(ctx.requestId, out);
}

/**
 * Kafka's alterShareGroupOffsets: only an Empty share group (created when missing, as
 * getOrMaybeCreateShareGroup with createIfNotExists); partitions of unknown topics or beyond
 * a topic's count are UNKNOWN_TOPIC_OR_PARTITION, the others are recorded as initializing and
 * their new start offsets go to the share coordinator with the group epoch as state epoch.
 */
export function alterShareGroupOffsets(s: CoordinatorState, op: Operation, ctx: RequestContext, req: AlterShareGroupOffsetsRequestData): void {
  const groupId = req.groupId;
  const fail = (errorCode: number, message: string | null): void => {
    op.reply(ctx.requestId, { response: { throttleTimeMs: 0, errorCode, errorMessage: message, responses: [] }, initialize: null } satisfies AlterShareGroupOffsetsStep);
  };
  const existing = s.shareGroups.get(groupId);
  if (existing === undefined && (s.groups.has(groupId) || s.consumerGroups.has(groupId))) {
    fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a share group.`);
    return;
  }
  if (existing !== undefined && existing.numMembers > 0) {
    fail(ErrorCode.NON_EMPTY_GROUP, kafkaErrorMessage(ErrorCode.NON_EMPTY_GROUP));
    return;
  }
  const responses: AlterShareGroupOffsetsResponseData['responses'] = [];
  const initMap = new Map<string, InitMapValue>();
  const offsets = new Map<string, Map<number, bigint>>();
  // Kafka's request keeps one entry per topic name (its topic collection is keyed by name).
  const topics = new Map<string, AlterShareGroupOffsetsRequestData['topics'][number]>();
  for (const t of req.topics) if (!topics.has(t.topicName)) topics.set(t.topicName, t);
  for (const t of topics.values()) {
    const meta = s.metadata.byName(t.topicName);
    if (meta === undefined) {
      const unknown = { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: kafkaErrorMessage(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) };
      responses.push({ topicName: t.topicName, topicId: ZERO_UUID, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, ...unknown })) });
      continue;
    }
    const partitions: AlterShareGroupOffsetsResponseData['responses'][number]['partitions'] = [];
    const valid = new Set<number>();
    for (const p of t.partitions) {
      if (p.partitionIndex < meta.numPartitions) {
        partitions.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null });
        let byPartition = offsets.get(meta.topicId);
        if (byPartition === undefined) offsets.set(meta.topicId, (byPartition = new Map()));
        byPartition.set(p.partitionIndex, p.startOffset);
        valid.add(p.partitionIndex);
      } else {
        partitions.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: kafkaErrorMessage(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) });
      }
    }
    initMap.set(meta.topicId, { name: t.topicName, partitions: [...valid], timestampMs: op.nowMs });
    responses.push({ topicName: t.topicName, topicId: meta.topicId, partitions });
  }
  addInitializingTopicsRecords(s, op, groupId, initMap);
  // Kafka builds the initialization from the group as it was before the records (epoch 0
  // for a group it just created; Brook's new share groups start at epoch 1).
  const stateEpoch = s.shareGroups.get(groupId)?.groupEpoch ?? existing?.groupEpoch ?? 1;
  const initialize: ShareGroupStateInitialization = {
    groupId,
    topics: [...offsets].map(([topicId, byPartition]) => ({
      topicId,
      partitions: [...byPartition].map(([partition, startOffset]) => ({ partition, stateEpoch, startOffset })),
    })),
  };
  op.reply(ctx.requestId, {
    response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses },
    initialize: initialize.topics.length === 0 ? null : initialize,
  } satisfies AlterShareGroupOffsetsStep);
}

/** Kafka's addInitializingTopicsRecords: the topics join the initializing ones and leave the deleting ones. */
function addInitializingTopicsRecords(s: CoordinatorState, op: Operation, groupId: string, initMap: ReadonlyMap<string, InitMapValue>): void {
  if (initMap.size === 0) return;
  const info = s.shareGroups.get(groupId)?.statePartitionMetadata ?? null;
  if (info === null) {
    writeShareGroupRecords(s, op, [shareStatePartitionMetadataRecord(groupId, initMap, new Map(), new Map())], null);
    return;
  }
  const deleting = new Set(info.deletingTopics);
  for (const topicId of initMap.keys()) deleting.delete(topicId);
  const record = shareStatePartitionMetadataRecord(groupId, combineInitMaps(info.initializingTopics, initMap), info.initializedTopics, withNames(s, deleting));
  writeShareGroupRecords(s, op, [record], null);
}

/**
 * Kafka's initiateDeleteShareGroupOffsets (with sharePartitionsEligibleForOffsetDeletion): an
 * Empty share group; each named topic with initialized state goes from initialized to
 * deleting, one already deleting is deleted again for all its partitions, any other is
 * UNKNOWN_TOPIC_OR_PARTITION. A group without share-partition metadata has nothing to delete.
 */
export function initiateDeleteShareGroupOffsets(s: CoordinatorState, op: Operation, ctx: RequestContext, req: DeleteShareGroupOffsetsRequestData): void {
  const reply = (step: DeleteShareGroupOffsetsStep): void => op.reply(ctx.requestId, step);
  const group = shareGroupOrWhy(s, req.groupId);
  if (typeof group === 'string') {
    reply({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: group, errorTopics: [], deleteState: null });
    return;
  }
  if (group.numMembers > 0) {
    reply({ errorCode: ErrorCode.NON_EMPTY_GROUP, errorMessage: kafkaErrorMessage(ErrorCode.NON_EMPTY_GROUP), errorTopics: [], deleteState: null });
    return;
  }
  const info = group.statePartitionMetadata;
  if (info === null) {
    reply({ errorCode: ErrorCode.NONE, errorMessage: null, errorTopics: [], deleteState: null });
    return;
  }
  const initialized = new Map(info.initializedTopics);
  const deleting = new Set(info.deletingTopics);
  const errorTopics: DeleteShareGroupOffsetsResponseTopic[] = [];
  const toDelete: DeleteShareGroupStateRequestData['topics'] = [];
  for (const t of req.topics) {
    const meta = s.metadata.byName(t.topicName);
    if (meta === undefined) {
      errorTopics.push({ topicName: t.topicName, topicId: ZERO_UUID, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: kafkaErrorMessage(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) });
      continue;
    }
    const v = initialized.get(meta.topicId);
    if (v !== undefined) {
      toDelete.push({ topicId: meta.topicId, partitions: v.partitions.map((partition) => ({ partition })) });
      initialized.delete(meta.topicId);
      deleting.add(meta.topicId);
    } else if (deleting.has(meta.topicId)) {
      toDelete.push({ topicId: meta.topicId, partitions: Array.from({ length: meta.numPartitions }, (_, partition) => ({ partition })) });
    } else {
      errorTopics.push({ topicName: t.topicName, topicId: ZERO_UUID, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'There is no offset information to delete.' });
    }
  }
  writeShareGroupRecords(s, op, [shareStatePartitionMetadataRecord(req.groupId, info.initializingTopics, initialized, withNames(s, deleting))], null);
  reply({ errorCode: ErrorCode.NONE, errorMessage: null, errorTopics, deleteState: toDelete.length === 0 ? null : { groupId: req.groupId, topics: toDelete } });
}

/**
 * Kafka's completeDeleteShareGroupOffsets: the share coordinator deleted these topics' state
 * (topic id → name); they leave the deleting topics. Replies with their answers.
 */
export function completeDeleteShareGroupOffsets(s: CoordinatorState, op: Operation, ctx: RequestContext, req: { groupId: string; topics: ReadonlyMap<string, string> }): void {
  const info = s.shareGroups.get(req.groupId)?.statePartitionMetadata ?? null;
  if (info === null) {
    op.reply(ctx.requestId, []);
    return;
  }
  const deleting = new Set(info.deletingTopics);
  for (const topicId of req.topics.keys()) deleting.delete(topicId);
  writeShareGroupRecords(s, op, [shareStatePartitionMetadataRecord(req.groupId, info.initializingTopics, info.initializedTopics, withNames(s, deleting))], null);
  const done: DeleteShareGroupOffsetsResponseTopic[] = [...req.topics].map(([topicId, topicName]) => ({ topicName, topicId, errorCode: ErrorCode.NONE, errorMessage: null }));
  op.reply(ctx.requestId, done);
}

/**
 * Kafka's sharePartitionDeleteRequests (shareGroupBuildPartitionDeleteRequest): for each
 * share group of `groupIds` (others are skipped), NON_EMPTY_GROUP unless Empty; else every
 * topic it has share state for (initialized or initializing, and those already deleting,
 * all partitions) is recorded as deleting and named in the DeleteShareGroupState to send.
 */
export function sharePartitionDeleteRequests(s: CoordinatorState, op: Operation, ctx: RequestContext, groupIds: readonly string[]): void {
  const out = new Map<string, ShareGroupDeletionStep>();
  for (const groupId of groupIds) {
    const group = s.shareGroups.get(groupId);
    if (group === undefined) continue;
    if (group.numMembers > 0) {
      out.set(groupId, { errorCode: ErrorCode.NON_EMPTY_GROUP, deleteState: null });
      continue;
    }
    const info = group.statePartitionMetadata;
    if (info === null) {
      out.set(groupId, { errorCode: ErrorCode.NONE, deleteState: null });
      continue;
    }
    const toDelete = combineInitMaps(info.initializedTopics, info.initializingTopics);
    const deleting = new Map<string, InitMapValue>();
    for (const topicId of info.deletingTopics) {
      const meta = s.metadata.byId(topicId);
      if (meta === undefined) continue;
      deleting.set(topicId, { name: meta.name, partitions: Array.from({ length: meta.numPartitions }, (_, p) => p), timestampMs: -1 });
    }
    const all = combineInitMaps(toDelete, deleting);
    writeShareGroupRecords(s, op, [shareStatePartitionMetadataRecord(groupId, new Map(), new Map(), new Map([...all].map(([id, v]) => [id, v.name])))], null);
    out.set(groupId, {
      errorCode: ErrorCode.NONE,
      deleteState: all.size === 0 ? null : { groupId, topics: [...all].map(([topicId, v]) => ({ topicId, partitions: v.partitions.map((partition) => ({ partition })) })) },
    });
  }
  op.reply(ctx.requestId, out);
}
