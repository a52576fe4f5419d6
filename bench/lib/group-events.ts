/**
 * Stability of a consumer group from its members' own events (GroupEvent): the group is
 * stable when every live member has reported its owned partitions since it started, the owned
 * sets are disjoint and together cover every partition, and (when there are at least as many
 * partitions as members) every live member owns at least one. The same rule for every client.
 */
import type { GroupEvent } from '../clients/types.js';

export interface GroupState {
  /** member -> owned partitions, live members only (undefined: not reported yet). */
  owned: Map<number, number[] | undefined>;
}

export function isStable(owned: ReadonlyMap<number, number[] | undefined>, partitions: number): boolean {
  const seen = new Set<number>();
  let total = 0;
  for (const p of owned.values()) {
    if (p === undefined) return false;
    if (p.length === 0 && owned.size <= partitions) return false;
    for (const x of p) seen.add(x);
    total += p.length;
  }
  return total === partitions && seen.size === partitions;
}

/**
 * Replays events in time order. Members are live from their start (the initial members from
 * 'start', later ones from 'join') until 'leave'. Returns the first time (epoch us) at or
 * after `fromUs` when the group is stable, with the owner of every partition then; null when
 * it never is within the events so far.
 */
export function firstStable(events: readonly GroupEvent[], initialMembers: number, partitions: number, fromUs: number): { atUs: number; owners: Map<number, number> } | null {
  const owned = new Map<number, number[] | undefined>();
  for (let m = 0; m < initialMembers; m++) owned.set(m, undefined);
  const ordered = [...events].sort((a, b) => a.t - b.t);
  for (const e of ordered) {
    if (e.ev === 'owned' && owned.has(e.m)) owned.set(e.m, e.p);
    else if (e.ev === 'join') owned.set(e.m, undefined);
    else if (e.ev === 'leave') owned.delete(e.m);
    if (e.t >= fromUs && isStable(owned, partitions)) {
      const owners = new Map<number, number>();
      for (const [m, ps] of owned) for (const p of ps ?? []) owners.set(p, m);
      return { atUs: e.t, owners };
    }
  }
  return null;
}

/**
 * The start of the stable stretch the events end in: replaying them, the last time at or
 * after `fromUs` when the group became stable and stayed so up to the last event; null when
 * it is not stable at the end. A rebalance can pass through states that look stable (a
 * joining member reports its first, empty assignment while the partitions it is to get are
 * still being revoked elsewhere, as the consumer protocol and cooperative rebalances do);
 * the rebalance scenario takes this one, once no event came for a while.
 */
export function lastStable(events: readonly GroupEvent[], initialMembers: number, partitions: number, fromUs: number): { atUs: number; owners: Map<number, number> } | null {
  const owned = new Map<number, number[] | undefined>();
  for (let m = 0; m < initialMembers; m++) owned.set(m, undefined);
  const ordered = [...events].sort((a, b) => a.t - b.t);
  let since: { atUs: number; owners: Map<number, number> } | null = null;
  for (const e of ordered) {
    if (e.ev === 'owned' && owned.has(e.m)) owned.set(e.m, e.p);
    else if (e.ev === 'join') owned.set(e.m, undefined);
    else if (e.ev === 'leave') owned.delete(e.m);
    else continue;
    if (e.t < fromUs) continue;
    if (!isStable(owned, partitions)) since = null;
    else if (since === null) {
      const owners = new Map<number, number>();
      for (const [m, ps] of owned) for (const p of ps ?? []) owners.set(p, m);
      since = { atUs: e.t, owners };
    }
  }
  return since;
}

/** Partitions whose owner differs between two stable states. */
export function moved(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let n = 0;
  for (const [p, m] of after) if (before.get(p) !== m) n++;
  return n;
}
