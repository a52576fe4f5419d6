/**
 * Raw KIP-848 group members for the many-groups and recorder scenarios: many consumer groups, each of a few
 * members, heartbeating (ConsumerGroupHeartbeat v1) over a pool of connections, as a fleet of
 * consumers would, and optionally one member per group committing its partitions
 * (OffsetCommit v9, with its member epoch) at a fixed pace. A member behaves as Kafka's
 * consumer does: it joins with its subscription, takes the assignment it is given (revoking
 * at once), acknowledges what it owns in its next heartbeat, and joins again when fenced.
 * Each member has at most one heartbeat in flight; its heartbeats are spread evenly over the
 * interval, besides the one acknowledging a new assignment, sent at once as Kafka's consumer
 * sends it. Latencies run from the request's write to its answer. For churn, a member can be
 * replaced (it leaves, a new one joins in its place), and every member can leave at the end.
 */
import { randomBytes } from 'node:crypto';
import type { KafkaConnection } from '../../src/client/connection.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Api } from '../../src/protocol/messages/index.js';
import { connect, ensureCoordinator } from './commits.js';
import { percentile } from './stats.js';

export interface HeartbeatLoadOptions {
  readonly bootstrap: string;
  /** The topic every member subscribes to (as many partitions as members per group, for one each). */
  readonly topic: string;
  readonly groups: number;
  readonly membersPerGroup: number;
  readonly connections: number;
  /** How often each member heartbeats (the client's pace; the broker's interval is not waited for). */
  readonly heartbeatIntervalMs: number;
  /** One member of each of the first `commitGroups` groups commits its partitions this often. */
  readonly commitIntervalMs?: number;
  readonly commitGroups?: number;
  readonly groupPrefix: string;
  /**
   * The owner calls tick() every TICK_MS instead of a timer of this load's own: one timer
   * driving several loads, in an order that alternates, so that no load always sends first
   * (the one that does waits, in every tick, for the others' sends before its answers are read).
   */
  readonly externalTicks?: boolean;
}

interface Member {
  readonly groupId: string;
  readonly memberId: string;
  readonly conn: KafkaConnection;
  readonly commits: boolean;
  epoch: number;
  owned: { topicId: string; partitions: number[] }[];
  /** Owned partitions to acknowledge in the next heartbeat. */
  acknowledge: boolean;
  inFlight: boolean;
  /** Answers (heartbeats without error) since the last change of its assignment or epoch. */
  quiet: number;
  offset: bigint;
  /** Left its group (replace, leaveAll): late answers to its earlier heartbeats are ignored. */
  left: boolean;
}

/**
 * Due times in a fixed rotation: member i of n is due at start + round * interval + i *
 * interval / n, so each tick looks only at the members whose time came (not at all of them).
 */
class Rotation {
  private round = 0;
  private next = 0;

  constructor(private readonly count: number, private readonly intervalMs: number, private readonly startMs: number) {}

  /** Calls `due` with the index of every member whose time came by `nowMs`, in order. */
  take(nowMs: number, due: (index: number) => void): void {
    if (this.count === 0) return;
    for (;;) {
      const at = this.startMs + this.round * this.intervalMs + (this.next * this.intervalMs) / this.count;
      if (at > nowMs) return;
      due(this.next);
      if (++this.next === this.count) {
        this.next = 0;
        this.round++;
      }
    }
  }
}

export interface HeartbeatWindow {
  readonly seconds: number;
  readonly heartbeats: number;
  readonly heartbeatP50Ms: number;
  readonly heartbeatP99Ms: number;
  readonly commits: number;
  readonly commitP50Ms: number;
  readonly commitP99Ms: number;
  /** Answers with an error (each is retried, or the member joins again). */
  readonly errors: number;
}

/** How often due heartbeats and commits are sent. */
export const TICK_MS = 5;
const REJOIN = new Set<number>([ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID]);

export class HeartbeatLoad {
  private readonly members: Member[] = [];
  private readonly committers: Member[] = [];
  private heartbeats: Rotation | null = null;
  private commits: Rotation | null = null;
  private conns: KafkaConnection[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** Between start and close (or leaveAll): members heartbeat. */
  private running = false;
  private heartbeatLatencies: number[] = [];
  private commitLatencies: number[] = [];
  private errors = 0;
  private failure: Error | null = null;
  private windowStart = 0;

  constructor(private readonly o: HeartbeatLoadOptions) {}

  /** Connects and starts every member (joining at once, their heartbeats then spread over the interval). */
  async start(): Promise<void> {
    this.conns = await Promise.all(Array.from({ length: this.o.connections }, () => connect(this.o.bootstrap, 'brook-bench-heartbeats')));
    await ensureCoordinator(this.conns[0]!, `${this.o.groupPrefix}-0`);
    for (let g = 0; g < this.o.groups; g++) {
      for (let m = 0; m < this.o.membersPerGroup; m++) {
        const member = this.newMember(`${this.o.groupPrefix}-${g}`, this.members.length, m === 0 && g < (this.o.commitGroups ?? 0));
        this.members.push(member);
        if (member.commits) this.committers.push(member);
      }
    }
    const now = performance.now();
    this.heartbeats = new Rotation(this.members.length, this.o.heartbeatIntervalMs, now);
    this.commits = new Rotation(this.committers.length, this.o.commitIntervalMs ?? 1000, now + this.o.heartbeatIntervalMs);
    this.running = true;
    if (this.o.externalTicks !== true) this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  /**
   * Resolves once every member has joined, is at its group's latest epoch and had `quietBeats`
   * heartbeats in a row without a change. (A member alone at an older epoch has yet to revoke
   * partitions for one that joined after it, however quiet it was before.)
   */
  async settled(quietBeats: number, timeoutMs: number, pollMs = 100): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.failure !== null) throw this.failure;
      const groupEpochs = new Map<string, number>();
      for (const m of this.members) groupEpochs.set(m.groupId, Math.max(groupEpochs.get(m.groupId) ?? 0, m.epoch));
      const unsettled = this.members.filter((m) => m.epoch <= 0 || m.epoch !== groupEpochs.get(m.groupId) || m.quiet < quietBeats).length;
      if (unsettled === 0) return;
      if (Date.now() > deadline) throw new Error(`${unsettled} of ${this.members.length} members not settled after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /** Runs for `durationMs` and returns what was answered meanwhile. */
  async window(durationMs: number): Promise<HeartbeatWindow> {
    this.beginWindow();
    await new Promise((r) => setTimeout(r, durationMs));
    return this.endWindow();
  }

  /** Starts a window that lasts until endWindow (one spanning some other activity). */
  beginWindow(): void {
    this.heartbeatLatencies = [];
    this.commitLatencies = [];
    this.errors = 0;
    this.windowStart = performance.now();
  }

  /** What was answered since beginWindow. */
  endWindow(): HeartbeatWindow {
    if (this.failure !== null) throw this.failure;
    const hb = this.heartbeatLatencies;
    const commits = this.commitLatencies;
    return {
      seconds: (performance.now() - this.windowStart) / 1000,
      heartbeats: hb.length, heartbeatP50Ms: percentile(hb, 50), heartbeatP99Ms: percentile(hb, 99),
      commits: commits.length, commitP50Ms: percentile(commits, 50), commitP99Ms: percentile(commits, 99),
      errors: this.errors,
    };
  }

  /** Members per group: `replace` takes slots 0 to this - 1. */
  get membersPerGroup(): number {
    return this.o.membersPerGroup;
  }

  /**
   * Member `slot` of group `g` leaves (a leave heartbeat, member epoch -1, as Kafka's consumer
   * sends on close) and a new member joins in its place at once: two changes of the group, each
   * a new group epoch and target assignment. The new member's join is sent right after the
   * leave, on the same connection. The member must have joined (settled), or the broker would
   * keep a member that no longer heartbeats until its session times out.
   */
  replace(g: number, slot: number): void {
    const index = g * this.o.membersPerGroup + slot;
    const old = this.members[index]!;
    if (old.epoch <= 0) throw new Error(`member ${slot} of group ${old.groupId} has not joined yet`);
    old.left = true;
    void this.leave(old);
    const member = this.newMember(old.groupId, index, old.commits);
    this.members[index] = member;
    if (old.commits) this.committers[this.committers.indexOf(old)] = member;
    this.heartbeat(member);
  }

  /** Stops heartbeating; every joined member leaves its group, answered before this resolves. */
  async leaveAll(): Promise<void> {
    this.running = false;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    const leaving = this.members.filter((m) => m.epoch > 0 && !m.left);
    for (const m of leaving) m.left = true;
    await Promise.all(leaving.map((m) => this.leave(m)));
  }

  /** Stops heartbeating and closes the connections (the members expire on the broker). */
  close(): void {
    this.running = false;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    for (const c of this.conns) c.close();
  }

  /**
   * Sends what is due (every TICK_MS: from the load's own timer, or its owner's with
   * externalTicks). A member whose previous request is still unanswered skips its turn,
   * as a client does not heartbeat again while one is in flight; a member that has not
   * joined yet does not commit.
   */
  tick(): void {
    if (!this.running) return;
    const now = performance.now();
    this.heartbeats!.take(now, (i) => {
      const m = this.members[i]!;
      if (!m.inFlight && !m.left) this.heartbeat(m);
    });
    this.commits!.take(now, (i) => {
      const m = this.committers[i]!;
      if (!m.inFlight && m.epoch > 0 && m.owned.length > 0) this.commit(m);
    });
  }

  private newMember(groupId: string, index: number, commits: boolean): Member {
    return {
      groupId, memberId: randomBytes(16).toString('base64url'), conn: this.conns[index % this.conns.length]!,
      commits, epoch: 0, owned: [], acknowledge: false, inFlight: false, quiet: 0, offset: 0n, left: false,
    };
  }

  /** The leave heartbeat (member epoch -1); its answer is not timed. */
  private leave(m: Member): Promise<void> {
    return m.conn.request(Api.ConsumerGroupHeartbeat, {
      groupId: m.groupId, memberId: m.memberId, memberEpoch: -1, instanceId: null, rackId: null, rebalanceTimeoutMs: -1,
      subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null,
    }, { version: 1 }).then((r) => {
      if (r.errorCode !== ErrorCode.NONE) this.errors++;
    }, (err: unknown) => {
      this.failure ??= err instanceof Error ? err : new Error(String(err));
    });
  }

  private heartbeat(m: Member): void {
    m.inFlight = true;
    const joining = m.epoch === 0;
    const sent = performance.now();
    m.conn.request(Api.ConsumerGroupHeartbeat, {
      groupId: m.groupId, memberId: m.memberId, memberEpoch: m.epoch, instanceId: null, rackId: null,
      rebalanceTimeoutMs: joining ? 60_000 : -1, subscribedTopicNames: joining ? [this.o.topic] : null, subscribedTopicRegex: null,
      serverAssignor: null, topicPartitions: joining ? [] : m.acknowledge ? m.owned : null,
    }, { version: 1 }).then((r) => {
      m.inFlight = false;
      if (m.left) return;
      if (r.errorCode !== ErrorCode.NONE) {
        this.errors++;
        if (REJOIN.has(r.errorCode)) {
          m.epoch = 0;
          m.owned = [];
          m.quiet = 0;
        }
        return;
      }
      this.heartbeatLatencies.push(performance.now() - sent);
      m.acknowledge = false;
      const changed = r.memberEpoch !== m.epoch || r.assignment !== null;
      m.epoch = r.memberEpoch;
      m.quiet = changed ? 0 : m.quiet + 1;
      if (r.assignment !== null) {
        m.owned = r.assignment.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: [...t.partitions] }));
        m.acknowledge = true;
        // As Kafka's consumer: a new assignment is acknowledged at once, not at the next turn.
        if (this.running) this.heartbeat(m);
      }
    }, (err: unknown) => {
      m.inFlight = false;
      this.failure ??= err instanceof Error ? err : new Error(String(err));
    });
  }

  private commit(m: Member): void {
    m.inFlight = true;
    const sent = performance.now();
    m.offset++;
    m.conn.request(Api.OffsetCommit, {
      groupId: m.groupId, generationIdOrMemberEpoch: m.epoch, memberId: m.memberId, groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: this.o.topic, partitions: m.owned.flatMap((t) => t.partitions).map((p) => ({ partitionIndex: p, committedOffset: m.offset, committedLeaderEpoch: -1, committedMetadata: '' })) }],
    }, { version: 9 }).then((r) => {
      m.inFlight = false;
      const errorCode = r.topics.flatMap((t) => t.partitions).find((p) => p.errorCode !== ErrorCode.NONE)?.errorCode;
      if (errorCode !== undefined) {
        // A commit racing a rebalance (STALE_MEMBER_EPOCH and the like): retried at the next pace.
        this.errors++;
        return;
      }
      this.commitLatencies.push(performance.now() - sent);
    }, (err: unknown) => {
      m.inFlight = false;
      this.failure ??= err instanceof Error ? err : new Error(String(err));
    });
  }
}
