/**
 * Partition ownership over time, from a group member's rebalance callbacks (the events the
 * Java, Python and Brook test members record), to check that no partition had two owners
 * at once.
 */

export interface OwnershipEvent {
  readonly t: number;
  readonly type: 'assigned' | 'revoked' | 'lost' | 'closing' | 'closed';
  readonly partitions: readonly number[];
}

/** Ownership intervals [from, to) per partition of one member. */
export function ownershipIntervals(events: readonly OwnershipEvent[]): Map<number, [number, number][]> {
  const out = new Map<number, [number, number][]>();
  const open = new Map<number, number>();
  const close = (p: number, t: number): void => {
    const from = open.get(p);
    if (from === undefined) return;
    open.delete(p);
    out.set(p, [...(out.get(p) ?? []), [from, t]]);
  };
  for (const e of events) {
    if (e.type === 'assigned') for (const p of e.partitions) if (!open.has(p)) open.set(p, e.t);
    if (e.type === 'revoked' || e.type === 'lost') for (const p of e.partitions) close(p, e.t);
    if (e.type === 'closed') for (const p of [...open.keys()]) close(p, e.t);
  }
  for (const p of [...open.keys()]) close(p, Number.MAX_SAFE_INTEGER);
  return out;
}
