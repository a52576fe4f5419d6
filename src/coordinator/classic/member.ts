/**
 * One member of a classic group, as Kafka's `ClassicGroupMember`: its identity, timeouts,
 * the protocols it supports (in its order of preference), its current assignment, and the
 * JoinGroup / SyncGroup request it has parked with the coordinator, if any.
 *
 * Its fields are timeline values (../timeline-map.ts): every change records its undo in the
 * running operation's journal. Once the member is in a group, they change only through the
 * group's methods (ClassicGroup), which keep the group's counts in line.
 */
import type { Journal } from '../journal.js';
import { TimelineValue } from '../timeline-map.js';
import type { RequestId } from '../types.js';

export interface MemberProtocol {
  readonly name: string;
  readonly metadata: Buffer;
}

/** A request the coordinator has not answered yet; the version shapes the eventual reply. */
export interface ParkedRequest {
  readonly requestId: RequestId;
  readonly apiVersion: number;
}

export const EMPTY_ASSIGNMENT: Buffer = Buffer.alloc(0);

/**
 * Copies protocols out of a decoded request. Decoded bytes are views into the request's
 * frame; keeping them would pin every frame a member ever sent for as long as it stays.
 */
export function ownProtocols(protocols: readonly { name: string; metadata: Buffer }[]): MemberProtocol[] {
  return protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) }));
}

export class ClassicGroupMember {
  // What operations change, as timeline values: an operation's changes are undone with it.
  private readonly rebalanceTimeout: TimelineValue<number>;
  private readonly sessionTimeout: TimelineValue<number>;
  private readonly protocols: TimelineValue<MemberProtocol[]>;
  private readonly currentAssignment: TimelineValue<Buffer>;
  private readonly parkedJoin: TimelineValue<ParkedRequest | null>;
  private readonly parkedSync: TimelineValue<ParkedRequest | null>;
  private readonly newMember: TimelineValue<boolean>;

  constructor(
    journal: Journal,
    readonly memberId: string,
    readonly groupInstanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    readonly protocolType: string,
    supportedProtocols: MemberProtocol[],
    assignment: Buffer = EMPTY_ASSIGNMENT,
  ) {
    this.rebalanceTimeout = new TimelineValue(journal, rebalanceTimeoutMs);
    this.sessionTimeout = new TimelineValue(journal, sessionTimeoutMs);
    this.protocols = new TimelineValue(journal, supportedProtocols);
    this.currentAssignment = new TimelineValue(journal, assignment);
    this.parkedJoin = new TimelineValue<ParkedRequest | null>(journal, null);
    this.parkedSync = new TimelineValue<ParkedRequest | null>(journal, null);
    this.newMember = new TimelineValue(journal, false);
  }

  get rebalanceTimeoutMs(): number {
    return this.rebalanceTimeout.get();
  }

  set rebalanceTimeoutMs(ms: number) {
    this.rebalanceTimeout.set(ms);
  }

  get sessionTimeoutMs(): number {
    return this.sessionTimeout.get();
  }

  set sessionTimeoutMs(ms: number) {
    this.sessionTimeout.set(ms);
  }

  /** In the member's order of preference; replaced, never changed in place. */
  get supportedProtocols(): MemberProtocol[] {
    return this.protocols.get();
  }

  set supportedProtocols(protocols: MemberProtocol[]) {
    this.protocols.set(protocols);
  }

  get assignment(): Buffer {
    return this.currentAssignment.get();
  }

  set assignment(assignment: Buffer) {
    this.currentAssignment.set(assignment);
  }

  /** The parked JoinGroup: non-null while the member is "awaiting join". */
  get awaitingJoin(): ParkedRequest | null {
    return this.parkedJoin.get();
  }

  set awaitingJoin(parked: ParkedRequest | null) {
    this.parkedJoin.set(parked);
  }

  /** The parked SyncGroup: non-null while the member is "awaiting sync". */
  get awaitingSync(): ParkedRequest | null {
    return this.parkedSync.get();
  }

  set awaitingSync(parked: ParkedRequest | null) {
    this.parkedSync.set(parked);
  }

  /**
   * Set from a new member's first join until its join phase completes: such a member's
   * session may expire even while its JoinGroup is parked (see hasSatisfiedHeartbeat).
   */
  get isNew(): boolean {
    return this.newMember.get();
  }

  set isNew(value: boolean) {
    this.newMember.set(value);
  }

  get isStaticMember(): boolean {
    return this.groupInstanceId !== null;
  }

  get isAwaitingJoin(): boolean {
    return this.awaitingJoin !== null;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSync !== null;
  }

  /** The metadata the member sent for a protocol (its subscription, for consumers). */
  metadata(protocolName: string): Buffer {
    const protocol = this.supportedProtocols.find((p) => p.name === protocolName);
    if (protocol === undefined) throw new Error(`member ${this.memberId} does not support protocol ${protocolName}`);
    return protocol.metadata;
  }

  protocolNames(): Set<string> {
    return new Set(this.supportedProtocols.map((p) => p.name));
  }

  /**
   * Kafka's rule: a member whose join or sync is parked is alive by definition (the client
   * is blocked waiting for us), unless it is new, since a new member's parked join may be
   * a defunct retry.
   */
  hasSatisfiedHeartbeat(): boolean {
    if (this.isNew) return false;
    return this.isAwaitingJoin || this.isAwaitingSync;
  }

  /** Same protocols, same order, same metadata bytes: a rejoin that changes nothing. */
  matches(protocols: readonly { name: string; metadata: Buffer }[]): boolean {
    if (protocols.length !== this.supportedProtocols.length) return false;
    return protocols.every((p, i) => {
      const mine = this.supportedProtocols[i];
      return p.name === mine.name && p.metadata.equals(mine.metadata);
    });
  }

  /** The member's most preferred protocol among the candidates (those every member supports). */
  vote(candidates: ReadonlySet<string>): string {
    const choice = this.supportedProtocols.find((p) => candidates.has(p.name));
    if (choice === undefined) throw new Error(`member ${this.memberId} supports none of the candidate protocols`);
    return choice.name;
  }
}
