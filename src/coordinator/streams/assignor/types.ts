/**
 * The streams-group task assignor's view of a group (Kafka's streams assignor API:
 * GroupSpec, TopologyDescriber, GroupAssignment). Tasks are named by subtopology id and
 * partition; a member's tasks are a map from subtopology id to partitions.
 */

/** Subtopology id → partitions (task numbers). */
export type TaskSet = ReadonlyMap<string, ReadonlySet<number>>;

export interface StreamsAssignorMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  /** Kafka Streams' process id: members of one process share state directories. */
  readonly processId: string;
  readonly clientTags: ReadonlyMap<string, string>;
  /** The member's current assignment (what it owns now: the assignor is sticky to it). */
  readonly activeTasks: TaskSet;
  readonly standbyTasks: TaskSet;
  readonly warmupTasks: TaskSet;
  /** Offsets the member reported for its tasks' changelogs (subtopology → partition → offset sum). */
  readonly taskOffsets: ReadonlyMap<string, ReadonlyMap<number, bigint>>;
  readonly taskEndOffsets: ReadonlyMap<string, ReadonlyMap<number, bigint>>;
}

export interface StreamsAssignmentConfigs {
  /** `num.standby.replicas` (the group's `streams.num.standby.replicas`). */
  readonly numStandbyReplicas: number;
  readonly rackAwareAssignmentTags: readonly string[];
}

export interface StreamsGroupSpec {
  /** Members in the order the group lists them (Kafka iterates its member map). */
  readonly members: readonly StreamsAssignorMember[];
  readonly configs: StreamsAssignmentConfigs;
}

/** What the assignor knows of the topology (Kafka's TopologyDescriber). */
export interface TopologyDescriber {
  /** Subtopology ids, sorted. */
  subtopologies(): readonly string[];
  /** The number of tasks of a subtopology: its source topics' largest partition count. */
  maxNumInputPartitions(subtopologyId: string): number;
  /** True when the subtopology has state (changelog topics): it gets standby tasks. */
  isStateful(subtopologyId: string): boolean;
}

export interface StreamsMemberAssignment {
  readonly activeTasks: TaskSet;
  readonly standbyTasks: TaskSet;
}

/** Member id → its target assignment. */
export type StreamsGroupAssignment = ReadonlyMap<string, StreamsMemberAssignment>;

export interface StreamsTaskAssignor {
  /** The name Kafka gives it (`sticky`). */
  readonly name: string;
  assign(group: StreamsGroupSpec, topology: TopologyDescriber): StreamsGroupAssignment;
}
