/**
 * Prometheus's text exposition format, version 0.0.4 (what `GET /metrics` answers and every
 * Prometheus-compatible scraper reads): per family a `# HELP` and a `# TYPE` line, then its
 * samples, `name{label="value",...} value`. Help text escapes `\` and newlines; label values
 * escape `\`, `"` and newlines; values are Go floats (`NaN`, `+Inf`, `-Inf`). A histogram is
 * its cumulative `_bucket{le=...}` series (the last `le="+Inf"`), `_sum` and `_count`.
 *
 * Label strings are built once where they can be (per API, per topic) and passed in
 * rendered, so a scrape does not rebuild them and the counting side never does.
 */
import type { HistogramSnapshot } from '../../util/histogram.js';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : value;
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** `a="x",b="y"`: the inside of a label set (a histogram adds `le` to it). */
export function labelPairs(labels: Readonly<Record<string, string>>): string {
  let out = '';
  for (const k in labels) out += `${out === '' ? '' : ','}${k}="${escapeLabelValue(labels[k]!)}"`;
  return out;
}

/** A sample value as Prometheus parses it. */
export function formatValue(value: number | bigint): string {
  if (typeof value === 'bigint') return value.toString();
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

export class Exposition {
  private out = '';

  /** Starts a family: every sample of it must follow before the next family starts. */
  family(name: string, type: MetricType, help: string): this {
    this.out += `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`;
    return this;
  }

  /** One sample; `pairs` as labelPairs renders them ('' for none). */
  sample(name: string, pairs: string, value: number | bigint): this {
    this.out += pairs === '' ? `${name} ${formatValue(value)}\n` : `${name}{${pairs}} ${formatValue(value)}\n`;
    return this;
  }

  /** A family with one unlabelled sample. */
  single(name: string, type: 'counter' | 'gauge', help: string, value: number | bigint): this {
    return this.family(name, type, help).sample(name, '', value);
  }

  /** A histogram's samples (its family started already). */
  histogram(name: string, pairs: string, h: HistogramSnapshot): this {
    const sep = pairs === '' ? '' : `${pairs},`;
    let cumulative = 0;
    for (let i = 0; i < h.bounds.length; i++) {
      cumulative += h.counts[i]!;
      this.out += `${name}_bucket{${sep}le="${formatValue(h.bounds[i]!)}"} ${cumulative}\n`;
    }
    this.out += `${name}_bucket{${sep}le="+Inf"} ${h.count}\n`;
    this.sample(`${name}_sum`, pairs, h.sum);
    this.sample(`${name}_count`, pairs, h.count);
    return this;
  }

  text(): string {
    return this.out;
  }
}

/** The Content-Type of this format. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
