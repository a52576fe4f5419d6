/**
 * Share-partition state initialization, as Kafka 4.4's GroupMetadataManager does it with
 * ShareGroupStatePartitionMetadata: a share group may assign a partition only once the share
 * coordinator holds its state. A heartbeat whose group subscribes to topics with partitions
 * neither initialized nor being initialized (or initializing for longer than
 * `group.share.initialize.retry.interval.ms`) records them as initializing and asks for their
 * initialization (the result's `shareInitializations`; Kafka: the heartbeat's
 * InitializeShareGroupStateParameters, which GroupCoordinatorService sends to the share
 * coordinator after the write). When that succeeds, `initializeShareGroupState` records them
 * as initialized, and the next heartbeat computes a target assignment that includes them
 * (`initializedAssignmentPending`); when it fails, `uninitializeShareGroupState` takes them
 * off the initializing topics, so a later heartbeat asks again.
 */
import type { ShareGroupRecord } from '../../protocol/coordinator-records/share-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import type { ShareGroupStateInitialization } from '../types.js';
import type { InitMapValue, ShareGroup } from './group.js';
import { shareStatePartitionMetadataRecord } from './records.js';
import { writeShareGroupRecords } from './write.js';

type InitMap = ReadonlyMap<string, InitMapValue>;

/** Kafka's combineInitMaps: partitions united; name and time from `b` where it has the topic. */
export function combineInitMaps(a: InitMap, b: InitMap): Map<string, InitMapValue> {
  const out = new Map<string, InitMapValue>();
  for (const topicId of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(topicId);
    const y = b.get(topicId);
    const partitions = new Set([...(x?.partitions ?? []), ...(y?.partitions ?? [])]);
    out.set(topicId, { name: (y ?? x)?.name ?? 'UNKNOWN', partitions: [...partitions], timestampMs: (y ?? x)?.timestampMs ?? -1 });
  }
  return out;
}

/** Kafka's attachTopicName: ids of topics being deleted, with their names (`<UNKNOWN>` once gone). */
function attachTopicName(s: CoordinatorState, topicIds: Iterable<string>): Map<string, string> {
  return new Map([...topicIds].map((id) => [id, s.metadata.byId(id)?.name ?? '<UNKNOWN>']));
}

/**
 * Kafka's subscribedTopicsChangeMap: for each subscribed topic that exists, the partitions
 * that are neither initialized nor recently asked for.
 */
export function subscribedTopicsChangeMap(s: CoordinatorState, group: ShareGroup, subscribedTopicNames: Iterable<string>, nowMs: number): Map<string, InitMapValue> {
  const out = new Map<string, InitMapValue>();
  const info = group.statePartitionMetadata;
  const retryMs = s.config.shareGroupInitializeRetryIntervalMs;
  const recentlyAsked = new Map([...info?.initializingTopics ?? []].filter(([, v]) => nowMs - v.timestampMs < retryMs));
  const already = info === null ? new Map<string, InitMapValue>() : combineInitMaps(info.initializedTopics, recentlyAsked);
  for (const name of subscribedTopicNames) {
    const t = s.metadata.byName(name);
    if (t === undefined || out.has(t.topicId)) continue;
    const have = new Set(already.get(t.topicId)?.partitions ?? []);
    if (have.size > 0 && have.size >= t.numPartitions) continue;
    const partitions: number[] = [];
    for (let p = 0; p < t.numPartitions; p++) if (!have.has(p)) partitions.push(p);
    out.set(t.topicId, { name: t.name, partitions, timestampMs: nowMs });
  }
  return out;
}

/**
 * Kafka's maybeCreateInitializeShareGroupStateRequest: the partitions to initialize are
 * recorded as initializing (a record in `records`) and asked for from the share coordinator
 * (`op`). The start offset is 0 for new partitions of a topic the group already had, else -1
 * (`share.auto.offset.reset` decides).
 */
export function maybeInitializeShareGroupState(
  s: CoordinatorState,
  op: Operation,
  group: ShareGroup,
  groupEpoch: number,
  subscribedTopicNames: Iterable<string>,
  records: ShareGroupRecord[],
): void {
  const toInitialize = subscribedTopicsChangeMap(s, group, subscribedTopicNames, op.nowMs);
  if (toInitialize.size === 0) return;
  const info = group.statePartitionMetadata;
  if (info === null) {
    records.push(shareStatePartitionMetadataRecord(group.groupId, toInitialize, new Map(), new Map()));
  } else {
    // A topic initialized again is no longer being deleted.
    const deleting = new Set(info.deletingTopics);
    for (const topicId of toInitialize.keys()) deleting.delete(topicId);
    records.push(shareStatePartitionMetadataRecord(group.groupId, combineInitMaps(info.initializingTopics, toInitialize), info.initializedTopics, attachTopicName(s, deleting)));
  }
  const known = new Set([...info?.initializedTopics.keys() ?? [], ...info?.initializingTopics.keys() ?? []]);
  const request: ShareGroupStateInitialization = {
    groupId: group.groupId,
    topics: [...toInitialize].map(([topicId, v]) => ({
      topicId,
      partitions: v.partitions.map((partition) => ({ partition, stateEpoch: groupEpoch, startOffset: known.has(topicId) ? 0n : -1n })),
    })),
  };
  op.initializeShareGroupState(request);
}

/**
 * Kafka's initializedAssignmentPending: initialized partitions of subscribed topics that the
 * target assignment does not give out yet (they were initialized after it was computed).
 */
export function initializedAssignmentPending(s: CoordinatorState, group: ShareGroup): boolean {
  if (group.numMembers === 0) return false;
  const info = group.statePartitionMetadata;
  if (info === null || info.initializedTopics.size === 0 || group.subscribedTopicNames.size === 0) return false;
  const assigned = new Map<string, Set<number>>();
  for (const a of group.targetAssignment.values()) {
    for (const [topicId, partitions] of a) {
      let set = assigned.get(topicId);
      if (set === undefined) assigned.set(topicId, (set = new Set()));
      for (const p of partitions) set.add(p);
    }
  }
  for (const [topicId, v] of info.initializedTopics) {
    if (!group.subscribedTopicNames.has(v.name)) continue;
    const set = assigned.get(topicId);
    if (set === undefined || set.size !== v.partitions.length || !v.partitions.every((p) => set.has(p))) return true;
  }
  return false;
}

function toInitMap(s: CoordinatorState, topics: ReadonlyMap<string, readonly number[]>, nowMs: number): Map<string, InitMapValue> {
  return new Map([...topics].map(([topicId, partitions]) => [topicId, { name: s.metadata.byId(topicId)?.name ?? '<UNKNOWN>', partitions: [...partitions], timestampMs: nowMs }]));
}

/**
 * Kafka's initializeShareGroupState: the share coordinator initialized these partitions;
 * they move from initializing to initialized (one record), and the group's next heartbeat
 * assigns them. Nothing when the group is gone.
 */
export function initializeShareGroupState(s: CoordinatorState, op: Operation, groupId: string, topics: ReadonlyMap<string, readonly number[]>): void {
  const group = s.shareGroups.get(groupId);
  if (group === undefined || topics.size === 0) return;
  const info = group.statePartitionMetadata;
  const done = toInitMap(s, topics, op.nowMs);
  if (info === null) {
    writeShareGroupRecords(s, op, [shareStatePartitionMetadataRecord(groupId, new Map(), done, new Map())], null);
    return;
  }
  const initialized = combineInitMaps(info.initializedTopics, done);
  const initializing = new Map(info.initializingTopics);
  for (const [topicId, partitions] of topics) {
    const v = initializing.get(topicId);
    if (v === undefined) continue;
    const left = v.partitions.filter((p) => !partitions.includes(p));
    if (left.length === 0) initializing.delete(topicId);
    else initializing.set(topicId, { ...v, partitions: left });
  }
  writeShareGroupRecords(s, op, [shareStatePartitionMetadataRecord(groupId, initializing, initialized, attachTopicName(s, info.deletingTopics))], null);
}

/**
 * Kafka's uninitializeShareGroupState: the share coordinator could not initialize these
 * partitions; they leave the initializing topics, so that a later heartbeat asks again.
 */
export function uninitializeShareGroupState(s: CoordinatorState, op: Operation, groupId: string, topics: ReadonlyMap<string, readonly number[]>): void {
  const info = s.shareGroups.get(groupId)?.statePartitionMetadata ?? null;
  if (info === null || info.initializingTopics.size === 0 || topics.size === 0) return;
  const initializing = new Map<string, InitMapValue>();
  for (const [topicId, v] of info.initializingTopics) {
    const failed = topics.get(topicId);
    if (failed === undefined) {
      initializing.set(topicId, v);
      continue;
    }
    const left = v.partitions.filter((p) => !failed.includes(p));
    if (left.length > 0) initializing.set(topicId, { ...v, partitions: left });
  }
  writeShareGroupRecords(s, op, [shareStatePartitionMetadataRecord(groupId, initializing, info.initializedTopics, attachTopicName(s, info.deletingTopics))], null);
}
