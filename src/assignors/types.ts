/**
 * The partition assignor interface: what the group leader runs over every member's
 * subscription (seed 000, `performAssignment`). Built-in assignors and custom ones
 * implement it; names and user data must match Java's and librdkafka's so mixed groups work.
 */

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export type RebalanceProtocol = 'eager' | 'cooperative';

export interface MemberSubscription {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /** Assignors must not depend on the order. */
  readonly topics: readonly string[];
  readonly userData: Buffer | null;
  /** From ConsumerProtocolSubscription v1+. */
  readonly ownedPartitions: readonly TopicPartition[];
  /** v2+, -1 when unknown. */
  readonly generationId: number;
  /** v3+. */
  readonly rackId: string | null;
}

export interface MemberAssignment {
  readonly partitions: TopicPartition[];
  readonly userData: Buffer | null;
}

export interface AssignmentInput {
  readonly members: readonly MemberSubscription[];
  /** topic → partition count, only topics that exist. */
  readonly partitionsPerTopic: ReadonlyMap<string, number>;
}

export interface SubscriptionContext {
  readonly topics: readonly string[];
  readonly ownedPartitions: readonly TopicPartition[];
  readonly generationId: number;
}

export interface PartitionAssignor {
  /** Protocol name in JoinGroup, exactly as Java/librdkafka: 'range', 'roundrobin', 'sticky', 'cooperative-sticky'. */
  readonly name: string;
  /** Rebalance protocols this assignor supports, preferred first (Java's supportedProtocols()). */
  readonly supportedProtocols: readonly RebalanceProtocol[];
  /** User data to put in this member's subscription (null if none). */
  subscriptionUserData(context: SubscriptionContext): Buffer | null;
  assign(input: AssignmentInput): Map<string, MemberAssignment>;
  /** Called on every member after SyncGroup with its own assignment (sticky assignors keep state). */
  onAssignment(assignment: MemberAssignment, generationId: number): void;
}
