/**
 * One member of a classic group, as Kafka's `ClassicGroupMember`: its identity, timeouts,
 * the protocols it supports (in its order of preference), its current assignment, and the
 * JoinGroup / SyncGroup request it has parked with the coordinator, if any.
 *
 * Once the member is in a group, its fields change only through the group's methods
 * (ClassicGroup), which record how to undo each change.
 */
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

/** The fields of a member that operations change, as `snapshot` captures them. */
export interface MemberFields {
  readonly rebalanceTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  readonly supportedProtocols: MemberProtocol[];
  readonly assignment: Buffer;
  readonly awaitingJoin: ParkedRequest | null;
  readonly awaitingSync: ParkedRequest | null;
  readonly isNew: boolean;
}

/**
 * Copies protocols out of a decoded request. Decoded bytes are views into the request's
 * frame; keeping them would pin every frame a member ever sent for as long as it stays.
 */
export function ownProtocols(protocols: readonly { name: string; metadata: Buffer }[]): MemberProtocol[] {
  return protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) }));
}

export class ClassicGroupMember {
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  supportedProtocols: MemberProtocol[];
  assignment: Buffer;
  /** The parked JoinGroup: non-null while the member is "awaiting join". */
  awaitingJoin: ParkedRequest | null = null;
  /** The parked SyncGroup: non-null while the member is "awaiting sync". */
  awaitingSync: ParkedRequest | null = null;
  /**
   * Set from a new member's first join until its join phase completes: such a member's
   * session may expire even while its JoinGroup is parked (see hasSatisfiedHeartbeat).
   */
  isNew = false;

  constructor(
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
    this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.supportedProtocols = supportedProtocols;
    this.assignment = assignment;
  }

  /**
   * Every field an operation may change (protocols and assignments are replaced, never
   * changed in place, so keeping the references is enough).
   */
  snapshot(): MemberFields {
    const { rebalanceTimeoutMs, sessionTimeoutMs, supportedProtocols, assignment, awaitingJoin, awaitingSync, isNew } = this;
    return { rebalanceTimeoutMs, sessionTimeoutMs, supportedProtocols, assignment, awaitingJoin, awaitingSync, isNew };
  }

  restore(fields: MemberFields): void {
    this.rebalanceTimeoutMs = fields.rebalanceTimeoutMs;
    this.sessionTimeoutMs = fields.sessionTimeoutMs;
    this.supportedProtocols = fields.supportedProtocols;
    this.assignment = fields.assignment;
    this.awaitingJoin = fields.awaitingJoin;
    this.awaitingSync = fields.awaitingSync;
    this.isNew = fields.isNew;
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
