/**
 * The flight recorder: folds the group coordinator's events (src/coordinator/events.ts),
 * handed over once their records are durable, into timeline entries (timeline-entry.ts):
 *
 * - a rebalance opens at `rebalance-started` (members that joined or left just before it,
 *   the reason of that start) and collects what happens until it ends: a classic group's
 *   join phase completing (the generation, when CompletingRebalance began), consumer, share
 *   and streams members' reconciliation steps, members joining and leaving;
 * - it closes at `rebalance-completed` (Stable, or Empty), or when a newer rebalance starts
 *   first (superseded); the entry then lists the members with their assignments and the
 *   partitions whose owner changed since the previous entry;
 * - expiries and fencing, static member replacements, conversions and deletions are entries
 *   of their own, at the moment they happen.
 *
 * Entries are appended to `__brook_group_timeline` (timeline-log.ts), kept in memory (the
 * newest per group) for the console, and counted: time to stable and partitions moved per
 * group. At start-up the topic is read back, so the history, and each group's last
 * assignment that the next entry's moves are computed against, survive restarts. A
 * rebalance in progress at a restart is recorded from what is seen after it.
 */
import type { GroupEvent, GroupType } from '../../coordinator/index.js';
import { Histogram } from '../../util/histogram.js';
import type { Logger } from '../../util/log.js';
import type { Clock } from '../broker-context.js';
import { movedPartitions } from './moves.js';
import { classicAssignment, count, plain, reconciliationOf, removalReason, revokedOf, type OpenRebalance } from './entry-parts.js';
import type { TimelineLog } from './timeline-log.js';
import type { LeftMember, PartitionsByTopic, TimelineEntry, TimelineKind, TimelineMember, TimelineReader } from './timeline-entry.js';
import { TIMELINE_ENTRY_VERSION } from './timeline-entry.js';

/** Entries kept in memory per group, and groups kept (the least recently written go first). */
const ENTRIES_PER_GROUP = 200;
const GROUPS_KEPT = 5_000;

/** At most this many epochs, or this long, make one entry; a group that keeps changing longer gets an entry per stretch. */
const MAX_PASSED_EPOCHS = 1_000;
const MAX_MERGED_MS = 60_000;

/** Seconds from a rebalance's start to Stable: 10 ms to 10 minutes. */
export const REBALANCE_SECONDS_BOUNDS: readonly number[] = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

type MemberInfo = Omit<TimelineMember, 'assignment'>;

interface GroupRecording {
  type: GroupType;
  generation: number;
  readonly members: Map<string, MemberInfo>;
  /** Each member's assignment as of the last entry: what the next one's moves are measured from. */
  assignment: Map<string, PartitionsByTopic>;
  /** Consumer, share and streams members' current assignments, as their reconciliation steps tell them. */
  readonly current: Map<string, PartitionsByTopic>;
  open: OpenRebalance | null;
  /** Joins and departures seen before the rebalance they cause starts. */
  pendingJoined: TimelineMember[];
  pendingLeft: LeftMember[];
}

export interface FlightRecorderOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** Null: recording is off (group.timeline.enable=false). */
  readonly timelineLog: TimelineLog | null;
}

export class FlightRecorder implements TimelineReader {
  private readonly groups = new Map<string, GroupRecording>();
  private readonly byGroup = new Map<string, TimelineEntry[]>();
  private readonly listeners = new Set<(entry: TimelineEntry) => void>();
  /** Per group: seconds from each rebalance's start to Stable, and partitions moved. */
  readonly timeToStable = new Map<string, Histogram>();
  readonly partitionsMoved = new Map<string, number>();

  constructor(private readonly options: FlightRecorderOptions) {}

  get enabled(): boolean {
    return this.options.timelineLog !== null;
  }

  /** Reads the history back from the topic (start-up, before any event). */
  load(): void {
    const log = this.options.timelineLog;
    if (log === null) return;
    for (const entry of log.readAll()) {
      this.keep(entry);
      this.restore(entry);
    }
  }

  handle(events: readonly GroupEvent[]): void {
    if (this.options.timelineLog === null || events.length === 0) return;
    const written: TimelineEntry[] = [];
    const nowMs = this.options.clock.nowMs();
    for (const e of events) this.fold(e, nowMs, written);
    if (written.length === 0) return;
    this.options.timelineLog.append(written, nowMs);
    for (const entry of written) {
      this.keep(entry);
      for (const listener of this.listeners) {
        try {
          listener(entry);
        } catch (err) {
          this.options.log.error('group timeline listener failed', { err });
        }
      }
    }
  }

  entries(groupId: string, sinceMs?: number): readonly TimelineEntry[] {
    const all = this.byGroup.get(groupId) ?? [];
    if (sinceMs === undefined) return all;
    return all.filter((e) => Date.parse(e.time) >= sinceMs);
  }

  subscribe(listener: (entry: TimelineEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  inProgress(groupId: string): { readonly sinceMs: number; readonly reason: string; readonly generation: number } | null {
    const open = this.groups.get(groupId)?.open;
    if (open === undefined || open === null) return null;
    return { sinceMs: open.startedAtMs ?? this.options.clock.nowMs(), reason: open.reason, generation: open.generation };
  }

  private fold(e: GroupEvent, nowMs: number, out: TimelineEntry[]): void {
    switch (e.type) {
      case 'member-joined': {
        const g = this.group(e.groupId, e.groupType);
        const member: MemberInfo = { memberId: e.memberId, instanceId: e.groupInstanceId, clientId: e.clientId, clientHost: e.clientHost, protocol: e.protocol };
        g.members.set(e.memberId, member);
        (g.open?.joined ?? g.pendingJoined).push(member);
        return;
      }
      case 'member-removed': {
        const g = this.group(e.groupId, e.groupType);
        g.members.delete(e.memberId);
        g.current.delete(e.memberId);
        const left: LeftMember = { memberId: e.memberId, instanceId: e.groupInstanceId, cause: e.cause, clientReason: e.clientReason };
        (g.open?.left ?? g.pendingLeft).push(left);
        // Leaving is part of the rebalance it causes; expiry and fencing are moments of their own.
        if (e.cause !== 'left') out.push(this.moment(g, e.groupId, 'member-removed', nowMs, removalReason(e.cause), { left: [left] }));
        return;
      }
      case 'member-replaced': {
        const g = this.group(e.groupId, e.groupType);
        g.members.delete(e.oldMemberId);
        // The new id inherits what the old one owned: that is not a move.
        for (const owners of [g.assignment, g.current]) {
          const owned = owners.get(e.oldMemberId);
          owners.delete(e.oldMemberId);
          if (owned !== undefined) owners.set(e.newMemberId, owned);
        }
        const joined = g.members.get(e.newMemberId);
        const left: LeftMember = { memberId: e.oldMemberId, instanceId: e.groupInstanceId, cause: 'replaced', clientReason: null };
        out.push(this.moment(g, e.groupId, 'static-member-replaced', nowMs, `static member ${e.groupInstanceId} restarted as ${e.newMemberId}`, {
          joined: joined === undefined ? [] : [joined], left: [left],
        }));
        return;
      }
      case 'rebalance-started': {
        const g = this.group(e.groupId, e.groupType);
        const classic = e.groupType === 'classic';
        const open = g.open;
        if (open !== null && !classic && open.startedAtMs !== null && open.passedEpochs.length < MAX_PASSED_EPOCHS && nowMs - open.startedAtMs < MAX_MERGED_MS) {
          // A consumer, share or streams group bumps its epoch for every member that joins:
          // epochs that follow one another before the group is Stable again are one pause of
          // consumption, one entry (else a group of N members forming writes N entries of up
          // to N members each).
          open.passedEpochs.push(open.generation);
          open.generation = e.generation;
          g.generation = e.generation;
          return;
        }
        // A classic group rebalancing again before its generation was Stable; a consumer-type
        // group's rebalance that went on too long to be merged further.
        if (open !== null) out.push(this.close(e.groupId, g, 'superseded', nowMs, undefined));
        g.open = {
          startedAtMs: nowMs, reason: e.reason, generation: classic ? e.generation + 1 : e.generation, joinCompletedAtMs: null,
          joined: g.pendingJoined, left: g.pendingLeft, steps: new Map(), passedEpochs: [],
        };
        g.pendingJoined = [];
        g.pendingLeft = [];
        if (!classic) g.generation = e.generation;
        return;
      }
      case 'join-completed': {
        const g = this.group(e.groupId, 'classic');
        const open = g.open ?? this.openUnseen(g, e.generation);
        open.generation = e.generation;
        open.joinCompletedAtMs = nowMs;
        g.generation = e.generation;
        return;
      }
      case 'member-reconciled': {
        const g = this.group(e.groupId, e.groupType);
        const assigned = plain(e.assigned);
        g.current.set(e.memberId, assigned);
        const open = g.open;
        if (open === null) return;
        const atMs = open.startedAtMs === null ? 0 : nowMs - open.startedAtMs;
        let rec = open.steps.get(e.memberId);
        if (rec === undefined) open.steps.set(e.memberId, (rec = { convergedMs: null, steps: [], revoked: new Map() }));
        for (const [topic, partitions] of e.revoking) {
          let set = rec.revoked.get(topic);
          if (set === undefined) rec.revoked.set(topic, (set = new Set()));
          for (const p of partitions) set.add(p);
        }
        rec.steps.push({ atMs, memberEpoch: e.memberEpoch, state: e.state, assigned: count(e.assigned), revoking: count(e.revoking) });
        if (rec.convergedMs === null && e.memberEpoch >= open.generation && e.state === 'STABLE') rec.convergedMs = atMs;
        return;
      }
      case 'rebalance-completed': {
        const g = this.group(e.groupId, e.groupType);
        g.generation = e.generation;
        if (g.open === null) this.openUnseen(g, e.generation);
        let assignment: Map<string, PartitionsByTopic> | undefined;
        if (e.classic !== undefined) {
          g.open!.generation = e.generation;
          assignment = classicAssignment(e.classic.protocolType, e.classic.assignments);
        }
        out.push(this.close(e.groupId, g, e.state, nowMs, assignment, e.classic));
        return;
      }
      case 'group-converted': {
        const g = this.group(e.groupId, e.from);
        // The open rebalance ends with the conversion; the converted group goes on from its members.
        if (g.open !== null) out.push(this.close(e.groupId, g, 'superseded', nowMs, undefined));
        out.push(this.moment(g, e.groupId, 'group-converted', nowMs, `converted from a ${e.from} group to a ${e.to} group with ${e.members} members`, { from: e.from, to: e.to }));
        g.type = e.to;
        // The members keep what they owned: in a consumer group their current assignments are what later entries compare with.
        g.current.clear();
        if (e.to !== 'classic') for (const [id, a] of g.assignment) g.current.set(id, a);
        return;
      }
      case 'group-deleted': {
        const g = this.group(e.groupId, e.groupType);
        out.push(this.moment(g, e.groupId, 'group-deleted', nowMs, e.reason, {}));
        this.groups.delete(e.groupId);
        // Its metrics go with it, as its rebalance count does.
        this.timeToStable.delete(e.groupId);
        this.partitionsMoved.delete(e.groupId);
        return;
      }
      case 'offsets-expired':
        return;
    }
  }

  private group(groupId: string, type: GroupType): GroupRecording {
    let g = this.groups.get(groupId);
    if (g === undefined) {
      g = { type, generation: 0, members: new Map(), assignment: new Map(), current: new Map(), open: null, pendingJoined: [], pendingLeft: [] };
      this.groups.set(groupId, g);
    }
    return g;
  }

  /** A rebalance whose start was not seen (it began before a restart). */
  private openUnseen(g: GroupRecording, generation: number): OpenRebalance {
    g.open = {
      startedAtMs: null, reason: 'began before the broker restarted', generation, joinCompletedAtMs: null,
      joined: g.pendingJoined, left: g.pendingLeft, steps: new Map(), passedEpochs: [],
    };
    g.pendingJoined = [];
    g.pendingLeft = [];
    return g.open;
  }

  private close(
    groupId: string, g: GroupRecording, outcome: 'Stable' | 'Empty' | 'superseded', nowMs: number,
    classicAssignment: Map<string, PartitionsByTopic> | undefined,
    classic?: { readonly leader: string | null; readonly protocolType: string | null; readonly protocolName: string | null },
  ): TimelineEntry {
    const open = g.open!;
    g.open = null;
    // Who owns what now: the leader's assignment (classic), or the members' current assignments.
    const owners = new Map<string, PartitionsByTopic>();
    for (const memberId of g.members.keys()) {
      const a = classicAssignment !== undefined ? classicAssignment.get(memberId) : g.current.get(memberId);
      if (a !== undefined) owners.set(memberId, a);
    }
    // A superseded classic generation never handed out its assignment: nothing moved yet.
    const keepPrevious = outcome === 'superseded' && g.type === 'classic';
    const moved = keepPrevious ? [] : movedPartitions(g.assignment, owners);
    if (!keepPrevious) g.assignment = owners;
    const startedAtMs = open.startedAtMs;
    const durationMs = startedAtMs === null ? null : Math.max(0, nowMs - startedAtMs);
    const members: TimelineMember[] = [...g.members.values()].map((m) => ({ ...m, assignment: g.assignment.get(m.memberId) ?? {} }));
    const isClassic = g.type === 'classic';
    const entry: TimelineEntry = {
      ...this.base(groupId, g.type, isClassic ? open.generation : open.generation, startedAtMs ?? nowMs),
      kind: 'rebalance', reason: open.reason, joined: open.joined, left: open.left, members, moved, durationMs, outcome,
      ...(isClassic
        ? {
            preparingRebalanceMs: startedAtMs === null || open.joinCompletedAtMs === null ? null : open.joinCompletedAtMs - startedAtMs,
            completingRebalanceMs: open.joinCompletedAtMs === null || outcome === 'Empty' ? null : nowMs - open.joinCompletedAtMs,
            leader: classic?.leader ?? null, protocolType: classic?.protocolType ?? null, protocol: classic?.protocolName ?? null,
          }
        : { revoked: revokedOf(open), reconciliation: reconciliationOf(open), ...(open.passedEpochs.length > 0 ? { passedEpochs: open.passedEpochs } : {}) }),
    };
    if (outcome !== 'superseded' && durationMs !== null) {
      let h = this.timeToStable.get(groupId);
      if (h === undefined) this.timeToStable.set(groupId, (h = new Histogram(REBALANCE_SECONDS_BOUNDS)));
      h.observe(durationMs / 1000);
    }
    if (moved.length > 0) this.partitionsMoved.set(groupId, (this.partitionsMoved.get(groupId) ?? 0) + moved.length);
    return entry;
  }

  private moment(
    g: GroupRecording, groupId: string, kind: TimelineKind, nowMs: number, reason: string,
    extra: Partial<Pick<TimelineEntry, 'joined' | 'left' | 'from' | 'to'>>,
  ): TimelineEntry {
    return {
      ...this.base(groupId, g.type, g.open?.generation ?? g.generation, nowMs),
      kind, reason, joined: extra.joined ?? [], left: extra.left ?? [], members: [...g.members.values()], moved: [], durationMs: 0,
      ...(extra.from !== undefined ? { from: extra.from, to: extra.to } : {}),
    };
  }

  private base(groupId: string, type: GroupType, generation: number, atMs: number): Pick<TimelineEntry, 'v' | 'group' | 'groupType' | 'time' | 'generation' | 'epoch'> {
    return {
      v: TIMELINE_ENTRY_VERSION, group: groupId, groupType: type, time: new Date(atMs).toISOString(),
      ...(type === 'classic' ? { generation } : { epoch: generation }),
    };
  }

  private keep(entry: TimelineEntry): void {
    let list = this.byGroup.get(entry.group);
    if (list === undefined) {
      list = [];
    } else {
      // Most recently written last: the first key is the group to drop when there are too many.
      this.byGroup.delete(entry.group);
    }
    this.byGroup.set(entry.group, list);
    list.push(entry);
    if (list.length > ENTRIES_PER_GROUP) list.splice(0, list.length - ENTRIES_PER_GROUP);
    if (this.byGroup.size > GROUPS_KEPT) this.byGroup.delete(this.byGroup.keys().next().value!);
  }

  /** Start-up: a group's members and assignment as its last entry left them. */
  private restore(entry: TimelineEntry): void {
    if (entry.kind === 'group-deleted') {
      this.groups.delete(entry.group);
      return;
    }
    const g = this.group(entry.group, entry.groupType);
    g.type = entry.kind === 'group-converted' && entry.to !== undefined ? entry.to : entry.groupType;
    g.generation = entry.generation ?? entry.epoch ?? g.generation;
    g.members.clear();
    for (const { assignment: _a, ...m } of entry.members) g.members.set(m.memberId, m);
    if (entry.kind === 'rebalance' && entry.truncated !== true && !(entry.outcome === 'superseded' && entry.groupType === 'classic')) {
      g.assignment = new Map(entry.members.map((m) => [m.memberId, m.assignment ?? {}]));
      g.current.clear();
      for (const [id, a] of g.assignment) g.current.set(id, a);
    }
  }
}
