/**
 * Scenario 6: assignors. Written separately as bench/assignors.ts (another branch); when its
 * compiled form is present the runner runs it as a child process with the same --quick flag and
 * keeps its output in the results file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../test/support/brook.js';
import { runChild } from '../lib/child.js';
import { progress } from '../lib/progress.js';

export const assignorsScript = join(projectRoot, 'dist', 'bench', 'assignors.js');

export function assignorsPresent(): boolean {
  return existsSync(assignorsScript);
}

export async function runAssignors(quick: boolean): Promise<{ name: string; code: number | null; output: string }> {
  progress('assignors: running bench/assignors.ts');
  const r = await runChild(process.execPath, [assignorsScript, ...(quick ? ['--quick'] : [])], { timeoutMs: quick ? 60_000 : 1_800_000 });
  if (r.stderr !== '') process.stderr.write(r.stderr);
  return { name: 'assignors', code: r.code, output: r.stdout };
}
