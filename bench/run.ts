/**
 * The benchmark runner: `npm run bench -- [scenario ...] [--quick] [--runs N]
 * [--brokers brook,kafka] [--clients kafkajs,java,...] [--group-protocol classic,consumer] [--out DIR]`.
 *
 * Runs the chosen scenarios (all by default; names: consume produce broker group groups-many
 * rebalance assignors server-assignors commits commits-cleaner restart memory embedded-start test-suite share
 * streams-groups recorder kafkajs), each several times, prints a table of medians with the
 * ratios to the peers measured in the same run, and writes bench/results/<time>.json.
 * Progress goes to stderr. --quick runs every scenario at a small size once: it checks that
 * the harness works and produces numbers, not that targets are met (exit code 1 only when a
 * scenario failed to produce numbers). --broker-cpus / --client-cpus give brokers and the
 * harness with its clients their own cores (bench/lib/cpu-affinity.ts says why). --baseline DIR
 * (another built checkout) has the scenarios that support it (commits-cleaner) run that
 * checkout's broker too, interleaved with this one's; --brook-root DIR runs every Brook broker of
 * the run from that built checkout instead (any scenario: a before/after comparison as two
 * runs, this harness and its clients alike). --group-protocol picks the group
 * protocols of the group and rebalance scenarios (default both, side by side); --group-sizes
 * the group scenario's member counts (default 10,100,500,1000; quick: 10); --assignor-sizes
 * the server-assignors scenario's members x partitions (default 100x1000,1000x10000; quick:
 * 100x1000); --many-groups the groups-many scenario's heartbeating and committing group
 * counts (default 10000,1000; quick: 200,20; 0 leaves that case out);
 * --heartbeat-ms and --assignment-interval-ms set the group timings both brokers and every
 * classic member run with (lib/scenario.ts, groupBrokerConfig).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../test/support/brook.js';
import type { BrokerKind } from './lib/brokers.js';
import { parseCpuList, pinProcess } from './lib/cpu-affinity.js';
import { progress } from './lib/progress.js';
import { machineInfo, renderReport, writeResults, type ResultsFile } from './lib/report.js';
import type { GroupProtocolName } from './clients/types.js';
import { BrokerPool, DEFAULT_ASSIGNMENT_INTERVAL_MS, DEFAULT_HEARTBEAT_INTERVAL_MS, groupBrokerConfig, type RunOptions, type ScenarioReport } from './lib/scenario.js';
import { assignorsPresent, runAssignors } from './scenarios/assignors-slot.js';
import { allScenarios } from './scenarios/index.js';

const USAGE = `usage: npm run bench -- [scenario ...] [--quick] [--runs N] [--brokers brook,kafka] [--clients a,b] [--heartbeat-ms N] [--assignment-interval-ms N] [--group-protocol classic,consumer] [--group-sizes 10,100,...] [--assignor-sizes 100x1000,...] [--many-groups H,C] [--kafka-config k=v,...] [--brook-config k=v,...] [--broker-cpus LIST] [--client-cpus LIST] [--baseline DIR] [--brook-root DIR] [--out DIR]
scenarios: ${['consume', 'produce', 'broker', 'group', 'groups-many', 'rebalance', 'assignors', 'server-assignors', 'commits', 'commits-cleaner', 'restart', 'memory', 'embedded-start', 'test-suite', 'share', 'streams-groups', 'recorder', 'kafkajs'].join(' ')}`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      quick: { type: 'boolean', default: false },
      runs: { type: 'string' },
      brokers: { type: 'string' },
      clients: { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      'assignment-interval-ms': { type: 'string' },
      'group-protocol': { type: 'string' },
      'group-sizes': { type: 'string' },
      'assignor-sizes': { type: 'string' },
      'many-groups': { type: 'string' },
      'kafka-config': { type: 'string' },
      'brook-config': { type: 'string' },
      'broker-cpus': { type: 'string' },
      'client-cpus': { type: 'string' },
      baseline: { type: 'string' },
      'brook-root': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const known = allScenarios();
  const names = positionals.length > 0 ? positionals : [...known.map((s) => s.name), 'assignors'];
  const unknown = names.filter((n) => n !== 'assignors' && !known.some((s) => s.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown scenario(s): ${unknown.join(', ')}\n${USAGE}\n`);
    return 2;
  }
  const quick = values.quick ?? false;
  const runs = values.runs !== undefined ? Number(values.runs) : quick ? 1 : 3;
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  const brokers = (values.brokers?.split(',') ?? ['brook', 'kafka']) as BrokerKind[];
  if (brokers.some((b) => b !== 'brook' && b !== 'kafka')) throw new Error(`--brokers takes brook and/or kafka, got ${values.brokers}`);
  const heartbeatIntervalMs = Number(values['heartbeat-ms'] ?? DEFAULT_HEARTBEAT_INTERVAL_MS);
  if (!Number.isInteger(heartbeatIntervalMs) || heartbeatIntervalMs < 1) throw new Error(`--heartbeat-ms must be a positive integer, got ${values['heartbeat-ms']}`);
  const assignmentIntervalMs = Number(values['assignment-interval-ms'] ?? DEFAULT_ASSIGNMENT_INTERVAL_MS);
  if (!Number.isInteger(assignmentIntervalMs) || assignmentIntervalMs < 0) throw new Error(`--assignment-interval-ms must be a non-negative integer, got ${values['assignment-interval-ms']}`);
  const groupProtocols = (values['group-protocol']?.split(',') ?? ['classic', 'consumer']) as GroupProtocolName[];
  if (groupProtocols.length === 0 || groupProtocols.some((p) => p !== 'classic' && p !== 'consumer')) throw new Error(`--group-protocol takes classic and/or consumer, got ${values['group-protocol']}`);
  const groupSizes = values['group-sizes']?.split(',').map(Number) ?? null;
  if (groupSizes !== null && (groupSizes.length === 0 || groupSizes.some((n) => !Number.isInteger(n) || n < 1))) throw new Error(`--group-sizes takes positive integers, got ${values['group-sizes']}`);
  const assignorSizes = values['assignor-sizes']?.split(',').map((s) => s.split('x').map(Number) as [number, number]) ?? null;
  if (assignorSizes !== null && (assignorSizes.length === 0 || assignorSizes.some((s) => s.length !== 2 || s.some((n) => !Number.isInteger(n) || n < 1)))) throw new Error(`--assignor-sizes takes MEMBERSxPARTITIONS,..., got ${values['assignor-sizes']}`);
  const many = values['many-groups']?.split(',').map(Number) ?? null;
  if (many !== null && (many.length !== 2 || many.some((n) => !Number.isInteger(n) || n < 0) || many[0]! + many[1]! === 0)) throw new Error(`--many-groups takes HEARTBEATING,COMMITTING group counts, got ${values['many-groups']}`);
  const manyGroups = many === null ? null : { heartbeating: many[0]!, committing: many[1]! };
  const kafkaConfig = parseProperties(values['kafka-config']);
  const brookConfig = parseProperties(values['brook-config']);
  const brokerCpus = parseCpuList(values['broker-cpus'], '--broker-cpus');
  const clientCpus = parseCpuList(values['client-cpus'], '--client-cpus');
  const baseline = values.baseline ?? null;
  if (baseline !== null && !existsSync(join(baseline, 'dist', 'src', 'cli', 'main.js'))) throw new Error(`--baseline ${baseline}: not a built Brook checkout (no dist/src/cli/main.js)`);
  const brookRoot = values['brook-root'] ?? null;
  if (brookRoot !== null && !existsSync(join(brookRoot, 'dist', 'src', 'cli', 'main.js'))) throw new Error(`--brook-root ${brookRoot}: not a built Brook checkout (no dist/src/cli/main.js)`);
  const options: RunOptions = { quick, runs, brokers, clients: values.clients?.split(',') ?? null, heartbeatIntervalMs, groupProtocols, groupSizes, assignorSizes, manyGroups, assignmentIntervalMs, kafkaConfig, brokerCpus, clientCpus, baseline };
  // Before anything is spawned: every client process inherits the harness's CPUs.
  if (clientCpus !== null) pinProcess(process.pid, clientCpus);

  const startedAt = new Date().toISOString();
  const groupConfig = groupBrokerConfig(options);
  const pool = new BrokerPool(kafkaConfig, brokerCpus, groupConfig, brookRoot, brookConfig);
  const reports: ScenarioReport[] = [];
  const external: ResultsFile['external'] = [];
  progress(`running ${names.join(', ')} (${quick ? 'quick, ' : ''}${runs} run${runs === 1 ? '' : 's'} each, brokers ${brokers.join(', ')})`);
  if (brokerCpus !== null || clientCpus !== null) process.stdout.write(`brokers pinned to CPUs ${brokerCpus ?? 'any'}, harness and clients to CPUs ${clientCpus ?? 'any'}\n`);
  process.stdout.write(`both brokers run with ${Object.entries(groupConfig).map(([k, v]) => `${k}=${v}`).join(', ')}\n`);
  if (Object.keys(kafkaConfig).length > 0) process.stdout.write(`Kafka's broker runs with ${Object.entries(kafkaConfig).map(([k, v]) => `${k}=${v}`).join(', ')}\n`);
  if (Object.keys(brookConfig).length > 0) process.stdout.write(`Brook's broker runs with ${Object.entries(brookConfig).map(([k, v]) => `${k}=${v}`).join(', ')}\n`);
  try {
    for (const name of names) {
      if (name === 'assignors') {
        if (assignorsPresent()) {
          const r = await runAssignors(quick);
          external.push(r);
          process.stdout.write(`== assignors (bench/assignors.ts)\n${r.output}${r.code === 0 ? '' : `ERROR: exited ${r.code}\n`}\n`);
        } else {
          progress('assignors: bench/assignors.ts not present, skipped');
        }
        continue;
      }
      const scenario = known.find((s) => s.name === name)!;
      progress(`--- ${scenario.name}: ${scenario.title}`);
      const started = performance.now();
      let report: ScenarioReport;
      try {
        report = await scenario.run({ ...options, pool });
      } catch (err) {
        report = { name, title: scenario.title, measurements: [], targets: [], notes: [], skipped: [], errors: [(err as Error).stack ?? String(err)] };
      }
      progress(`--- ${scenario.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      reports.push(report);
      process.stdout.write(`${renderReport(report)}\n\n`);
    }
  } finally {
    await pool.stopAll();
  }
  const results: ResultsFile = { startedAt, finishedAt: new Date().toISOString(), options, machine: machineInfo(), scenarios: reports, external };
  const path = writeResults(values.out ?? join(projectRoot, 'bench', 'results'), results, quick, positionals.length === 0);
  progress(`results written to ${path}`);
  // A scenario "works" when it produced numbers; errors in part of it are reported above.
  const broken = reports.filter((r) => r.measurements.length === 0 && r.skipped.length === 0);
  const failedExternal = external.filter((e) => e.code !== 0);
  for (const r of broken) progress(`scenario ${r.name} produced no numbers`);
  const partial = reports.filter((r) => r.errors.length > 0);
  if (partial.length > 0) progress(`errors in: ${partial.map((r) => r.name).join(', ')}`);
  return broken.length > 0 || failedExternal.length > 0 || (quick && partial.length > 0) ? 1 : 0;
}

/** `k=v,k=v` (server.properties entries for Kafka's broker, e.g. log.flush.interval.messages=1). */
function parseProperties(text: string | undefined): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const pair of text?.split(',') ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--kafka-config takes key=value pairs, got ${pair}`);
    entries[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return entries;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
