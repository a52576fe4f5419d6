/**
 * A streams group (KIP-1071), as Kafka's StreamsGroup: the group epoch with the metadata hash
 * of the topics its topology reads and the topology epoch it was validated against, the
 * topology and its configuration against the cluster's topics, the members (static ones by
 * instance id), the target assignment with its epoch, and what members report of their
 * tasks' offsets.
 *
 * Its hard state changes only by applying records (replay.ts), live as at start-up; it is
 * timeline state, so a failed append undoes it. The configured topology is derived (Kafka
 * computes it again after a load, at the first heartbeat); task offsets and the endpoint
 * information epoch live in memory only, as in Kafka.
 */
import type { Journal } from '../journal.js';
import { INITIAL_GROUP_EPOCH } from '../consumer/group.js';
import { TimelineMap, TimelineValue } from '../timeline-map.js';
import type { ConfiguredTopology, StreamsTopology } from './topology/types.js';
import { isReconciledTo, type StreamsGroupMember } from './member.js';
import { EMPTY_TASKS_TUPLE, type TaskSet, type TasksTuple } from './tasks.js';

/** Kafka's StreamsGroupState names (ListGroups, DescribeGroups, StreamsGroupDescribe). */
export type StreamsGroupState = 'Empty' | 'NotReady' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

/** What a member last reported of its tasks (Kafka's MemberTaskOffsets): subtopology → partition → offset. */
export interface MemberTaskOffsets {
  readonly taskOffsets: ReadonlyMap<string, ReadonlyMap<number, bigint>>;
  readonly taskEndOffsets: ReadonlyMap<string, ReadonlyMap<number, bigint>>;
}

const NO_TASK_OFFSETS: MemberTaskOffsets = { taskOffsets: new Map(), taskEndOffsets: new Map() };

export class StreamsGroup {
  private readonly epoch: TimelineValue<number>;
  private readonly hash: TimelineValue<bigint>;
  private readonly validatedEpoch: TimelineValue<number>;
  private readonly assignmentConfigs: TimelineValue<ReadonlyMap<string, string>>;
  private readonly targetEpoch: TimelineValue<number>;
  private readonly targetTimestampMs: TimelineValue<number>;
  private readonly topologyValue: TimelineValue<StreamsTopology | null>;
  private readonly configured: TimelineValue<ConfiguredTopology | null>;
  private readonly memberMap: TimelineMap<string, StreamsGroupMember>;
  /** Instance id → member id. */
  private readonly staticMemberMap: TimelineMap<string, string>;
  private readonly target: TimelineMap<string, TasksTuple>;
  private readonly offsetsByMember = new Map<string, MemberTaskOffsets>();
  /** Kafka's metadataRefreshDeadline: not part of the undo. */
  metadataRefreshDeadline = { deadlineMs: 0, epoch: 0 };
  /** Bumped whenever what members serve at their user endpoints may have changed (in memory, as in Kafka). */
  endpointInformationEpoch = 0;
  /** The member that asked to shut the application down (in memory, as in Kafka). */
  shutdownRequestMemberId: string | null = null;

  constructor(
    readonly groupId: string,
    journal: Journal,
  ) {
    // As Kafka 4.4's StreamsGroup: group epoch 1, target assignment at epoch 1 (no time),
    // validated topology epoch 0.
    this.epoch = new TimelineValue(journal, INITIAL_GROUP_EPOCH);
    this.hash = new TimelineValue(journal, 0n);
    this.validatedEpoch = new TimelineValue(journal, 0);
    this.assignmentConfigs = new TimelineValue<ReadonlyMap<string, string>>(journal, new Map());
    this.targetEpoch = new TimelineValue(journal, INITIAL_GROUP_EPOCH);
    this.targetTimestampMs = new TimelineValue(journal, 0);
    this.topologyValue = new TimelineValue<StreamsTopology | null>(journal, null);
    this.configured = new TimelineValue<ConfiguredTopology | null>(journal, null);
    this.memberMap = new TimelineMap(journal, true);
    this.staticMemberMap = new TimelineMap(journal);
    this.target = new TimelineMap(journal, true);
  }

  get groupEpoch(): number {
    return this.epoch.get();
  }

  get metadataHash(): bigint {
    return this.hash.get();
  }

  get validatedTopologyEpoch(): number {
    return this.validatedEpoch.get();
  }

  /** The assignment configs (num.standby.replicas) the last group epoch was computed with (Kafka's lastAssignmentConfigs). */
  get lastAssignmentConfigs(): ReadonlyMap<string, string> {
    return this.assignmentConfigs.get();
  }

  setGroupEpoch(epoch: number, metadataHash: bigint, validatedTopologyEpoch: number, lastAssignmentConfigs: ReadonlyMap<string, string>): void {
    this.epoch.set(epoch);
    this.hash.set(metadataHash);
    this.validatedEpoch.set(validatedTopologyEpoch);
    this.assignmentConfigs.set(lastAssignmentConfigs);
  }

  get assignmentEpoch(): number {
    return this.targetEpoch.get();
  }

  get assignmentTimestampMs(): number {
    return this.targetTimestampMs.get();
  }

  setAssignmentMetadata(epoch: number, timestampMs: number): void {
    this.targetEpoch.set(epoch);
    this.targetTimestampMs.set(timestampMs);
  }

  get topology(): StreamsTopology | null {
    return this.topologyValue.get();
  }

  setTopology(topology: StreamsTopology | null): void {
    this.topologyValue.set(topology);
    // A new topology must be configured again.
    this.configured.set(null);
  }

  get configuredTopology(): ConfiguredTopology | null {
    return this.configured.get();
  }

  setConfiguredTopology(configured: ConfiguredTopology | null): void {
    this.configured.set(configured);
  }

  /** Kafka's ConfiguredTopology.isReady: configured without error, so tasks can be assigned. */
  get isTopologyReady(): boolean {
    const c = this.configured.get();
    return c !== null && c.error === null && c.subtopologies !== null;
  }

  /** Kafka's maybeUpdateGroupState, computed when asked. */
  get state(): StreamsGroupState {
    if (this.memberMap.size === 0) return 'Empty';
    if (this.topology === null || !this.isTopologyReady) return 'NotReady';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.memberMap.values()) if (!isReconciledTo(m, this.assignmentEpoch)) return 'Reconciling';
    return 'Stable';
  }

  get members(): ReadonlyMap<string, StreamsGroupMember> {
    return this.memberMap;
  }

  get numMembers(): number {
    return this.memberMap.size;
  }

  member(memberId: string): StreamsGroupMember | undefined {
    return this.memberMap.get(memberId);
  }

  staticMemberId(instanceId: string): string | undefined {
    return this.staticMemberMap.get(instanceId);
  }

  get targetAssignment(): ReadonlyMap<string, TasksTuple> {
    return this.target;
  }

  targetAssignmentOf(memberId: string): TasksTuple {
    return this.target.get(memberId) ?? EMPTY_TASKS_TUPLE;
  }

  taskOffsets(memberId: string): MemberTaskOffsets {
    return this.offsetsByMember.get(memberId) ?? NO_TASK_OFFSETS;
  }

  updateTaskOffsets(memberId: string, offsets: MemberTaskOffsets): void {
    this.offsetsByMember.set(memberId, offsets);
  }

  requestMetadataRefresh(): void {
    this.metadataRefreshDeadline = { deadlineMs: 0, epoch: 0 };
  }

  hasMetadataExpired(nowMs: number): boolean {
    return nowMs >= this.metadataRefreshDeadline.deadlineMs || this.epoch.get() < this.metadataRefreshDeadline.epoch;
  }

  /**
   * Which processes hold a task now (assigned or still pending revocation), other than the
   * member `except`: Kafka's currentActiveTaskToProcessId and the standby and warm-up maps.
   */
  taskOwners(except: string): TaskOwners {
    const active = new Map<string, string>();
    const standby = new Map<string, Set<string>>();
    const warmup = new Map<string, Set<string>>();
    const key = (sub: string, p: number): string => `${sub}\u0000${p}`;
    const addSet = (m: Map<string, Set<string>>, tasks: TaskSet, processId: string): void => {
      for (const [sub, ps] of tasks) for (const p of ps) {
        const k = key(sub, p);
        let s = m.get(k);
        if (s === undefined) m.set(k, (s = new Set()));
        s.add(processId);
      }
    };
    for (const m of this.memberMap.values()) {
      if (m.memberId === except) continue;
      for (const t of [m.assignedTasks, m.tasksPendingRevocation]) {
        for (const [sub, ps] of t.activeTasks) for (const p of ps) active.set(key(sub, p), m.processId);
        addSet(standby, t.standbyTasks, m.processId);
        addSet(warmup, t.warmupTasks, m.processId);
      }
    }
    const none = new Set<string>();
    return {
      activeProcessId: (sub, p) => active.get(key(sub, p)) ?? null,
      standbyProcessIds: (sub, p) => standby.get(key(sub, p)) ?? none,
      warmupProcessIds: (sub, p) => warmup.get(key(sub, p)) ?? none,
    };
  }

  // Record application (replay.ts).

  updateMember(member: StreamsGroupMember): void {
    const old = this.memberMap.get(member.memberId);
    if (old?.instanceId !== null && old?.instanceId !== undefined && old.instanceId !== member.instanceId) this.staticMemberMap.delete(old.instanceId);
    this.memberMap.set(member.memberId, member);
    if (member.instanceId !== null) this.staticMemberMap.set(member.instanceId, member.memberId);
  }

  removeMember(memberId: string): void {
    const old = this.memberMap.get(memberId);
    if (old === undefined) return;
    this.memberMap.delete(memberId);
    if (old.instanceId !== null && this.staticMemberMap.get(old.instanceId) === memberId) this.staticMemberMap.delete(old.instanceId);
    this.offsetsByMember.delete(memberId);
  }

  updateTargetAssignment(memberId: string, assignment: TasksTuple): void {
    this.target.set(memberId, assignment);
  }

  removeTargetAssignment(memberId: string): void {
    this.target.delete(memberId);
  }
}

export interface TaskOwners {
  activeProcessId(subtopologyId: string, partition: number): string | null;
  standbyProcessIds(subtopologyId: string, partition: number): ReadonlySet<string>;
  warmupProcessIds(subtopologyId: string, partition: number): ReadonlySet<string>;
}
