/**
 * The contract between the consumer and its partition assignors, in Kafka's terms
 * (Java's ConsumerPartitionAssignor). The group leader runs `assign` over every member's
 * subscription; every member gets `onAssignment` with its own share after SyncGroup, and
 * `subscriptionUserData` before each JoinGroup.
 */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export type RebalanceProtocol = 'eager' | 'cooperative';

export interface MemberSubscription {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /** Sorted or not; assignors must not depend on order. */
  readonly topics: readonly string[];
  readonly userData: Buffer | null;
  /** From ConsumerProtocolSubscription v1+. */
  readonly ownedPartitions: readonly TopicPartition[];
  /** v2+, -1 when unknown. */
  readonly generationId: number;
  /** v3+. */
  readonly rackId: string | null;
  /** The member's JoinGroup metadata as it was sent (for assignors that read bytes of their own making). */
  readonly metadata?: Buffer;
}

export interface MemberAssignment {
  readonly partitions: TopicPartition[];
  readonly userData: Buffer | null;
  /**
   * The SyncGroup assignment bytes, when the assignor writes them itself (another client's
   * assignor with its own version); otherwise the consumer writes Kafka's ConsumerProtocol
   * assignment of `partitions` and `userData`.
   */
  readonly encoded?: Buffer;
}

export interface AssignmentInput {
  readonly members: readonly MemberSubscription[];
  /** topic → partition count, only topics that exist */
  readonly partitionsPerTopic: ReadonlyMap<string, number>;
}

export interface SubscriptionContext {
  readonly topics: readonly string[];
  readonly ownedPartitions: readonly TopicPartition[];
  readonly generationId: number;
}

export interface PartitionAssignor {
  /** protocol name in JoinGroup, exactly as Java/librdkafka: 'range', 'roundrobin', 'sticky', 'cooperative-sticky' */
  readonly name: string;
  /** Protocols this assignor supports, preferred first (Java's supportedProtocols()). */
  readonly supportedProtocols: readonly RebalanceProtocol[];
  /** user data to put in this member's subscription (null if none) */
  subscriptionUserData(context: SubscriptionContext): Buffer | null;
  /**
   * The whole JoinGroup metadata, when the assignor writes it itself (another client's assignor,
   * whose bytes carry its own version); otherwise the consumer writes Kafka's ConsumerProtocol
   * subscription with `subscriptionUserData`. Either way it must be readable as a subscription.
   */
  subscriptionMetadata?(context: SubscriptionContext): Buffer;
  /** May be asynchronous (KafkaJS's assigners are); the built-in ones are not. */
  assign(input: AssignmentInput): Map<string, MemberAssignment> | Promise<Map<string, MemberAssignment>>;
  /** called on every member after SyncGroup with its own assignment (sticky keeps state) */
  onAssignment(assignment: MemberAssignment, generationId: number): void;
}

/** An assignor whose assignment is computed at once (every built-in one). */
export interface SynchronousPartitionAssignor extends PartitionAssignor {
  assign(input: AssignmentInput): Map<string, MemberAssignment>;
}

/** Java's AbstractStickyAssignor.DEFAULT_GENERATION: "no generation known". */
export const DEFAULT_GENERATION = -1;
