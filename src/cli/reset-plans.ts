/**
 * Inputs and outputs of `groups reset-offsets` beyond single values: ISO-8601 durations
 * (`--by-duration`, parsed as Java's Duration.parse) and Kafka's CSV reset plans
 * (`--from-file`, `--export`): `topic,partition,offset` lines, or
 * `group,topic,partition,offset` lines for several groups.
 */
import type { PlannedOffset } from '../client/admin/index.js';
import { UsageError } from './options.js';

const DURATION = /^([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i;

/** Java's Duration.parse (PnDTnHnMn.nS, each part optional, signs allowed) in milliseconds. */
export function parseIsoDuration(text: string): bigint {
  const m = DURATION.exec(text.trim());
  // Like Java: at least one part, and a 'T' must be followed by one.
  if (!m || (m[2] === undefined && m[3] === undefined) || m[3]?.toUpperCase() === 'T') {
    throw new UsageError(`--by-duration expects an ISO-8601 duration such as PT1H30M or P1DT2H, got '${text}'`);
  }
  const part = (s: string | undefined): bigint => (s === undefined ? 0n : BigInt(s));
  const seconds = part(m[2]) * 86_400n + part(m[4]) * 3_600n + part(m[5]) * 60n + part(m[6]);
  // The fraction counts with the seconds' sign, as Java's.
  const fractionMs = m[7] ? BigInt(m[7].padEnd(3, '0').slice(0, 3)) * (m[6]?.startsWith('-') ? -1n : 1n) : 0n;
  const ms = seconds * 1000n + fractionMs;
  return m[1] === '-' ? -ms : ms;
}

/** A reset plan file's offsets for `group` (Kafka's CSV, with or without the group column). */
export function parseResetCsv(text: string, group: string): PlannedOffset[] {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  const out: PlannedOffset[] = [];
  let seenGroup = false;
  for (const [i, line] of lines.entries()) {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== 3 && cells.length !== 4) throw new UsageError(`--from-file line ${i + 1}: expected topic,partition,offset or group,topic,partition,offset, got '${line}'`);
    const [topic, partition, offset] = cells.length === 3 ? cells : cells.slice(1);
    if (cells.length === 4 && cells[0] !== group) continue;
    seenGroup = true;
    if (!/^\d+$/.test(partition!) || !/^-?\d+$/.test(offset!) || topic === '') throw new UsageError(`--from-file line ${i + 1}: bad partition or offset in '${line}'`);
    out.push({ topic: topic!, partition: Number(partition), offset: BigInt(offset!) });
  }
  // Kafka's wording.
  if (!seenGroup) throw new Error(`No reset plan for group ${group} found.`);
  return out;
}

/** `--export`: the plan as Kafka's single-group CSV, what --from-file reads back. */
export function resetCsv(plan: readonly PlannedOffset[]): string {
  return plan.map((p) => `${p.topic},${p.partition},${p.offset}\n`).join('');
}
