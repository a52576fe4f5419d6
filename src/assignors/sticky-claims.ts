/**
 * Which member's claim on a partition stands before a sticky assignment starts, following
 * Java's AbstractStickyAssignor: the claim with the highest generation wins; claims tied at
 * the highest generation cancel each other (nobody keeps the partition, as Java's
 * "partitionsWithMultiplePreviousOwners"); a winning claim on a topic the winner no longer
 * subscribes to is dropped. Unlike Java, the outcome does not depend on the order members
 * are visited in (Java's depends on its HashMap order when three claims conflict).
 */
import type { PartitionSpace } from './partition-space.js';
import type { StickyMemberData } from './sticky-user-data.js';
import { DEFAULT_GENERATION } from './types.js';

/** claimer[] value for a partition claimed by two or more members. */
export const SEVERAL_CLAIMERS = -2;

export interface ResolvedClaims {
  /** global id → the member index whose claim stands, -1 when none does. */
  readonly previousOwner: Int32Array;
  /** global id → the only member that claimed it, SEVERAL_CLAIMERS, or -1 when unclaimed. */
  readonly claimer: Int32Array;
  /** Per member: global ids of its standing claims, no repeats, in the order it listed them. */
  readonly kept: Int32Array[];
}

export function resolveClaims(space: PartitionSpace, data: readonly StickyMemberData[]): ResolvedClaims {
  const total = space.total;
  const claimer = new Int32Array(total).fill(-1);
  const best = new Int32Array(total).fill(-1);
  const bestGeneration = new Float64Array(total).fill(-Infinity);
  const tied = new Uint8Array(total);
  const bestSubscribed = new Uint8Array(total);
  const globalIds = data.map((member, m) => {
    const ids = new Int32Array(member.partitions.length);
    const generation = member.generation ?? DEFAULT_GENERATION;
    const topics = space.memberTopics[m]!;
    let n = 0;
    for (const tp of member.partitions) {
      const g = space.globalId(tp);
      if (g < 0) continue;
      ids[n++] = g;
      const first = claimer[g]!;
      if (first === -1) claimer[g] = m;
      else if (first !== m) claimer[g] = SEVERAL_CLAIMERS;
      if (generation > bestGeneration[g]!) {
        bestGeneration[g] = generation;
        best[g] = m;
        tied[g] = 0;
        bestSubscribed[g] = includes(topics, space.topicIndex.get(tp.topic)!) ? 1 : 0;
      } else if (generation === bestGeneration[g] && best[g] !== m) {
        tied[g] = 1;
      }
    }
    return ids.subarray(0, n);
  });
  const previousOwner = new Int32Array(total).fill(-1);
  for (let g = 0; g < total; g++) if (best[g]! >= 0 && tied[g] === 0 && bestSubscribed[g] === 1) previousOwner[g] = best[g]!;
  const taken = new Uint8Array(total);
  const kept = globalIds.map((ids, m) => {
    const out = new Int32Array(ids.length);
    let n = 0;
    for (const g of ids) {
      if (previousOwner[g] === m && taken[g] === 0) {
        taken[g] = 1;
        out[n++] = g;
      }
    }
    return out.subarray(0, n);
  });
  return { previousOwner, claimer, kept };
}

/** Binary search in an ascending Int32Array. */
export function includes(sorted: Int32Array, value: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
