/**
 * Formatting numbers, ratios and tables for the printed results.
 */

/** 1234567 -> "1.23M", 12345 -> "12.3k", 12.345 -> "12.3", 0.1234 -> "0.123". */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '-';
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${(value / 1e9).toPrecision(3)}G`;
  if (abs >= 1e6) return `${(value / 1e6).toPrecision(3)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toPrecision(3)}k`;
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 1) return value.toPrecision(3);
  return value === 0 ? '0' : value.toPrecision(3);
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || Number.isNaN(bytes)) return '-';
  const mib = bytes / (1024 * 1024);
  return mib >= 1024 ? `${(mib / 1024).toFixed(2)} GiB` : `${mib.toFixed(1)} MiB`;
}

/**
 * `ours / theirs` as "1.52x". For metrics where lower is better (latency, memory, time) pass
 * `lowerIsBetter`: the ratio is then theirs / ours, so above 1x always means Brook is better.
 */
export function ratio(ours: number | null | undefined, theirs: number | null | undefined, lowerIsBetter = false): number | null {
  if (ours === null || ours === undefined || theirs === null || theirs === undefined) return null;
  if (Number.isNaN(ours) || Number.isNaN(theirs)) return null;
  const r = lowerIsBetter ? theirs / ours : ours / theirs;
  return Number.isFinite(r) ? r : null;
}

export function formatRatio(r: number | null): string {
  if (r === null) return '-';
  return `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}x`;
}

/** A plain-text table; the columns from `firstNumeric` on are right-aligned. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], firstNumeric = 0): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => i >= firstNumeric);
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
