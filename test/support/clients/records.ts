/**
 * Records as the third-party clients report them, in one shape, and the checks the broker
 * acceptance tests make on them: each record at the offset its producer was told, unchanged,
 * partitions gap-free from offset 0 and in order.
 */
import assert from 'node:assert/strict';

export interface ClientRecord {
  readonly partition: number;
  readonly offset: bigint;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** A record the producer sent and the broker acknowledged at (partition, offset). */
export type AckedRecord = ClientRecord;

export function byPartition<R extends { partition: number; offset: bigint }>(records: readonly R[]): Map<number, R[]> {
  const out = new Map<number, R[]>();
  for (const r of records) {
    let list = out.get(r.partition);
    if (!list) out.set(r.partition, (list = []));
    list.push(r);
  }
  for (const list of out.values()) list.sort((a, b) => (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0));
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
}

export function describeRecord(r: ClientRecord | undefined): string {
  if (!r) return '(none)';
  return `p${r.partition}@${r.offset} key=${JSON.stringify(r.key)} value=${JSON.stringify(r.value)} headers=${JSON.stringify(r.headers)}`;
}

/** Every partition's offsets run 0, 1, 2, ... with no gap and no repeat (as read). */
export function assertGapFree(records: readonly ClientRecord[], label: string): void {
  for (const [partition, list] of byPartition(records)) {
    list.forEach((r, i) => {
      assert.equal(r.offset, BigInt(i), `${label}: partition ${partition} has offset ${r.offset} at position ${i} (gap or repeat)`);
    });
  }
}

/** Records read back in the order the reader delivered them: offsets increase within each partition. */
export function assertDeliveredInOrder(records: readonly ClientRecord[], label: string): void {
  const last = new Map<number, bigint>();
  for (const r of records) {
    const previous = last.get(r.partition);
    assert.ok(previous === undefined || r.offset > previous, `${label}: partition ${r.partition} delivered offset ${r.offset} after ${previous}`);
    last.set(r.partition, r.offset);
  }
}

/**
 * `read` holds exactly `expected` (same partitions, offsets, keys, values, headers); the first
 * difference is reported.
 */
export function assertSameRecords(read: readonly ClientRecord[], expected: readonly ClientRecord[], label: string): void {
  const a = [...byPartition(read).values()].flat();
  const e = [...byPartition(expected).values()].flat();
  const n = Math.max(a.length, e.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = e[i];
    if (!x || !y || x.partition !== y.partition || x.offset !== y.offset || x.key !== y.key || x.value !== y.value
      || JSON.stringify(sortedHeaders(x.headers)) !== JSON.stringify(sortedHeaders(y.headers))) {
      assert.fail(`${label}: ${a.length} records read, ${e.length} expected; first difference at #${i}:\n  read     ${describeRecord(x)}\n  expected ${describeRecord(y)}`);
    }
  }
}

/** Every acknowledged record is present in `read` at its acknowledged (partition, offset), unchanged. */
export function assertContainsAcked(read: readonly ClientRecord[], acked: readonly AckedRecord[], label: string): void {
  const at = new Map(read.map((r) => [`${r.partition}@${r.offset}`, r]));
  let missing = 0;
  let first: string | null = null;
  for (const e of acked) {
    const r = at.get(`${e.partition}@${e.offset}`);
    const same = r !== undefined && r.key === e.key && r.value === e.value
      && JSON.stringify(sortedHeaders(r.headers)) === JSON.stringify(sortedHeaders(e.headers));
    if (!same) {
      missing++;
      first ??= `acknowledged ${describeRecord(e)}, read ${describeRecord(r)}`;
    }
  }
  assert.equal(missing, 0, `${label}: ${missing} of ${acked.length} acknowledged records missing or changed; first: ${first}`);
}

function sortedHeaders(h: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(h).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Count of records per partition, e.g. { 0: 340, 1: 331, 2: 329 }. */
export function countsByPartition(records: readonly { partition: number }[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of records) out[r.partition] = (out[r.partition] ?? 0) + 1;
  return out;
}
