/**
 * Printing scenario reports (tables of medians with ratios, targets) and writing the JSON
 * results file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, release, platform } from 'node:os';
import { join } from 'node:path';
import { formatNumber, formatRatio, ratio, renderTable } from './format.js';
import type { Measurement, RunOptions, ScenarioReport } from './scenario.js';

function brokerRatio(m: Measurement, all: readonly Measurement[]): number | null {
  if (m.broker !== 'brook') return null;
  const peer = all.find((o) => o.broker === 'kafka' && o.case === m.case && o.client === m.client && o.metric === m.metric);
  return peer ? ratio(m.median, peer.median, m.lowerIsBetter) : null;
}

function clientRatio(m: Measurement, all: readonly Measurement[]): number | null {
  if (m.client === 'brook') return null;
  const ours = all.find((o) => o.client === 'brook' && o.case === m.case && o.broker === m.broker && o.metric === m.metric);
  return ours ? ratio(ours.median, m.median, m.lowerIsBetter) : null;
}

/**
 * This measurement against its `vsCase` and/or `vsClient` (the same broker and metric, and the
 * same case or client where none is named): above 1x means this one is better.
 */
function caseRatio(m: Measurement, all: readonly Measurement[]): number | null {
  if (m.vsCase === undefined && m.vsClient === undefined) return null;
  const vsCase = m.vsCase ?? m.case;
  const vsClient = m.vsClient ?? m.client;
  const peer = all.find((o) => o.case === vsCase && o.client === vsClient && o.broker === m.broker && o.metric === m.metric);
  return peer ? ratio(m.median, peer.median, m.lowerIsBetter) : null;
}

export function renderReport(report: ScenarioReport): string {
  const out: string[] = [`== ${report.name}: ${report.title}`];
  const ms = report.measurements;
  if (ms.length > 0) {
    const hasClientRatio = ms.some((m) => m.client === 'brook');
    const header = ['case', 'client', 'broker', 'metric', 'median', 'min..max', 'runs', 'brook/kafka broker'];
    if (hasClientRatio) header.push('brook client vs this');
    if (report.caseRatio !== undefined) header.push(report.caseRatio);
    const rows = ms.map((m) => {
      const row = [
        m.case, m.client, m.broker, `${m.metric} (${m.unit})`, formatNumber(m.median),
        m.values.length > 1 ? `${formatNumber(m.min)}..${formatNumber(m.max)}` : '-', String(m.values.length),
        formatRatio(brokerRatio(m, ms)),
      ];
      if (hasClientRatio) row.push(formatRatio(clientRatio(m, ms)));
      if (report.caseRatio !== undefined) row.push(formatRatio(caseRatio(m, ms)));
      return row;
    });
    out.push(renderTable(header, rows, 4));
    out.push('(ratios: above 1x means Brook is better; for time, latency and memory the ratio is theirs/ours)');
  }
  for (const t of report.targets) {
    const mark = t.met === null ? '?' : t.met ? 'MET' : 'MISSED';
    out.push(`target: ${t.text} -> ${mark} (${t.detail})`);
  }
  for (const n of report.notes) out.push(`note: ${n}`);
  for (const s of report.skipped) out.push(`skipped: ${s}`);
  for (const e of report.errors) out.push(`ERROR: ${e}`);
  return out.join('\n');
}

export function machineInfo(): Record<string, unknown> {
  const c = cpus();
  return {
    cpus: c.length, cpuModel: c[0]?.model ?? 'unknown', memoryBytes: totalmem(), os: `${platform()} ${release()}`,
    node: process.version,
  };
}

export interface ResultsFile {
  startedAt: string;
  finishedAt: string;
  options: RunOptions;
  machine: Record<string, unknown>;
  scenarios: ScenarioReport[];
  external: { name: string; code: number | null; output: string }[];
}

/**
 * Writes bench/results/<stamp>.json, and latest.json for a full run (every scenario, not
 * quick: the run BENCHMARKS.md cites, which a run of chosen scenarios must not replace);
 * returns the path.
 */
export function writeResults(dir: string, results: ResultsFile, quick: boolean, everyScenario: boolean): string {
  mkdirSync(dir, { recursive: true });
  const stamp = results.startedAt.replace(/[:.]/g, '-');
  const path = join(dir, `${quick ? 'quick-' : ''}${stamp}.json`);
  const text = `${JSON.stringify(results, null, 2)}\n`;
  writeFileSync(path, text);
  if (!quick && everyScenario) writeFileSync(join(dir, 'latest.json'), text);
  return path;
}
