/**
 * franz-go (github.com/twmb/franz-go) through bench/go (franzbench), built with `go build`
 * into bench/.build/ (gitignored) on first use; it times itself.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../test/support/brook.js';
import { commandWorks } from '../../test/support/clients/run.js';
import { lastJsonLine, runChild } from '../lib/child.js';
import { progress } from '../lib/progress.js';
import type { ThroughputClient, ThroughputRun } from './types.js';

const goDir = join(projectRoot, 'bench', 'go');
const binary = join(projectRoot, 'bench', '.build', 'franzbench');

function stale(): boolean {
  if (!existsSync(binary)) return true;
  const built = statSync(binary).mtimeMs;
  return readdirSync(goDir).some((f) => statSync(join(goDir, f)).mtimeMs > built);
}

let built = false;

/** Builds bench/go when missing or older than its sources; returns the binary. */
export function franzBinary(): string {
  if (!built && stale()) {
    progress('building bench/go (franz-go) with go build');
    const result = spawnSync('go', ['build', '-o', binary, '.'], { cwd: goDir, stdio: ['ignore', 'inherit', 'inherit'] });
    if (result.status !== 0) throw new Error(`go build in bench/go failed (${result.status})`);
  }
  built = true;
  return binary;
}

interface FranzResult { records: number; ms: number; firstMs: number; bytes: number; timedOut: boolean; errors: number; firstError?: string }

function check(r: FranzResult, what: string): FranzResult {
  if (r.timedOut) throw new Error(`${what} timed out after ${r.records} records`);
  if (r.errors > 0) throw new Error(`${what}: ${r.errors} errors, first: ${r.firstError}`);
  return r;
}

export const franzClient: ThroughputClient = {
  name: 'franz-go',
  inProcess: false,
  unavailable: () => (commandWorks('go', ['version']) || existsSync(binary) ? null : 'go not found'),
  async consume(spec): Promise<ThroughputRun> {
    const result = await runChild(franzBinary(), ['consume', spec.bootstrap, spec.topic, spec.group, String(spec.records), String(spec.timeoutMs)],
      { timeoutMs: spec.timeoutMs + 30_000, onPid: spec.onPid });
    const r = check(lastJsonLine<FranzResult>(result, 'franzbench consume'), 'franzbench consume');
    return { records: r.records, ms: r.ms, firstRecordMs: r.firstMs, clientRssBytes: result.peakRssBytes };
  },
  async produce(spec): Promise<ThroughputRun> {
    const result = await runChild(franzBinary(), ['produce', spec.bootstrap, spec.topic, String(spec.records), String(spec.valueBytes), spec.acks === -1 ? 'all' : '1'],
      { timeoutMs: spec.timeoutMs, onPid: spec.onPid });
    const r = check(lastJsonLine<FranzResult>(result, 'franzbench produce'), 'franzbench produce');
    return { records: r.records, ms: r.ms, clientRssBytes: result.peakRssBytes };
  },
};
