/**
 * What a server-side assignor sees and returns (Kafka's group-coordinator-api: GroupSpec,
 * SubscribedTopicDescriber, GroupAssignment), and the mutable assignment the uniform
 * builders work on.
 */
import type { Assignment } from '../assignment.js';
import type { SubscriptionType } from '../group.js';
import { intHash, JavaHashSet, uuidHash } from '../java-hash.js';

export interface MemberSubscriptionSpec {
  readonly instanceId: string | null;
  readonly rackId: string | null;
  /** The subscribed topics that exist, by id, in the order Kafka's TopicIds iterates them. */
  readonly subscribedTopicIds: readonly string[];
  /** The member's current target assignment. */
  readonly assignment: Assignment;
}

export interface GroupSpec {
  /** Member id → subscription, in the order Kafka's HashMap of member specs iterates. */
  readonly members: ReadonlyMap<string, MemberSubscriptionSpec>;
  readonly subscriptionType: SubscriptionType;
  /** Whether the current target assignment gives the partition to any member. */
  isPartitionAssigned(topicId: string, partition: number): boolean;
}

export interface SubscribedTopicDescriber {
  /** -1 for a topic that does not exist. */
  numPartitions(topicId: string): number;
}

/** Member id → its new target assignment. */
export type GroupAssignment = Map<string, Assignment>;

export interface ServerAssignor {
  readonly name: string;
  assign(spec: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment;
}

/** Kafka's PartitionAssignorException: the heartbeat fails with UNKNOWN_SERVER_ERROR. */
export class PartitionAssignorError extends Error {}

/**
 * An assignment being changed, as the Java maps and sets the builders allocate: a
 * HashMap of topic ids to HashSets of partitions, so that the result lists them in
 * Kafka's order.
 */
export class MutableAssignment {
  private constructor(
    private readonly topics: JavaHashSet<string>,
    private readonly partitions: Map<string, JavaHashSet<number>>,
  ) {}

  static empty(): MutableAssignment {
    return new MutableAssignment(JavaHashSet.empty(uuidHash), new Map());
  }

  /** AssignorHelpers.deepCopyAssignment: `new HashMap<>(size)`, each set `new HashSet<>(set)`. */
  static deepCopy(a: Assignment): MutableAssignment {
    const topics = JavaHashSet.withCapacity(uuidHash, a.size);
    const partitions = new Map<string, JavaHashSet<number>>();
    for (const [topicId, ps] of a) {
      topics.add(topicId);
      partitions.set(topicId, JavaHashSet.copyOf(intHash, ps));
    }
    return new MutableAssignment(topics, partitions);
  }

  /**
   * Adds a partition; a topic new to the member gets the set `newSet` makes, put into the
   * map as the builders do, with computeIfAbsent.
   */
  add(topicId: string, partition: number, newSet: () => JavaHashSet<number> = emptyPartitionSet): void {
    // Each add is a computeIfAbsent on the map, whether the topic is new or not.
    this.topics.addFirst(topicId);
    let set = this.partitions.get(topicId);
    if (set === undefined) {
      set = newSet();
      this.partitions.set(topicId, set);
    }
    set.add(partition);
  }

  remove(topicId: string, partition: number): void {
    const set = this.partitions.get(topicId);
    if (set === undefined) return;
    set.delete(partition);
    if (set.size === 0) this.removeTopic(topicId);
  }

  removeTopic(topicId: string): void {
    this.partitions.delete(topicId);
    this.topics.delete(topicId);
  }

  toAssignment(): Assignment {
    // values() never changes an array it handed out: no copy needed.
    const assignment = new Map<string, readonly number[]>();
    for (const t of this.topics.values()) assignment.set(t, this.partitions.get(t)!.values());
    return assignment;
  }
}

function emptyPartitionSet(): JavaHashSet<number> {
  return JavaHashSet.empty(intHash);
}
