/**
 * A share-partition's durable state is its start offset and a list of state batches: runs
 * of offsets at or after it with one delivery state and delivery count (ShareSnapshot and
 * ShareUpdate records, WriteShareGroupState and ReadShareGroupState). The share coordinator
 * folds each update into the state so far with Kafka's PersisterStateBatchCombiner rule,
 * which is this file:
 *
 * 1. What lies before the start offset goes; a batch across it keeps its part from the start
 *    offset on. (Start offset -1: nothing is cut.)
 * 2. Where batches overlap, each offset takes the state of the batch of highest priority:
 *    the higher delivery count, then the higher delivery state (ARCHIVED 4 over
 *    ACKNOWLEDGED 2 over AVAILABLE 0). An update thus never takes a delivery back.
 * 3. Adjacent runs of equal state and count are joined.
 *
 * The result is sorted and non-overlapping. Kafka sweeps the batches' begin and end offsets
 * with a count per priority; so does this.
 */

/** Kafka's PersisterStateBatch: offsets firstOffset..lastOffset (inclusive). */
export interface StateBatch {
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  /** 0 AVAILABLE, 2 ACKNOWLEDGED, 4 ARCHIVED (1 ACQUIRED is never written). */
  readonly deliveryState: number;
  readonly deliveryCount: number;
}

/** Kafka's delivery states as written to share state. */
export const DeliveryState = { AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVED: 4 } as const;

/** The state so far and an update's batches, combined from `startOffset` on (see the module comment). */
export function combineStateBatches(soFar: readonly StateBatch[], update: readonly StateBatch[], startOffset: bigint): StateBatch[] {
  const pruned: StateBatch[] = [];
  for (const list of [soFar, update]) {
    for (const b of list) {
      if (startOffset !== -1n && b.lastOffset < startOffset) continue;
      pruned.push(startOffset === -1n || b.firstOffset >= startOffset ? b : { ...b, firstOffset: startOffset });
    }
  }
  if (pruned.length <= 1) return pruned;
  return sweep(pruned);
}

interface Event {
  readonly offset: bigint;
  readonly begin: boolean;
  readonly batch: StateBatch;
}

/** Higher first: delivery count, then delivery state. */
function comparePriority(a: StateBatch, b: StateBatch): number {
  return b.deliveryCount - a.deliveryCount || b.deliveryState - a.deliveryState;
}

function samePriority(a: StateBatch, b: StateBatch): boolean {
  return a.deliveryCount === b.deliveryCount && a.deliveryState === b.deliveryState;
}

function sweep(batches: readonly StateBatch[]): StateBatch[] {
  const events: Event[] = [];
  for (const batch of batches) {
    events.push({ offset: batch.firstOffset, begin: true, batch }, { offset: batch.lastOffset + 1n, begin: false, batch });
  }
  // By offset: every event at one offset is taken before the run from there is written.
  events.sort((a, b) => (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0));
  // The priorities of the batches covering the sweep's position, each with how many cover it.
  const open: { priority: StateBatch; count: number }[] = [];
  const result: StateBatch[] = [];
  let previous = -1n;
  let current: StateBatch | null = null;
  for (let i = 0; i < events.length;) {
    const offset = events[i]!.offset;
    if (current !== null && offset > previous) appendJoined(result, previous, offset - 1n, current);
    for (; i < events.length && events[i]!.offset === offset; i++) {
      const e = events[i]!;
      const at = open.findIndex((o) => samePriority(o.priority, e.batch));
      if (e.begin) {
        if (at >= 0) open[at]!.count++;
        else open.push({ priority: e.batch, count: 1 });
      } else if (--open[at]!.count === 0) {
        open.splice(at, 1);
      }
    }
    current = open.length === 0 ? null : open.reduce((best, o) => (comparePriority(o.priority, best) < 0 ? o.priority : best), open[0]!.priority);
    previous = offset;
  }
  return result;
}

/** Adds first..last with `priority`'s state, joined to the last batch when adjacent and equal. */
function appendJoined(result: StateBatch[], first: bigint, last: bigint, priority: StateBatch): void {
  const tail = result[result.length - 1];
  if (tail !== undefined && tail.lastOffset + 1n === first && samePriority(tail, priority)) {
    result[result.length - 1] = { firstOffset: tail.firstOffset, lastOffset: last, deliveryState: priority.deliveryState, deliveryCount: priority.deliveryCount };
    return;
  }
  result.push({ firstOffset: first, lastOffset: last, deliveryState: priority.deliveryState, deliveryCount: priority.deliveryCount });
}
