/** Output helpers shared by the admin commands: Kafka-tool-style tables and JSON with 64-bit integers. */

/** Kafka's `MISSING_COLUMN_VALUE`. */
export const MISSING = '-';

/**
 * Rows in Kafka's printf style: each column left-aligned to its width (`%-Ns`), one space
 * between columns, the last column unpadded.
 */
export function formatRow(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join(' ');
}

const BIGINT_MARK = '__brook_int64__';

/**
 * JSON.stringify that writes bigint values as plain JSON integers (full 64-bit precision,
 * e.g. offsets), instead of failing on them.
 */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${BIGINT_MARK}${v.toString()}` : v));
  return text.replace(new RegExp(`"${BIGINT_MARK}(-?\\d+)"`, 'g'), '$1');
}
