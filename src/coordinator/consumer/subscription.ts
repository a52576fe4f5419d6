/**
 * What the members subscribe to, resolved against the topics: the subscription metadata
 * (Kafka 4.0's ConsumerGroupPartitionMetadata: each subscribed topic that exists, with its
 * id and partition count; a change bumps the group epoch), the subscription type, and the
 * topic ids an assignor sees for a member.
 */
import type { ResolvedRegex, SubscribedTopicMetadata, SubscriptionCount, SubscriptionType } from './group.js';
import { hasRegex, type ConsumerGroupMember } from './member.js';
import type { MetadataImage } from './metadata.js';

export function computeSubscriptionMetadata(counts: ReadonlyMap<string, SubscriptionCount>, image: MetadataImage): Map<string, SubscribedTopicMetadata> {
  const metadata = new Map<string, SubscribedTopicMetadata>();
  for (const name of counts.keys()) {
    const t = image.byName(name);
    if (t !== undefined) metadata.set(name, { topicId: t.topicId, name, numPartitions: t.numPartitions });
  }
  return metadata;
}

export function sameSubscriptionMetadata(a: ReadonlyMap<string, SubscribedTopicMetadata>, b: ReadonlyMap<string, SubscribedTopicMetadata>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, t] of a) {
    const o = b.get(name);
    if (o === undefined || o.topicId !== t.topicId || o.numPartitions !== t.numPartitions) return false;
  }
  return true;
}

/**
 * Kafka's ConsumerGroup.subscriptionType: homogeneous when every member subscribes to the
 * same topic names, or every member to the same single regex and nothing else.
 */
export function subscriptionType(regexes: ReadonlyMap<string, number>, counts: ReadonlyMap<string, SubscriptionCount>, numMembers: number): SubscriptionType {
  if (regexes.size === 0) {
    for (const c of counts.values()) if (c.byName !== numMembers) return 'heterogeneous';
    return 'homogeneous';
  }
  const first = regexes.values().next().value!;
  if (first !== numMembers) return 'heterogeneous';
  for (const c of counts.values()) if (c.byRegex !== 1 || c.byName > 0) return 'heterogeneous';
  return 'homogeneous';
}

/**
 * The ids of the topics a member subscribes to that exist, in the order Kafka's TopicIds
 * walks them: the names, or the regex's topics, or (both set, which the Java consumer never
 * does) the names then the regex's other topics.
 */
export function memberTopicIds(m: ConsumerGroupMember, resolved: ReadonlyMap<string, ResolvedRegex>, image: MetadataImage): string[] {
  let names: readonly string[] = m.subscribedTopicNames;
  if (hasRegex(m.subscribedTopicRegex)) {
    const topics = resolved.get(m.subscribedTopicRegex)?.topics;
    if (topics !== undefined) {
      if (names.length === 0) names = topics;
      else if (topics.length > 0) names = [...names, ...topics.filter((t) => !m.subscribedTopicNames.includes(t))];
    }
  }
  const ids: string[] = [];
  for (const name of names) {
    const t = image.byName(name);
    if (t !== undefined) ids.push(t.topicId);
  }
  return ids;
}
