/**
 * KafkaJS's default assignor, 'RoundRobinAssigner', so that KafkaJS members and Brook members
 * (through `brook/kafkajs`) can share one classic group: the group only forms when every
 * member offers a protocol of the same name. The subscription and assignment bytes are
 * Kafka's ConsumerProtocol formats (KafkaJS writes version 0 of both and reads only their
 * version 0 fields, so the later versions Brook writes are read correctly by KafkaJS).
 *
 * The deal, as KafkaJS's leader makes it: member ids sorted by UTF-16 code units; every
 * partition of every subscribed topic, topic by topic, partitions ascending, given to the
 * members in turn (the i-th partition overall to member i mod members). KafkaJS's leader
 * deals its own topic list to every member whatever they subscribed to; here a partition
 * only goes to members subscribed to its topic (the next one in turn that is), which is the
 * same deal when the members subscribe to the same topics, as KafkaJS requires.
 * Topics are dealt in the order they first appear in the members' subscriptions (members in
 * id order), KafkaJS's order when its leader is the first member.
 */
import type { AssignmentInput, MemberAssignment, PartitionAssignor, RebalanceProtocol, TopicPartition } from './types.js';

export const KAFKAJS_ROUND_ROBIN = 'RoundRobinAssigner';

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function assignKafkaJsRoundRobin(input: AssignmentInput): Map<string, MemberAssignment> {
  const members = [...input.members].sort((a, b) => byCodeUnits(a.memberId, b.memberId));
  const out = new Map<string, TopicPartition[]>(members.map((m) => [m.memberId, []]));
  const topics: string[] = [];
  const seen = new Set<string>();
  for (const m of members) {
    for (const t of m.topics) {
      if (seen.has(t)) continue;
      seen.add(t);
      topics.push(t);
    }
  }
  let turn = 0;
  for (const topic of topics) {
    const count = input.partitionsPerTopic.get(topic) ?? 0;
    const subscribed = members.map((m) => m.topics.includes(topic));
    if (!subscribed.some(Boolean)) continue;
    for (let partition = 0; partition < count; partition++) {
      while (!subscribed[turn % members.length]) turn++;
      out.get(members[turn % members.length]!.memberId)!.push({ topic, partition });
      turn++;
    }
  }
  return new Map([...out].map(([id, partitions]) => [id, { partitions, userData: null }]));
}

export class KafkaJsRoundRobinAssignor implements PartitionAssignor {
  readonly name = KAFKAJS_ROUND_ROBIN;
  readonly supportedProtocols: readonly RebalanceProtocol[] = ['eager'];

  subscriptionUserData(): Buffer | null {
    return null;
  }

  assign(input: AssignmentInput): Map<string, MemberAssignment> {
    return assignKafkaJsRoundRobin(input);
  }

  onAssignment(): void {}
}
