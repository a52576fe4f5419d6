/**
 * The range assignor (Kafka's server-side RangeAssignor): for each topic, members in order
 * of instance id (static members first), then member id, take consecutive ranges of
 * partitions, the first `partitions % subscribers` of them one more. Not sticky. The member
 * order and the split are the client's range assignor's too (../../../util/range-split.ts);
 * topic ids, the homogeneous shortcut and the result's hash order are this side's own.
 */
import { compareKeyedFirst, rangeStart } from '../../../util/range-split.js';
import type { Assignment } from '../assignment.js';
import { JavaHashSet, uuidHash } from '../java-hash.js';
import { PartitionAssignorError, type GroupAssignment, type GroupSpec, type ServerAssignor, type SubscribedTopicDescriber } from './spec.js';

interface TopicRanges {
  readonly numPartitions: number;
  /** The topic's subscribers: how many ranges its partitions are cut into. */
  numMembers: number;
  /** Ranges given out so far: the next subscriber's place among them. */
  given: number;
}

/** Static members first, by instance id; then the others by member id (Java's String order). */
function sortedMemberIds(spec: GroupSpec): string[] {
  return [...spec.members.keys()].sort((a, b) => compareKeyedFirst(spec.members.get(a)!.instanceId, a, spec.members.get(b)!.instanceId, b));
}

function nextRange(t: TopicRanges): number[] {
  const start = rangeStart(t.numPartitions, t.numMembers, t.given);
  const end = rangeStart(t.numPartitions, t.numMembers, ++t.given);
  const range: number[] = [];
  for (let p = start; p < end; p++) range.push(p);
  return range;
}

function assign(spec: GroupSpec, describer: SubscribedTopicDescriber): GroupAssignment {
  if (spec.members.size === 0) return new Map();
  const memberIds = sortedMemberIds(spec);
  const topics = new Map<string, TopicRanges>();
  const homogeneous = spec.subscriptionType === 'homogeneous';
  for (const memberId of homogeneous ? memberIds.slice(0, 1) : memberIds) {
    for (const topicId of spec.members.get(memberId)!.subscribedTopicIds) {
      let t = topics.get(topicId);
      if (t === undefined) {
        const numPartitions = describer.numPartitions(topicId);
        if (numPartitions === -1) throw new PartitionAssignorError('Member is subscribed to a non-existent topic');
        topics.set(topicId, (t = { numPartitions, numMembers: 0, given: 0 }));
      }
      t.numMembers = homogeneous ? spec.members.size : t.numMembers + 1;
    }
  }
  const result: GroupAssignment = new Map();
  for (const memberId of memberIds) {
    const subscribed = homogeneous ? [...topics.keys()] : spec.members.get(memberId)!.subscribedTopicIds;
    // Kafka's HashMap sized for the member's topics: its order is the result's.
    const keys = JavaHashSet.withCapacity(uuidHash, Math.floor(subscribed.length / 0.75 + 1));
    const ranges = new Map<string, number[]>();
    for (const topicId of subscribed) {
      const range = nextRange(topics.get(topicId)!);
      if (range.length > 0) {
        keys.add(topicId);
        ranges.set(topicId, range);
      }
    }
    result.set(memberId, new Map(keys.values().map((t) => [t, ranges.get(t)!])) satisfies Assignment);
  }
  return result;
}

export const rangeAssignor: ServerAssignor = { name: 'range', assign };
