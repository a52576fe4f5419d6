/**
 * Pieces of the consumer protocol's member state that need no I/O: the assignment as the
 * protocol carries it (topic ids → partitions) with Java's local epoch, and the member id a
 * Kafka 4 consumer generates for itself (KIP-1082).
 */
import { randomBytes } from 'node:crypto';

/**
 * An assignment received from the coordinator (the target) or reconciled by the member (the
 * current one), as Java's AbstractMembershipManager.LocalAssignment: topic id → sorted
 * partitions, and a local epoch bumped each time a different target arrives. Heartbeats send
 * the current assignment again whenever it is not the one last sent, local epoch included,
 * so a reconciliation is acknowledged even when it ends with the partitions already owned.
 */
export class LocalAssignment {
  /** Not in a group, or nothing reconciled yet. */
  static readonly NONE = new LocalAssignment(-1, new Map());

  constructor(readonly localEpoch: number, readonly partitions: ReadonlyMap<string, readonly number[]>) {}

  get isNone(): boolean {
    return this.localEpoch < 0;
  }

  samePartitions(other: ReadonlyMap<string, readonly number[]>): boolean {
    if (other.size !== this.partitions.size) return false;
    for (const [topicId, ps] of this.partitions) {
      const theirs = other.get(topicId);
      if (!theirs || theirs.length !== ps.length || theirs.some((p, i) => p !== ps[i])) return false;
    }
    return true;
  }

  equals(other: LocalAssignment): boolean {
    return this.localEpoch === other.localEpoch && this.samePartitions(other.partitions);
  }

  /**
   * A new target when `partitions` differ from this one's (local epoch + 1); null when they
   * are the same. The first one after NONE is always new, empty too (Java's updateWith): a
   * member given nothing at first still reconciles it (onPartitionsAssigned) and acknowledges.
   */
  updateWith(partitions: ReadonlyMap<string, readonly number[]>): LocalAssignment | null {
    return !this.isNone && this.samePartitions(partitions) ? null : new LocalAssignment(this.localEpoch + 1, partitions);
  }
}

/** topic id → sorted, de-duplicated partitions (empty topics dropped), from the wire's list. */
export function assignmentMap(topicPartitions: readonly { topicId: string; partitions: readonly number[] }[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const t of topicPartitions) {
    const ps = [...new Set([...(out.get(t.topicId) ?? []), ...t.partitions])].sort((a, b) => a - b);
    if (ps.length > 0) out.set(t.topicId, ps);
  }
  return out;
}

/**
 * A member id as Kafka 4's consumer makes one (Uuid.randomUuid().toString()): 16 random
 * bytes in URL-safe base64 without padding, never the zero id and never starting with '-'
 * (Kafka's rule, so the id cannot be mistaken for a command-line option). It stays the same
 * for the consumer's lifetime, across rejoins.
 */
export function generateMemberId(): string {
  for (;;) {
    const bytes = randomBytes(16);
    const id = bytes.toString('base64url');
    if (!id.startsWith('-') && bytes.some((b) => b !== 0)) return id;
  }
}
