/**
 * The consumer's membership in a consumer group (`groupProtocol: 'consumer'`, KIP-848),
 * owner of its lifecycle, after Java's ConsumerMembershipManager and
 * AbstractMembershipManager: the member joins by a ConsumerGroupHeartbeat at epoch 0, the
 * coordinator computes the assignment and sends this member's share (topic ids) in heartbeat
 * responses, and the member reconciles it:
 *
 *   resolve topic ids through metadata → stop fetching what goes → commit consumed offsets
 *   (auto-commit on) → onPartitionsRevoked → assign what comes → onPartitionsAssigned →
 *   acknowledge (the next heartbeat, sent at once, carries the partitions now owned)
 *
 * A coordinator moves a partition from one member to another in two steps (the new owner
 * gets it only after the old one acknowledged its revocation), so one member usually sees
 * revoke → ack, then assign → ack. Reconciliation, like every rebalance listener call, runs
 * inside poll() (Java runs the callbacks on the application thread during poll too).
 *
 * Fencing (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID): the partitions are lost
 * (onPartitionsLost in the next poll), then the member rejoins at epoch 0 with the same
 * member id. max.poll.interval.ms without poll(): a leave heartbeat (epoch -1, static members
 * -2), the partitions are lost at the next poll(), which rejoins. Fatal errors end the
 * membership: every later poll() throws. Heartbeat timing and errors: consumer-protocol-heartbeat.ts.
 */
import type { ConsumerGroupHeartbeatResponseData } from '../../../protocol/messages/consumer-group-heartbeat.js';
import type { TimerHandle } from '../../../util/clock.js';
import { CommitFailedError } from '../errors.js';
import type { CommitGroupHooks, CommitIdentity } from '../offset-committer.js';
import { tpKey } from '../subscription-state.js';
import { AssignedTopics } from './assigned-topics.js';
import { ConsumerProtocolHeartbeat, type HeartbeatSubject } from './consumer-protocol-heartbeat.js';
import type { Membership, MembershipContext } from './group-member.js';
import { LocalAssignment, assignmentMap, generateMemberId } from './local-assignment.js';
import { invokeListener, type ListenerMethod } from './rebalance-listener.js';

/** Java's MemberState. */
export type ConsumerMemberState =
  | 'unsubscribed' | 'joining' | 'reconciling' | 'acknowledging' | 'stable'
  | 'fenced' | 'prepare-leaving' | 'leaving' | 'stale' | 'fatal';

/** ConsumerGroupHeartbeatRequest's epochs: join, leave, and a static member's temporary leave. */
const JOIN_EPOCH = 0;
const LEAVE_EPOCH = -1;
const STATIC_LEAVE_EPOCH = -2;

const NOT_IN_GROUP: readonly ConsumerMemberState[] = ['unsubscribed', 'fenced', 'fatal', 'stale'];

export class ConsumerProtocolMembership implements Membership, HeartbeatSubject {
  readonly protocolName = null;
  readonly leaderId = null;
  readonly commitHooks: CommitGroupHooks;
  memberId = generateMemberId();
  memberEpoch = JOIN_EPOCH;
  state: ConsumerMemberState = 'unsubscribed';
  /** The assignment reconciled last (what heartbeats report as owned). */
  current = LocalAssignment.NONE;
  /** The assignment the coordinator sent last. */
  target = LocalAssignment.NONE;
  private readonly heartbeat: ConsumerProtocolHeartbeat;
  private readonly topics: AssignedTopics;
  private failure: Error | null = null;
  /** subscribe() was called: the next poll() joins (when not in the group). */
  private joinRequested = false;
  /** Owned partitions to give up through onPartitionsLost in the next poll() (fenced, stale, fatal). */
  private releasePending = false;
  private work: Promise<void> | null = null;
  private reconciling = false;
  private rejoinedWhileReconciling = false;
  private lastPollMs: number;
  private pollTimer: TimerHandle | null = null;
  private closed = false;

  constructor(private readonly ctx: MembershipContext) {
    this.lastPollMs = ctx.cluster.scheduler.nowMs();
    this.heartbeat = new ConsumerProtocolHeartbeat(ctx, this);
    this.topics = new AssignedTopics(ctx);
    this.commitHooks = {
      identity: (): CommitIdentity | Error => (this.hasEpoch
        ? { generationId: this.memberEpoch, memberId: this.memberId, groupInstanceId: ctx.options.groupInstanceId }
        : new CommitFailedError('the consumer is not an active member of the group; poll() to join')),
      fetchIdentity: () => (this.hasEpoch ? { memberId: this.memberId, memberEpoch: this.memberEpoch } : null),
      awaitNewerEpoch: async (signal) => {
        if (!this.hasEpoch) return false;
        await this.heartbeat.nextResponse(signal);
        return this.hasEpoch;
      },
      // A failed commit changes nothing here: heartbeats learn of fencing from the coordinator (as Java's CommitRequestManager).
      requestRejoin: () => undefined,
      resetGeneration: () => undefined,
      fatal: () => undefined,
    };
  }

  // ---- what the Consumer sees ---------------------------------------------------------

  get generationId(): number {
    return this.memberEpoch > 0 ? this.memberEpoch : -1;
  }

  /** The fatal error, once the partitions were released through onPartitionsLost. */
  get fatalError(): Error | null {
    return this.releasePending ? null : this.failure;
  }

  get inGroup(): boolean {
    return !NOT_IN_GROUP.includes(this.state);
  }

  /** In the group with an epoch the coordinator gave: commits and offset fetches carry it. */
  private get hasEpoch(): boolean {
    return this.inGroup && this.memberEpoch > 0;
  }

  get active(): boolean {
    return this.hasEpoch;
  }

  get needsRejoin(): boolean {
    if (this.closed) return false;
    return this.work !== null || this.releasePending || (this.joinRequested && this.state === 'unsubscribed') || this.hasReconciliation();
  }

  subscriptionChanged(): void {
    this.joinRequested = true;
    // In the group already: the next heartbeat carries the new subscription; sent at once
    // (Java waits for the heartbeat interval) so the coordinator reassigns sooner.
    if (this.inGroup && this.state !== 'prepare-leaving') this.heartbeat.now();
    this.ctx.wake();
  }

  recordPoll(): void {
    this.lastPollMs = this.ctx.cluster.scheduler.nowMs();
    this.armPollTimer();
  }

  /** The group work of a poll(): release lost partitions, (re)join, reconcile; one at a time, callers share it. */
  ensureActiveGroup(): Promise<void> {
    this.work ??= this.pollWork().finally(() => { this.work = null; });
    return this.work;
  }

  private async pollWork(): Promise<void> {
    if (this.releasePending) {
      await this.release('onPartitionsLost');
      this.releasePending = false;
      // Fenced: rejoin at once. Stale: this poll() is the one that ends the staleness. Fatal: stay.
      if (this.state === 'fenced' || this.state === 'stale') this.transitionToJoining();
    }
    if (this.joinRequested && this.state === 'unsubscribed' && this.ctx.subscriptions.usesGroup) this.transitionToJoining();
    if (this.hasReconciliation()) await this.reconcile();
  }

  // ---- state transitions ----------------------------------------------------------------

  private transition(next: ConsumerMemberState): void {
    if (this.state === next) return;
    this.ctx.logger.debug('consumer group member state', { group: this.ctx.lookup.groupId, memberId: this.memberId, epoch: this.memberEpoch, from: this.state, to: next });
    this.state = next;
    this.heartbeat.schedule();
    // Out of the group with a subscription waiting (subscribe() while leaving): poll() joins.
    if (next === 'unsubscribed' && this.joinRequested) this.ctx.wake();
  }

  private transitionToJoining(): void {
    if (this.state === 'fatal') return;
    if (this.reconciling) this.rejoinedWhileReconciling = true;
    this.joinRequested = false;
    this.memberEpoch = JOIN_EPOCH;
    this.target = LocalAssignment.NONE;
    this.topics.clear();
    this.heartbeat.resetSentFields();
    this.transition('joining');
    this.armPollTimer();
    // The subscribed topics' ids, on their way while the coordinator assigns (Java's requestUpdateForNewTopics).
    if (this.ctx.subscriptions.type === 'topics') this.topics.refresh(() => this.target.localEpoch);
  }

  /** FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID: the partitions are lost, then the member rejoins at epoch 0 (same member id). */
  transitionToFenced(reason: string): void {
    if (this.state === 'prepare-leaving' || this.state === 'leaving' || this.state === 'unsubscribed') return; // leaving anyway
    if (!this.inGroup) return;
    this.ctx.logger.info('consumer group member fenced; its partitions are lost and it rejoins', { group: this.ctx.lookup.groupId, memberId: this.memberId, epoch: this.memberEpoch, reason });
    this.memberEpoch = JOIN_EPOCH;
    this.releasePending = true;
    this.transition('fenced');
    this.ctx.wake();
  }

  /** An error the membership cannot recover from: the partitions are lost, every later poll() throws it. */
  transitionToFatal(err: Error): void {
    if (this.state === 'fatal') return;
    this.ctx.logger.warn('consumer group membership failed', { group: this.ctx.lookup.groupId, memberId: this.memberId, error: err });
    this.failure = err;
    this.releasePending = this.ctx.subscriptions.size > 0;
    this.memberEpoch = JOIN_EPOCH;
    this.transition('fatal');
    this.ctx.wake();
  }

  // ---- heartbeats (HeartbeatSubject) --------------------------------------------------

  /** No regular heartbeats out of the group, nor while leaving (the leave heartbeat goes by itself). */
  shouldSkipHeartbeat(): boolean {
    return this.closed || !this.inGroup || this.state === 'leaving';
  }

  shouldHeartbeatNow(): boolean {
    return this.state === 'joining' || this.state === 'acknowledging';
  }

  onHeartbeatRequestGenerated(): void {
    // The acknowledgement is on its way: stable, or reconciling what arrived meanwhile.
    if (this.state === 'acknowledging') this.transition(this.target.equals(this.current) ? 'stable' : 'reconciling');
  }

  onHeartbeatSuccess(response: ConsumerGroupHeartbeatResponseData): void {
    if (!this.inGroup || this.state === 'leaving' || response.memberEpoch < 0) return;
    // v0 coordinators may name the member themselves; v1 echoes the id the member generated.
    if (response.memberId !== null && response.memberId !== '' && response.memberId !== this.memberId) this.memberId = response.memberId;
    this.memberEpoch = response.memberEpoch;
    if (response.assignment === null || this.state === 'prepare-leaving') return;
    const next = this.target.updateWith(assignmentMap(response.assignment.topicPartitions));
    if (next) this.target = next;
    if (!this.target.equals(this.current)) {
      this.transition('reconciling');
      this.ctx.wake();
    } else if (this.state === 'reconciling' || this.state === 'joining') {
      this.transition('stable');
    }
  }

  /** What heartbeats say the member subscribes to. */
  subscription(): { names: string[]; regex: RegExp | null } {
    const s = this.ctx.subscriptions;
    return s.type === 'pattern' ? { names: [], regex: s.pattern } : { names: [...s.topics], regex: null };
  }

  // ---- reconciliation -------------------------------------------------------------------

  /** True when a poll() has reconciling to do now (nothing when only unknown topic ids changed and metadata is on its way). */
  private hasReconciliation(): boolean {
    if (this.state !== 'reconciling' || this.reconciling || this.target.equals(this.current)) return false;
    const { assigned, unresolved } = this.topics.resolve(this.target);
    if (unresolved > 0 && !this.closed) {
      this.topics.refresh(() => this.target.localEpoch);
      // Nothing resolvable yet: wait for one refresh that began after this target arrived
      // rather than acknowledge an empty assignment (Java would reconcile the empty part).
      if (assigned.size === 0 && this.topics.refreshedForEpoch < this.target.localEpoch) return false;
    }
    return !(!this.current.isNone && this.current.samePartitions(assigned) && this.current.localEpoch === this.target.localEpoch);
  }

  private async reconcile(): Promise<void> {
    const { assigned, partitions } = this.topics.resolve(this.target);
    const resolved = new LocalAssignment(this.target.localEpoch, assigned);
    if (!this.current.isNone && this.current.samePartitions(assigned)) {
      // Only unresolved topics differ: acknowledge the resolvable part under the new local epoch.
      this.current = resolved;
      this.transition('acknowledging');
      return;
    }
    const subscriptions = this.ctx.subscriptions;
    const owned = subscriptions.assignedPartitions();
    const keys = new Set(partitions.map((tp) => tpKey(tp.topic, tp.partition)));
    const ownedKeys = new Set(owned.map((tp) => tpKey(tp.topic, tp.partition)));
    const revoked = owned.filter((tp) => !keys.has(tpKey(tp.topic, tp.partition)));
    const added = partitions.filter((tp) => !ownedKeys.has(tpKey(tp.topic, tp.partition)));
    this.ctx.logger.info('reconciling assignment', { group: this.ctx.lookup.groupId, memberId: this.memberId, epoch: this.memberEpoch, assigned: partitions.length, added: added.length, revoked: revoked.length });
    this.reconciling = true;
    this.rejoinedWhileReconciling = false;
    this.ctx.rebalanceStarted();
    try {
      // No more records of the partitions that go while their offsets are committed.
      for (const tp of revoked) {
        const s = subscriptions.stateOf(tp.topic, tp.partition);
        if (s) s.revoking = true;
      }
      if (this.ctx.options.enableAutoCommit) await this.commitBeforeRevocation();
      if (this.aborted()) return;
      if (revoked.length > 0 && !(await this.ctx.callListener('onPartitionsRevoked', revoked.filter((tp) => subscriptions.stateOf(tp.topic, tp.partition))))) return;
      if (this.aborted()) return;
      subscriptions.setAssignment(partitions);
      this.ctx.onAssigned();
      this.topics.retain(new Set([...assigned.keys(), ...this.target.partitions.keys()]));
      // Called even with nothing new, as Java calls it after every reconciliation.
      if (!(await this.ctx.callListener('onPartitionsAssigned', added))) return;
      if (this.aborted()) return;
      this.current = resolved;
      this.transition('acknowledging');
    } finally {
      // Whatever happened, nothing stays half-revoked: partitions kept are fetched again.
      for (const s of subscriptions.states()) s.revoking = false;
      this.reconciling = false;
      this.rejoinedWhileReconciling = false;
    }
  }

  /** The reconciliation no longer applies: the member left, failed, was fenced or rejoined meanwhile. */
  private aborted(): boolean {
    const aborted = this.state !== 'reconciling' || this.rejoinedWhileReconciling || this.closed;
    if (aborted) this.ctx.logger.info('reconciliation interrupted', { group: this.ctx.lookup.groupId, state: this.state });
    return aborted;
  }

  /**
   * Consumed offsets, committed before partitions go (Java's maybeAutoCommitSyncBeforeRebalance):
   * retried until the rebalance timeout, a stale epoch included; a failure is logged and the
   * reconciliation goes on, as Java's does.
   */
  private async commitBeforeRevocation(): Promise<void> {
    const { subscriptions, committer, options } = this.ctx;
    if (!subscriptions.consumedDiffersFromCommitted()) return;
    try {
      await this.ctx.withCallLimit('commit before revocation', options.rebalanceTimeoutMs, (signal) => committer.commitSync(subscriptions.allConsumed(), signal, { retryStaleEpoch: true }));
    } catch (err) {
      this.ctx.logger.warn('commit before revocation failed; reconciling anyway', { error: err as Error });
    }
  }

  /** Gives up every owned partition through the listener, then forgets the assignment. */
  private async release(which: ListenerMethod): Promise<void> {
    const owned = this.ctx.subscriptions.assignedPartitions();
    if (owned.length > 0) await this.ctx.callListener(which, owned);
    this.clearAssignment();
  }

  private clearAssignment(): void {
    if (this.ctx.subscriptions.usesGroup) this.ctx.subscriptions.setAssignment([]);
    this.ctx.dropFetched();
    this.current = LocalAssignment.NONE;
    this.target = LocalAssignment.NONE;
    this.topics.clear();
  }

  // ---- max.poll.interval.ms -------------------------------------------------------------

  private armPollTimer(): void {
    if (this.pollTimer || this.closed) return;
    const scheduler = this.ctx.cluster.scheduler;
    this.pollTimer = scheduler.schedule(this.lastPollMs + this.ctx.options.maxPollIntervalMs - scheduler.nowMs(), () => {
      this.pollTimer = null;
      if (scheduler.nowMs() - this.lastPollMs < this.ctx.options.maxPollIntervalMs) {
        this.armPollTimer();
        return;
      }
      if (!this.inGroup || this.state === 'prepare-leaving' || this.state === 'leaving') return;
      this.ctx.logger.warn('poll() not called within max.poll.interval.ms: leaving the group; the next poll() rejoins', { group: this.ctx.lookup.groupId, maxPollIntervalMs: this.ctx.options.maxPollIntervalMs });
      // As Java: the leave heartbeat goes out at once (its answer does not matter), and the
      // partitions are lost when the application calls poll() again.
      this.memberEpoch = this.leaveEpoch;
      this.current = LocalAssignment.NONE;
      void this.heartbeat.sendLeave();
      this.releasePending = true;
      this.transition('stale');
    });
  }

  // ---- leaving ------------------------------------------------------------------------

  private get leaveEpoch(): number {
    return this.ctx.options.groupInstanceId === null ? LEAVE_EPOCH : STATIC_LEAVE_EPOCH;
  }

  /** unsubscribe(): onPartitionsRevoked (onPartitionsLost when no longer a member), then the leave heartbeat, in the background. */
  unsubscribed(): void {
    const owned = this.ctx.subscriptions.assignedPartitions();
    const listener = this.ctx.subscriptions.listener;
    this.joinRequested = false;
    void this.leaveGroup(async () => {
      if (owned.length > 0) await invokeListener(listener, this.memberEpoch > 0 ? 'onPartitionsRevoked' : 'onPartitionsLost', owned);
    }).catch((err: unknown) => this.ctx.logger.warn('leaving the group on unsubscribe failed', { error: err as Error }));
  }

  /** close(): the listener gives up the partitions (revoked while a member, else lost), then the leave heartbeat. */
  async leave(_wasActive: boolean, signal: AbortSignal): Promise<void> {
    if (this.releasePending) {
      // Fenced, stale or failed: the partitions were lost; the application hears it before close() ends.
      await this.release('onPartitionsLost');
      this.releasePending = false;
    }
    await this.leaveGroup(() => this.release(this.memberEpoch > 0 ? 'onPartitionsRevoked' : 'onPartitionsLost'), signal);
  }

  private async leaveGroup(releaseAssignment: () => Promise<void>, signal?: AbortSignal): Promise<void> {
    if (!this.inGroup || this.state === 'leaving' || this.state === 'prepare-leaving') {
      if (this.state === 'fenced' || this.state === 'stale') this.transition('unsubscribed');
      return;
    }
    this.transition('prepare-leaving');
    try {
      await releaseAssignment();
    } catch (err) {
      this.ctx.logger.warn('the rebalance listener threw while leaving the group', { error: err as Error });
    }
    if ((this.state as ConsumerMemberState) !== 'prepare-leaving') return; // failed meanwhile: nothing to leave
    this.memberEpoch = this.leaveEpoch;
    this.current = LocalAssignment.NONE;
    this.target = LocalAssignment.NONE;
    this.topics.clear();
    this.transition('leaving');
    try {
      await this.heartbeat.sendLeave(signal);
    } finally {
      if ((this.state as ConsumerMemberState) === 'leaving') this.transition('unsubscribed');
    }
  }

  stopBackground(): void {
    this.pollTimer?.cancel();
    this.pollTimer = null;
  }

  close(): void {
    this.closed = true;
    this.stopBackground();
    this.heartbeat.close();
  }
}
