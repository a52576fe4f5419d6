/**
 * The parts of a timeline entry the flight recorder computes from what it collected: removal
 * reasons in words, assignments by topic name (a classic leader's bytes decoded), revocations
 * and reconciliation steps of an open rebalance.
 */
import type { PartitionsByName } from '../../coordinator/index.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment } from '../../protocol/consumer-protocol.js';
import type { LeftMember, MemberReconciliation, PartitionsByTopic, ReconciliationStep, TimelineMember } from './timeline-entry.js';

export interface OpenRebalance {
  /** Null: it began before a restart. */
  readonly startedAtMs: number | null;
  readonly reason: string;
  generation: number;
  joinCompletedAtMs: number | null;
  readonly joined: TimelineMember[];
  readonly left: LeftMember[];
  readonly steps: Map<string, MemberSteps>;
  /** Consumer, share and streams groups: the earlier epochs this rebalance went through before its current one. */
  readonly passedEpochs: number[];
}

export interface MemberSteps {
  convergedMs: number | null;
  readonly steps: ReconciliationStep[];
  /** Every partition (task) the member was asked to revoke during the rebalance. */
  readonly revoked: Map<string, Set<number>>;
}

export function removalReason(cause: string): string {
  switch (cause) {
    case 'session-timeout': return 'member expired: no heartbeat within the session timeout';
    case 'rebalance-timeout': return 'member fenced: it did not rejoin or revoke within the rebalance timeout';
    case 'sync-timeout': return 'member expired: no SyncGroup within the rebalance timeout';
    case 'group-max-size': return 'member removed: the group reached group.max.size';
    default: return `member removed (${cause})`;
  }
}

export function plain(a: PartitionsByName): PartitionsByTopic {
  const out: PartitionsByTopic = {};
  for (const [topic, partitions] of a) if (partitions.length > 0) out[topic] = [...partitions].sort((x, y) => x - y);
  return out;
}

export function count(a: PartitionsByName): number {
  let n = 0;
  for (const partitions of a.values()) n += partitions.length;
  return n;
}

/** A classic group's assignments, when its protocol type is `consumer` (Kafka's ConsumerProtocolAssignment); other protocols' bytes are opaque. */
export function classicAssignment(protocolType: string | null, assignments: ReadonlyMap<string, Uint8Array>): Map<string, PartitionsByTopic> | undefined {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE) return undefined;
  const out = new Map<string, PartitionsByTopic>();
  for (const [memberId, bytes] of assignments) {
    const a: PartitionsByTopic = {};
    if (bytes.length > 0) {
      try {
        for (const tp of decodeAssignment(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).assignment.assignedPartitions) a[tp.topic] = [...(a[tp.topic] ?? []), ...tp.partitions].sort((x, y) => x - y);
      } catch {
        // A leader's assignment that is not ConsumerProtocolAssignment: recorded as empty.
      }
    }
    out.set(memberId, a);
  }
  return out;
}

/** What members had to give up during the rebalance. */
export function revokedOf(open: OpenRebalance): { memberId: string; partitions: PartitionsByTopic }[] {
  const out: { memberId: string; partitions: PartitionsByTopic }[] = [];
  for (const [memberId, rec] of open.steps) {
    if (rec.revoked.size === 0) continue;
    const partitions: PartitionsByTopic = {};
    for (const [topic, set] of rec.revoked) partitions[topic] = [...set].sort((a, b) => a - b);
    out.push({ memberId, partitions });
  }
  return out;
}

export function reconciliationOf(open: OpenRebalance): MemberReconciliation[] {
  return [...open.steps].map(([memberId, rec]) => ({ memberId, convergedMs: rec.convergedMs, steps: rec.steps }));
}
