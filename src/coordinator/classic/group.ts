/**
 * A classic group's bookkeeping, as Kafka's `ClassicGroup`: members (in join order),
 * static members by group.instance.id, members that were given an id but have not
 * rejoined yet (KIP-394 "pending" members), members that owe a SyncGroup, the protocol
 * votes, the leader, the generation and the state machine.
 *
 * It never answers requests itself: methods that end a parked request hand it back to the
 * caller, which shapes and sends the reply.
 *
 * Every change to the members and the id sets goes through its methods (they are exposed
 * read-only). The whole group is timeline state (../timeline-map.ts): its fields are timeline
 * values, its members, static members, id sets and protocol counts timeline maps and sets,
 * and each member's fields timeline values; each change records its own undo in the running
 * operation's journal, so an operation costs what it changes, not the size of the group.
 */
import { Reader } from '../../protocol/primitives/reader.js';
import { ConsumerProtocolSubscription } from '../../protocol/messages/consumer-protocol-subscription.js';
import { CONSUMER_PROTOCOL_TYPE } from '../../protocol/consumer-protocol.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { JoinGroupResponseMember } from '../../protocol/messages/join-group.js';
import type { GroupMetadataValue } from '../../protocol/coordinator-records/group-metadata-value.js';
import type { Journal } from '../journal.js';
import { TimelineMap, TimelineSet, TimelineValue } from '../timeline-map.js';
import { ClassicGroupMember, type MemberProtocol, type ParkedRequest } from './member.js';
import { VALID_PREVIOUS_STATES, type GroupState } from './state.js';

export class ClassicGroup {
  private readonly currentState: TimelineValue<GroupState>;
  private readonly lastState: TimelineValue<GroupState>;
  private readonly stateTimestamp: TimelineValue<number | null>;
  private readonly type: TimelineValue<string | null>;
  private readonly protocol: TimelineValue<string | null>;
  private readonly generation: TimelineValue<number>;
  private readonly leader: TimelineValue<string | null>;
  /**
   * Insertion-ordered: the oldest member comes first, which makes leader re-election stable
   * (and orders the leader's member list and DescribeGroups): a removal's undo keeps it.
   */
  private readonly memberMap: TimelineMap<string, ClassicGroupMember>;
  /** group.instance.id → member id; looked up, never listed. */
  private readonly staticMembers: TimelineMap<string, string>;
  /** Ids handed out with MEMBER_ID_REQUIRED whose owners have not joined with them yet. */
  private readonly pendingJoin: TimelineSet<string>;
  /** Members that received the JoinGroup response of this generation but have not synced. */
  private readonly pendingSync: TimelineSet<string>;
  /** Protocol name → how many members support it. */
  private readonly supportedProtocols: TimelineMap<string, number>;
  private readonly awaitingJoinCount: TimelineValue<number>;
  /** Topics the members subscribe to (consumer protocol only); null when unknown. */
  private readonly subscriptions: TimelineValue<Set<string> | null>;
  /** Set when a member joins during the initial rebalance delay, which extends the delay. */
  private readonly memberAddedDuringDelay: TimelineValue<boolean>;

  constructor(
    readonly groupId: string,
    initialState: GroupState,
    nowMs: number | null,
    /** Where the group's timeline state records its changes (its state's journal). */
    private readonly journal: Journal,
    loaded?: { generationId: number; protocolType: string | null; protocolName: string | null; leaderId: string | null },
  ) {
    this.currentState = new TimelineValue(journal, initialState);
    this.lastState = new TimelineValue<GroupState>(journal, 'Dead');
    this.stateTimestamp = new TimelineValue(journal, nowMs);
    this.type = new TimelineValue(journal, loaded?.protocolType ?? null);
    this.protocol = new TimelineValue(journal, loaded?.protocolName ?? null);
    this.generation = new TimelineValue(journal, loaded?.generationId ?? 0);
    this.leader = new TimelineValue(journal, loaded?.leaderId ?? null);
    this.memberMap = new TimelineMap(journal, true);
    this.staticMembers = new TimelineMap(journal);
    this.pendingJoin = new TimelineSet(journal);
    this.pendingSync = new TimelineSet(journal);
    this.supportedProtocols = new TimelineMap(journal);
    this.awaitingJoinCount = new TimelineValue(journal, 0);
    this.subscriptions = new TimelineValue<Set<string> | null>(journal, null);
    this.memberAddedDuringDelay = new TimelineValue(journal, false);
  }

  get state(): GroupState {
    return this.currentState.get();
  }

  get previousState(): GroupState {
    return this.lastState.get();
  }

  /** When the group entered its current state; null for groups loaded from old records. */
  get currentStateTimestampMs(): number | null {
    return this.stateTimestamp.get();
  }

  get protocolType(): string | null {
    return this.type.get();
  }

  get protocolName(): string | null {
    return this.protocol.get();
  }

  set protocolName(name: string | null) {
    this.protocol.set(name);
  }

  get generationId(): number {
    return this.generation.get();
  }

  get leaderId(): string | null {
    return this.leader.get();
  }

  get subscribedTopics(): Set<string> | null {
    return this.subscriptions.get();
  }

  set subscribedTopics(topics: Set<string> | null) {
    this.subscriptions.set(topics);
  }

  get newMemberAdded(): boolean {
    return this.memberAddedDuringDelay.get();
  }

  set newMemberAdded(added: boolean) {
    this.memberAddedDuringDelay.set(added);
  }

  /** The member's timeline state records in this group's journal. */
  newMember(
    memberId: string, groupInstanceId: string | null, clientId: string, clientHost: string, rebalanceTimeoutMs: number, sessionTimeoutMs: number,
    protocolType: string, supportedProtocols: MemberProtocol[], assignment?: Buffer,
  ): ClassicGroupMember {
    return new ClassicGroupMember(this.journal, memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs, sessionTimeoutMs, protocolType, supportedProtocols, assignment);
  }

  get members(): ReadonlyMap<string, ClassicGroupMember> {
    return this.memberMap;
  }

  get pendingJoinMembers(): ReadonlySet<string> {
    return this.pendingJoin;
  }

  get pendingSyncMembers(): ReadonlySet<string> {
    return this.pendingSync;
  }

  is(state: GroupState): boolean {
    return this.state === state;
  }

  transitionTo(target: GroupState, nowMs: number): void {
    if (!VALID_PREVIOUS_STATES[target].has(this.state)) {
      throw new Error(`group ${this.groupId}: invalid transition ${this.state} → ${target}`);
    }
    this.lastState.set(this.state);
    this.currentState.set(target);
    this.stateTimestamp.set(nowMs);
  }

  /** Whether a rebalance may start from the current state. */
  canRebalance(): boolean {
    return VALID_PREVIOUS_STATES.PreparingRebalance.has(this.state);
  }

  get numMembers(): number {
    return this.memberMap.size;
  }

  get numAwaitingJoinResponse(): number {
    return this.awaitingJoinCount.get();
  }

  member(memberId: string): ClassicGroupMember | undefined {
    return this.memberMap.get(memberId);
  }

  hasMember(memberId: string): boolean {
    return this.memberMap.has(memberId);
  }

  isLeader(memberId: string): boolean {
    return this.leaderId !== null && this.leaderId === memberId;
  }

  staticMemberId(groupInstanceId: string): string | undefined {
    return this.staticMembers.get(groupInstanceId);
  }

  isPendingMember(memberId: string): boolean {
    return this.pendingJoin.has(memberId);
  }

  addPendingMember(memberId: string): void {
    if (this.hasMember(memberId)) throw new Error(`pending member ${memberId} is already a member`);
    this.pendingJoin.add(memberId);
  }

  add(member: ClassicGroupMember, parkedJoin: ParkedRequest | null): void {
    if (member.groupInstanceId !== null) {
      if (this.staticMembers.has(member.groupInstanceId)) {
        throw new Error(`static member ${member.groupInstanceId} is already in group ${this.groupId}`);
      }
      this.staticMembers.set(member.groupInstanceId, member.memberId);
    }
    if (this.memberMap.size === 0) this.type.set(member.protocolType);
    if (this.protocolType !== member.protocolType) throw new Error('member and group protocol types differ');
    if (!this.supportsProtocols(member.protocolType, member.protocolNames())) {
      throw new Error('the group supports none of the member protocols');
    }
    if (this.leaderId === null) this.leader.set(member.memberId);
    this.memberMap.set(member.memberId, member);
    this.countProtocols(member, +1);
    member.awaitingJoin = parkedJoin;
    if (parkedJoin !== null) this.countAwaitingJoin(+1);
    this.pendingJoin.delete(member.memberId);
  }

  /** Removes a member (or pending member id); re-elects the oldest remaining member as leader. */
  remove(memberId: string): ClassicGroupMember | undefined {
    const removed = this.memberMap.get(memberId);
    if (removed !== undefined) {
      this.memberMap.delete(memberId);
      this.countProtocols(removed, -1);
      if (removed.isAwaitingJoin) this.countAwaitingJoin(-1);
      if (removed.groupInstanceId !== null) this.staticMembers.delete(removed.groupInstanceId);
    }
    if (this.isLeader(memberId)) {
      const next = this.memberMap.keys().next();
      this.leader.set(next.done ? null : next.value);
    }
    this.pendingJoin.delete(memberId);
    this.pendingSync.delete(memberId);
    return removed;
  }

  /** Ends the member's parked JoinGroup, returning it for the caller to answer. */
  takeAwaitingJoin(member: ClassicGroupMember): ParkedRequest | null {
    const parked = member.awaitingJoin;
    if (parked !== null) {
      member.awaitingJoin = null;
      this.countAwaitingJoin(-1);
    }
    return parked;
  }

  takeAwaitingSync(member: ClassicGroupMember): ParkedRequest | null {
    const parked = member.awaitingSync;
    if (parked !== null) member.awaitingSync = null;
    return parked;
  }

  /** Parks the member's SyncGroup (the caller answers any it replaces first). */
  parkSync(member: ClassicGroupMember, parked: ParkedRequest): void {
    member.awaitingSync = parked;
  }

  setAssignment(member: ClassicGroupMember, assignment: Buffer): void {
    member.assignment = assignment;
  }

  /** The member's first join phase is over: its session no longer expires while it is parked. */
  joinCompleted(member: ClassicGroupMember): void {
    member.isNew = false;
  }

  addPendingSyncMember(memberId: string): void {
    this.pendingSync.add(memberId);
  }

  deletePendingSyncMember(memberId: string): void {
    this.pendingSync.delete(memberId);
  }

  clearPendingSyncMembers(): void {
    for (const memberId of [...this.pendingSync]) this.pendingSync.delete(memberId);
  }

  /**
   * Records a rejoin: new protocols and timeouts, and the new parked JoinGroup. Returns the
   * member's previous parked JoinGroup when this one supersedes it.
   */
  updateMember(
    member: ClassicGroupMember,
    protocols: MemberProtocol[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    parkedJoin: ParkedRequest | null,
  ): ParkedRequest | null {
    this.countProtocols(member, -1);
    member.supportedProtocols = protocols;
    this.countProtocols(member, +1);
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
    const superseded = member.awaitingJoin;
    if (parkedJoin !== null && superseded === null) this.countAwaitingJoin(+1);
    else if (parkedJoin === null && superseded !== null) this.countAwaitingJoin(-1);
    member.awaitingJoin = parkedJoin;
    return parkedJoin !== null ? superseded : null;
  }

  /**
   * A static member restarted with a new member id: the new id takes the old member's
   * place (protocols, assignment, leadership). The caller fences the old id's parked
   * requests before calling this.
   */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): ClassicGroupMember {
    const old = this.memberMap.get(oldMemberId);
    if (old === undefined) throw new Error(`cannot replace unknown member ${oldMemberId}`);
    if (old.isAwaitingJoin) this.countAwaitingJoin(-1);
    this.memberMap.delete(oldMemberId);
    const replacement = this.newMember(
      newMemberId,
      old.groupInstanceId,
      old.clientId,
      old.clientHost,
      old.rebalanceTimeoutMs,
      old.sessionTimeoutMs,
      old.protocolType,
      old.supportedProtocols,
      old.assignment,
    );
    this.memberMap.set(replacement.memberId, replacement);
    if (this.isLeader(oldMemberId)) this.leader.set(newMemberId);
    this.staticMembers.set(groupInstanceId, newMemberId);
    return replacement;
  }

  /**
   * At the end of a join phase whose leader did not rejoin, the first member that did
   * becomes leader. False when nobody rejoined (the phase cannot complete yet).
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.memberMap.get(this.leaderId);
    if (leader !== undefined && leader.isAwaitingJoin) return true;
    for (const m of this.memberMap.values()) {
      if (m.isAwaitingJoin) {
        this.leader.set(m.memberId);
        return true;
      }
    }
    return false;
  }

  hasAllMembersJoined(): boolean {
    return this.memberMap.size === this.numAwaitingJoinResponse && this.pendingJoin.size === 0;
  }

  notYetRejoinedMembers(): ClassicGroupMember[] {
    return [...this.memberMap.values()].filter((m) => !m.isAwaitingJoin);
  }

  /** The group's rebalance timeout: the largest of its members'. */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.memberMap.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /**
   * Kafka's `validateMember`: with a group.instance.id, the id must be the one currently
   * mapped to it (FENCED_INSTANCE_ID otherwise); and the member must exist.
   */
  validateMember(memberId: string, groupInstanceId: string | null | undefined): number {
    if (groupInstanceId !== null && groupInstanceId !== undefined) {
      const existing = this.staticMembers.get(groupInstanceId);
      if (existing === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (existing !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
    }
    return this.hasMember(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  /**
   * Whether a member with these protocols may join: any non-empty set when the group is
   * Empty, otherwise the same protocol type and at least one protocol every member has.
   */
  supportsProtocols(memberProtocolType: string, memberProtocols: ReadonlySet<string>): boolean {
    if (this.is('Empty')) return memberProtocolType !== '' && memberProtocols.size > 0;
    if (this.protocolType !== memberProtocolType) return false;
    for (const name of memberProtocols) {
      if ((this.supportedProtocols.get(name) ?? 0) === this.memberMap.size) return true;
    }
    return false;
  }

  /**
   * Kafka's vote: the candidates are the protocols every member supports; each member votes
   * for its most preferred candidate; the most votes win. Kafka breaks ties by hash order;
   * Brook picks, among the tied, the protocol voted first in join order, so it is stable.
   */
  selectProtocol(): string {
    if (this.memberMap.size === 0) throw new Error(`cannot select a protocol for empty group ${this.groupId}`);
    const candidates = new Set<string>();
    for (const [name, count] of this.supportedProtocols) if (count === this.memberMap.size) candidates.add(name);
    const votes = new Map<string, number>();
    for (const m of this.memberMap.values()) {
      const choice = m.vote(candidates);
      votes.set(choice, (votes.get(choice) ?? 0) + 1);
    }
    let best = '';
    let bestVotes = -1;
    for (const [name, count] of votes) {
      if (count > bestVotes) {
        best = name;
        bestVotes = count;
      }
    }
    return best;
  }

  /** Next generation: a protocol is chosen for a non-empty group, otherwise the group is Empty. */
  initNextGeneration(nowMs: number): void {
    this.generation.set(this.generationId + 1);
    if (this.memberMap.size > 0) {
      this.protocolName = this.selectProtocol();
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('CompletingRebalance', nowMs);
    } else {
      this.protocolName = null;
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('Empty', nowMs);
    }
    this.clearPendingSyncMembers();
  }

  /**
   * The replay of the group's GroupMetadata record (../replay.ts): the group becomes what
   * Kafka persists of it (generation, protocol type and name, leader, state timestamp, and
   * the members with their timeouts, subscription, i.e. the chosen protocol's metadata, and
   * assignment). What Kafka keeps outside its records stays as it is: a rebalance in progress,
   * parked requests, pending member ids, and a member's other protocols as long as the chosen
   * one's metadata is the record's. A group at rest is Stable with members and Empty without,
   * as Kafka loads it. Live, a group writes a record of itself as it is, so the replay changes
   * what memory did not hold yet (the leader's assignments); at start-up each record makes the
   * group what it was at that generation.
   */
  replayMetadata(value: GroupMetadataValue): void {
    const protocolName = value.protocol ?? '';
    let subscriptionsChanged = false;
    const inRecord = new Set(value.members.map((m) => m.memberId));
    for (const memberId of [...this.memberMap.keys()]) {
      if (inRecord.has(memberId)) continue;
      this.remove(memberId);
      subscriptionsChanged = true;
    }
    const added: ClassicGroupMember[] = [];
    for (const m of value.members) {
      // Records of old versions have no rebalance timeout: Kafka takes the session timeout.
      const rebalanceTimeoutMs = m.rebalanceTimeout === undefined || m.rebalanceTimeout === -1 ? m.sessionTimeout : m.rebalanceTimeout;
      const member = this.memberMap.get(m.memberId);
      if (member === undefined) {
        // Only the chosen protocol's metadata is persisted, so that is all the member supports.
        const protocols = [{ name: protocolName, metadata: m.subscription }];
        added.push(this.newMember(m.memberId, m.groupInstanceId ?? null, m.clientId, m.clientHost, rebalanceTimeoutMs, m.sessionTimeout, value.protocolType, protocols, m.assignment));
        continue;
      }
      member.rebalanceTimeoutMs = rebalanceTimeoutMs;
      member.sessionTimeoutMs = m.sessionTimeout;
      member.assignment = m.assignment;
      const chosen = member.supportedProtocols.find((p) => p.name === protocolName);
      if (chosen === undefined || !chosen.metadata.equals(m.subscription)) {
        this.countProtocols(member, -1);
        member.supportedProtocols = [{ name: protocolName, metadata: m.subscription }];
        this.countProtocols(member, +1);
        subscriptionsChanged = true;
      }
    }
    // Added after the members that stay have the record's protocol: a member joins a group
    // that supports its protocol.
    for (const member of added) this.add(member, null);
    const protocolType = value.protocolType === '' ? null : value.protocolType;
    subscriptionsChanged ||= added.length > 0 || protocolType !== this.protocolType || value.protocol !== this.protocolName;
    this.type.set(protocolType);
    this.protocol.set(value.protocol);
    this.generation.set(value.generation);
    this.leader.set(value.leader);
    const stateTimestamp = value.currentStateTimestamp ?? -1n;
    this.stateTimestamp.set(stateTimestamp === -1n ? null : Number(stateTimestamp));
    if (this.is('Empty') || this.is('Stable')) this.currentState.set(value.members.length > 0 ? 'Stable' : 'Empty');
    // Derived from what the record carries: computed again when that changed (as Kafka
    // computes it when it loads a group and at each new generation).
    if (subscriptionsChanged) this.subscribedTopics = this.computeSubscribedTopics();
  }

  /** What the leader receives in its JoinGroup response: every member with its metadata. */
  currentMembersForLeader(): JoinGroupResponseMember[] {
    if (this.is('Dead') || this.is('PreparingRebalance') || this.protocolName === null) {
      throw new Error(`group ${this.groupId} has no member metadata in state ${this.state}`);
    }
    const protocol = this.protocolName;
    return [...this.memberMap.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.metadata(protocol),
    }));
  }

  usesConsumerProtocol(): boolean {
    return this.protocolType === CONSUMER_PROTOCOL_TYPE;
  }

  /**
   * The union of the members' subscribed topics, decoded from their consumer-protocol
   * metadata with the version-0 layout (a prefix of every later version), as Kafka does.
   * Null when the group does not use the consumer protocol or a subscription is unreadable.
   */
  computeSubscribedTopics(): Set<string> | null {
    if (this.protocolType !== CONSUMER_PROTOCOL_TYPE) return null;
    if (this.memberMap.size === 0) return new Set();
    if (this.protocolName === null) return null;
    const topics = new Set<string>();
    try {
      for (const m of this.memberMap.values()) {
        const r = new Reader(m.metadata(this.protocolName));
        if (r.readInt16() < 0) return null;
        for (const t of ConsumerProtocolSubscription.read(r, 0).topics) topics.add(t);
      }
    } catch {
      return null;
    }
    return topics;
  }

  /** When the subscriptions are unknown, a consumer group counts as subscribed to everything. */
  isSubscribedToTopic(topic: string): boolean {
    if (this.subscribedTopics !== null) return this.subscribedTopics.has(topic);
    return this.usesConsumerProtocol();
  }

  private countProtocols(member: ClassicGroupMember, delta: number): void {
    for (const p of member.supportedProtocols) {
      const n = (this.supportedProtocols.get(p.name) ?? 0) + delta;
      if (n === 0) this.supportedProtocols.delete(p.name);
      else this.supportedProtocols.set(p.name, n);
    }
  }

  private countAwaitingJoin(delta: number): void {
    this.awaitingJoinCount.set(this.awaitingJoinCount.get() + delta);
  }
}
