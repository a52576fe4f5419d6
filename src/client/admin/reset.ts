/**
 * `kafka-consumer-groups --reset-offsets`: which partitions (topics, topic:partitions or all
 * committed ones), where to (earliest, latest, an offset or a shift clamped into the log's
 * range, the first offset at a time), and only while the group has no active members.
 * Also: the current committed offsets (log end where none) and offsets given per partition.
 * Committing is Kafka's alterConsumerGroupOffsets: OffsetCommit with generation -1.
 *
 * A share group (KIP-932) is reset the same way, from and to its share-partitions' start
 * offsets (DescribeShareGroupOffsets, AlterShareGroupOffsets), as `kafka-share-groups
 * --reset-offsets`.
 */
import { describeGroup, } from './groups.js';
import { describeStreamsGroup } from './streams-groups.js';
import { describeTopic } from './topics.js';
import { GroupNotFoundError, GroupNotInactiveError, ResetOffsetsError } from './errors.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, commitOffsets, fetchCommittedOffsets, listOffsets } from './offsets.js';
import { compareTopicPartition, tpKey, type AdminContext } from './requests.js';
import { alterShareGroupOffsets, describeShareGroup, shareGroupOffsets } from './share-groups.js';
import type { PlannedOffset, ResetOffsetsOptions, ResetScope, TopicPartition } from './types.js';

/** The group's current offsets: committed ones, or a share group's start offsets. */
type CurrentOffsets = () => Promise<readonly PlannedOffset[]>;

/** States in which Kafka's tool resets: no member can be consuming. */
const INACTIVE_STATES: ReadonlySet<string> = new Set(['Empty', 'Dead']);

async function groupState(ctx: AdminContext, group: string): Promise<string> {
  try {
    return (await describeGroup(ctx, group)).state;
  } catch (err) {
    if (!(err instanceof GroupNotFoundError)) throw err;
  }
  // A streams group commits offsets as a consumer group does, and is reset likewise: only when no member runs.
  try {
    return (await describeStreamsGroup(ctx, group)).state;
  } catch (err) {
    if (err instanceof GroupNotFoundError) return 'Dead';
    throw err;
  }
}

async function partitionsToReset(ctx: AdminContext, current: CurrentOffsets, scope: ResetScope): Promise<TopicPartition[]> {
  if (scope.kind === 'all-topics') return [...await current()];
  const out: TopicPartition[] = [];
  const missing: string[] = [];
  const leaderless: string[] = [];
  for (const { topic, partitions } of scope.topics) {
    const description = await describeTopic(ctx, topic);
    const existing = new Map(description.partitions.map((p) => [p.partition, p]));
    for (const partition of partitions ?? description.partitions.map((p) => p.partition)) {
      const info = existing.get(partition);
      if (!info) missing.push(`${topic}-${partition}`);
      else if (info.leader < 0) leaderless.push(`${topic}-${partition}`);
      else out.push({ topic, partition });
    }
  }
  // Kafka's checkAllTopicPartitionsValid wording.
  if (missing.length > 0) throw new ResetOffsetsError(`The partitions "${missing.join(',')}" do not exist`);
  if (leaderless.length > 0) throw new ResetOffsetsError(`The partitions "${leaderless.join(',')}" have no leader`);
  const unique = new Map(out.map((tp) => [tpKey(tp), tp]));
  return [...unique.values()].sort(compareTopicPartition);
}

function known(map: Map<string, bigint | null>, tp: TopicPartition, what: string): bigint {
  const v = map.get(tpKey(tp));
  if (v === undefined || v === null) throw new ResetOffsetsError(`Error getting ${what} offset of topic partition: ${tp.topic}-${tp.partition}`);
  return v;
}

/** Kafka's checkOffsetsRange: above the log end → log end; below the log start → log start. */
async function clamp(ctx: AdminContext, requested: readonly PlannedOffset[]): Promise<PlannedOffset[]> {
  const starts = await listOffsets(ctx, requested, EARLIEST_TIMESTAMP);
  const ends = await listOffsets(ctx, requested, LATEST_TIMESTAMP);
  return requested.map((r) => {
    const end = known(ends, r, 'ending');
    const start = known(starts, r, 'starting');
    return { ...r, offset: r.offset > end ? end : r.offset < start ? start : r.offset };
  });
}

async function plan(ctx: AdminContext, current: CurrentOffsets, partitions: TopicPartition[], spec: ResetOffsetsOptions['spec']): Promise<PlannedOffset[]> {
  switch (spec.kind) {
    case 'earliest': {
      const starts = await listOffsets(ctx, partitions, EARLIEST_TIMESTAMP);
      return partitions.map((tp) => ({ ...tp, offset: known(starts, tp, 'starting') }));
    }
    case 'latest': {
      const ends = await listOffsets(ctx, partitions, LATEST_TIMESTAMP);
      return partitions.map((tp) => ({ ...tp, offset: known(ends, tp, 'ending') }));
    }
    case 'offset':
      return clamp(ctx, partitions.map((tp) => ({ ...tp, offset: spec.offset })));
    case 'shift': {
      const committed = new Map((await current()).map((c) => [tpKey(c), c.offset]));
      return clamp(ctx, partitions.map((tp) => {
        const current = committed.get(tpKey(tp));
        if (current === undefined) {
          throw new ResetOffsetsError(`Cannot shift offset for partition ${tp.topic}-${tp.partition} since there is no current committed offset`);
        }
        return { ...tp, offset: current + spec.by };
      }));
    }
    case 'datetime': {
      const found = await listOffsets(ctx, partitions, spec.timestampMs);
      // No record at or after that time: the log end, as Kafka's tool falls back to.
      const empty = partitions.filter((tp) => (found.get(tpKey(tp)) ?? null) === null);
      const ends = empty.length > 0 ? await listOffsets(ctx, empty, LATEST_TIMESTAMP) : new Map<string, bigint | null>();
      return partitions.map((tp) => ({ ...tp, offset: found.get(tpKey(tp)) ?? known(ends, tp, 'ending') }));
    }
    case 'current': {
      const committed = new Map((await current()).map((c) => [tpKey(c), c.offset]));
      const uncommitted = partitions.filter((tp) => !committed.has(tpKey(tp)));
      const ends = uncommitted.length > 0 ? await listOffsets(ctx, uncommitted, LATEST_TIMESTAMP) : new Map<string, bigint | null>();
      return partitions.map((tp) => ({ ...tp, offset: committed.get(tpKey(tp)) ?? known(ends, tp, 'ending') }));
    }
    case 'offsets': {
      const given = new Map(spec.offsets.map((o) => [tpKey(o), o.offset]));
      return clamp(ctx, partitions.map((tp) => {
        const offset = given.get(tpKey(tp));
        if (offset === undefined) throw new ResetOffsetsError(`No offset given for partition ${tp.topic}-${tp.partition}`);
        return { ...tp, offset };
      }));
    }
    default: {
      const never: never = spec;
      throw new ResetOffsetsError(`unknown reset spec ${JSON.stringify(never)}`);
    }
  }
}

/** Plans (and with `execute`, commits) new offsets; returns them sorted by topic and partition. */
export async function resetOffsets(ctx: AdminContext, group: string, options: ResetOffsetsOptions): Promise<PlannedOffset[]> {
  const state = await groupState(ctx, group);
  if (!INACTIVE_STATES.has(state)) throw new GroupNotInactiveError(group, state);
  const current: CurrentOffsets = () => fetchCommittedOffsets(ctx, group);
  const partitions = await partitionsToReset(ctx, current, options.scope);
  const planned = (await plan(ctx, current, partitions, options.spec)).sort(compareTopicPartition);
  if (options.execute) await commitOffsets(ctx, group, planned);
  return planned;
}

/**
 * A share group's reset: only while Empty (Kafka's tool: `Share group 'G' is not empty.`);
 * the current offsets are the start offsets it has; `execute` alters them.
 */
export async function resetShareGroupOffsets(ctx: AdminContext, group: string, options: ResetOffsetsOptions): Promise<PlannedOffset[]> {
  const { state } = await describeShareGroup(ctx, group);
  if (!INACTIVE_STATES.has(state)) throw new ResetOffsetsError(`Share group '${group}' is not empty.`);
  const current: CurrentOffsets = async () => (await shareGroupOffsets(ctx, group)).flatMap((o) => (o.startOffset === null ? [] : [{ topic: o.topic, partition: o.partition, offset: o.startOffset }]));
  const partitions = await partitionsToReset(ctx, current, options.scope);
  const planned = (await plan(ctx, current, partitions, options.spec)).sort(compareTopicPartition);
  if (options.execute) await alterShareGroupOffsets(ctx, group, planned);
  return planned;
}
