/**
 * `brook consume` against `kcat -C`, printing a whole topic and exiting at its end:
 *   node dist/bench/cli-consume-compare.js [--records N] [--reps R] [--value-bytes B] [--bootstrap HOST:PORT]
 * Loads N records (default 1M x 100 B over 6 partitions) into Brook's broker (a child
 * process, or a broker already running), then times, alternating, each tool's process from
 * spawn to exit: `brook consume T -o earliest -e` and `kcat -C -t T -o beginning -e -q`,
 * their output (each value on a line) to /dev/null and through a pipe the benchmark reads
 * and counts. Both print the same bytes (checked on the pipe). Process start-up counts
 * (node ~0.1 s, kcat a few ms). The machine is shared: compare ratios within one run.
 * Not part of npm test: timings depend on the machine.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { spawnBrook, tempDir, projectRoot } from '../test/support/brook.js';
import { commandWorks } from '../test/support/clients/run.js';
import { createTopic, loadTopic, uniqueName } from './lib/topics.js';

interface Args { records: number; reps: number; valueBytes: number; bootstrap: string | null }

function parse(argv: string[]): Args {
  const a: Args = { records: 1_000_000, reps: 3, valueBytes: 100, bootstrap: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--records') a.records = Number(argv[++i]);
    else if (arg === '--reps') a.reps = Number(argv[++i]);
    else if (arg === '--value-bytes') a.valueBytes = Number(argv[++i]);
    else if (arg === '--bootstrap') a.bootstrap = argv[++i]!;
    else throw new Error(`unknown argument ${arg}`);
  }
  return a;
}

interface Run { ms: number; bytes: number; lines: number }

/** Spawns `cmd`; stdout to /dev/null or counted through a pipe. */
function timed(cmd: string, args: readonly string[], sink: 'devnull' | 'pipe'): Promise<Run> {
  const started = performance.now();
  const fd = sink === 'devnull' ? openSync('/dev/null', 'w') : null;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', fd ?? 'pipe', 'pipe'] });
    let bytes = 0;
    let lines = 0;
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      bytes += d.length;
      for (let at = d.indexOf(10); at >= 0; at = d.indexOf(10, at + 1)) lines++;
    });
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => {
      if (fd !== null) closeSync(fd);
      if (code !== 0) reject(new Error(`${cmd} exited ${code}: ${stderr.slice(-500)}`));
      else resolve({ ms: performance.now() - started, bytes, lines });
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (!commandWorks('kcat', ['-V'])) throw new Error('kcat not found');
  const dir = tempDir('brook-bench-cli-');
  const broker = args.bootstrap === null ? await spawnBrook(['--port', '0', '--data-dir', dir.path]) : null;
  const bootstrap = args.bootstrap ?? broker!.bootstrap;
  try {
    const topic = uniqueName('bench-cli-consume');
    await createTopic(bootstrap, topic, 6);
    await loadTopic(bootstrap, topic, { records: args.records, valueBytes: args.valueBytes, partitions: 6 });
    const tools = {
      'brook consume': [process.execPath, [join(projectRoot, 'bin', 'brook'), 'consume', topic, '-b', bootstrap, '-o', 'earliest', '-e']],
      'kcat -C': ['kcat', ['-C', '-b', bootstrap, '-t', topic, '-o', 'beginning', '-e', '-q']],
    } as const;
    console.log(`${args.records} records x ${args.valueBytes} B, 6 partitions, ${args.reps} runs each, medians`);
    for (const sink of ['devnull', 'pipe'] as const) {
      const times = new Map<string, number[]>();
      for (let rep = 0; rep < args.reps; rep++) {
        for (const [name, [cmd, cmdArgs]] of Object.entries(tools)) {
          const r = await timed(cmd, cmdArgs, sink);
          if (sink === 'pipe' && r.lines !== args.records) throw new Error(`${name} printed ${r.lines} lines, not ${args.records}`);
          times.set(name, [...(times.get(name) ?? []), r.ms]);
        }
      }
      const kcat = median(times.get('kcat -C')!);
      for (const [name, ms] of times) {
        const m = median(ms);
        console.log(`${sink === 'pipe' ? '| pipe   ' : '> /dev/null'}  ${name.padEnd(14)} ${(m / 1000).toFixed(2).padStart(6)} s  ${Math.round(args.records / (m / 1000)).toString().padStart(9)} records/s  ${(m / kcat).toFixed(2)}x kcat's time`);
      }
    }
  } finally {
    await broker?.stop();
    dir.remove();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
