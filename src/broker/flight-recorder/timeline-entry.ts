/**
 * The flight recorder's entries: one JSON object per group transition, the value of a record
 * in the internal topic `__brook_group_timeline`, keyed by the group id (UTF-8). Any Kafka
 * client can read the topic; `brook groups timeline` and the console read these entries.
 *
 * A `rebalance` entry is one generation (classic groups) or one group epoch (consumer,
 * share and streams groups; with the epochs it went through on the way, `passedEpochs`),
 * written when it ends: the group reached Stable or Empty, or a newer rebalance superseded it. Its `time` is when the rebalance began and `durationMs`
 * how long consumption was paused (from the start to the outcome). The other kinds are
 * single moments: a member expired or fenced, a static member replaced, a group converted
 * between protocols or deleted.
 *
 * Every entry carries the fields a reader filters and sorts on: `group`, `groupType`,
 * `kind`, `time`, `generation` (classic) or `epoch` (the others), `reason`, `joined`, `left`,
 * `members`, `moved` and `durationMs`. The format is versioned by `v`; readers skip versions
 * they do not know.
 */
import type { GroupType } from '../../coordinator/index.js';

export const TIMELINE_TOPIC = '__brook_group_timeline';
export const TIMELINE_ENTRY_VERSION = 1;

/** Partitions by topic name, each list ascending. Streams groups: active tasks by subtopology id. */
export type PartitionsByTopic = Record<string, number[]>;

export interface TimelineMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** The member's own protocol: a classic member may live in a consumer group. */
  readonly protocol: GroupType;
  /** What the member owns once the transition ends (rebalance entries only). */
  readonly assignment?: PartitionsByTopic;
}

export interface LeftMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  /** left, session-timeout, rebalance-timeout, sync-timeout, group-max-size, replaced */
  readonly cause: string;
  readonly clientReason: string | null;
}

/** A partition (streams: an active task) whose owner changed; null: nobody owned it before / after. */
export interface MovedPartition {
  readonly topic: string;
  readonly partition: number;
  readonly from: string | null;
  readonly to: string | null;
}

/** One step of a member's reconciliation (consumer, share, streams groups). */
export interface ReconciliationStep {
  /** Milliseconds since the rebalance began. */
  readonly atMs: number;
  readonly memberEpoch: number;
  /** Kafka's member states: STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS, UNKNOWN. */
  readonly state: string;
  /** Partitions (tasks) the member owns after the step, and the ones it must still revoke. */
  readonly assigned: number;
  readonly revoking: number;
}

export interface MemberReconciliation {
  readonly memberId: string;
  /** Milliseconds from the rebalance's start until the member reached the epoch; null: it never did. */
  readonly convergedMs: number | null;
  readonly steps: readonly ReconciliationStep[];
}

export type TimelineKind = 'rebalance' | 'member-removed' | 'static-member-replaced' | 'group-converted' | 'group-deleted';

export interface TimelineEntry {
  readonly v: typeof TIMELINE_ENTRY_VERSION;
  readonly group: string;
  readonly groupType: GroupType;
  readonly kind: TimelineKind;
  /** ISO 8601: when the rebalance began, or when the moment happened. */
  readonly time: string;
  /** Classic groups: the generation (the new one for a rebalance). Absent for the other types. */
  readonly generation?: number;
  /** Consumer, share and streams groups: the group epoch. Absent for classic groups. */
  readonly epoch?: number;
  /** Why: Kafka's rebalance reason (with the client's reason appended), removal cause, ... */
  readonly reason: string;
  readonly joined: readonly TimelineMember[];
  readonly left: readonly LeftMember[];
  /** The members once the transition ended (with their assignment on rebalance entries). */
  readonly members: readonly TimelineMember[];
  readonly moved: readonly MovedPartition[];
  /** How long consumption was paused (rebalance entries; null when it began before a restart); 0 for moments. */
  readonly durationMs: number | null;
  /** Rebalance entries: Stable or Empty when it completed, superseded when a newer one began first. */
  readonly outcome?: 'Stable' | 'Empty' | 'superseded';
  /** Classic rebalances: the time in PreparingRebalance and in CompletingRebalance. */
  readonly preparingRebalanceMs?: number | null;
  readonly completingRebalanceMs?: number | null;
  /** Classic rebalances: the leader and the chosen protocol. */
  readonly leader?: string | null;
  readonly protocolType?: string | null;
  readonly protocol?: string | null;
  /** Consumer, share and streams rebalances: what members had to give up, and how each converged. */
  readonly revoked?: readonly { readonly memberId: string; readonly partitions: PartitionsByTopic }[];
  /**
   * Consumer, share and streams rebalances: the group epochs it went through before `epoch`.
   * Epochs that follow one another before the group is Stable again (members joining one by
   * one) are one rebalance, one entry.
   */
  readonly passedEpochs?: readonly number[];
  readonly reconciliation?: readonly MemberReconciliation[];
  /** group-converted: the protocols. */
  readonly from?: GroupType;
  readonly to?: GroupType;
  /** Set when per-member assignments were left out to keep the record under the topic's size limit. */
  readonly truncated?: boolean;
}

/** Parses a record value; null for what is not an entry of a known version (readers skip it). */
export function parseTimelineEntry(value: Uint8Array | string | null): TimelineEntry | null {
  if (value === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof value === 'string' ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const e = parsed as Partial<TimelineEntry>;
  if (e.v !== TIMELINE_ENTRY_VERSION || typeof e.group !== 'string' || typeof e.kind !== 'string' || typeof e.time !== 'string') return null;
  return e as TimelineEntry;
}

/** The generation (classic) or group epoch (the other types) the entry is about. */
export function entryGeneration(e: TimelineEntry): number {
  return e.generation ?? e.epoch ?? -1;
}

/** How the broker's own readers (the console) see the recorder: recent entries in memory, and new ones as they are written. */
export interface TimelineReader {
  /** The group's entries still in memory, oldest first; those at or after `sinceMs` when given. */
  entries(groupId: string, sinceMs?: number): readonly TimelineEntry[];
  /** Called with each entry once it is written; returns the unsubscribe function. */
  subscribe(listener: (entry: TimelineEntry) => void): () => void;
  /** The rebalance the group is in now, if any (not yet an entry): when it began, and why. */
  inProgress(groupId: string): { readonly sinceMs: number; readonly reason: string; readonly generation: number } | null;
}
