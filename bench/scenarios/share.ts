/**
 * Share groups (KIP-932): records/s through a share group of 1, 4 and 16 members (quick: 1
 * and 2), each a franz-go share consumer (bench/go share.go) in a process of its own that
 * accepts every record and flushes its acknowledgements after each poll, on Brook's broker
 * and on Kafka's. The topic (6 partitions, 100 B records) is loaded first; the group reads it
 * from the start (group config share.auto.offset.reset=earliest, set before the members
 * join). Throughput = records / (members started to every record accepted), group join and
 * share-partition initialization included; "after first ack" leaves them out. Acknowledgement
 * latency: each member times every FlushAcks (poll's acknowledgements sent to their answer,
 * which both brokers give once the new state is in the share coordinator's log).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { franzBinary } from '../clients/franz.js';
import { commandWorks } from '../../test/support/clients/run.js';
import { createTopic, loadTopic, uniqueName } from '../lib/topics.js';
import { progress } from '../lib/progress.js';
import { percentile } from '../lib/stats.js';
import { Recorder, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';

const PARTITIONS = 6;
const VALUE_BYTES = 100;
/** ConfigResource type GROUP. */
const GROUP_RESOURCE = 32;

interface MemberEnd { accepted: number; ackMs?: number[]; errors: number; firstError?: string }

/** Sets share.auto.offset.reset=earliest on the group (IncrementalAlterConfigs, GROUP). */
async function readFromStart(bootstrap: string, group: string): Promise<void> {
  const [host, port] = bootstrap.split(':');
  const conn = await KafkaConnection.connect({ host: host!, port: Number(port), clientId: 'brook-bench-share' });
  try {
    const answer = await conn.request(Api.IncrementalAlterConfigs, {
      resources: [{ resourceType: GROUP_RESOURCE, resourceName: group, configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }] }],
      validateOnly: false,
    });
    const r = answer.responses[0]!;
    if (r.errorCode !== ErrorCode.NONE) throw new Error(`share.auto.offset.reset on ${group}: error ${r.errorCode} ${r.errorMessage ?? ''}`);
  } finally {
    conn.close();
  }
}

/** Runs `members` share consumers until `records` were accepted in all; returns the timings. */
async function runGroup(bootstrap: string, topic: string, group: string, members: number, records: number, timeoutMs: number): Promise<{ ms: number; afterFirstMs: number; ackMs: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'brook-bench-share-'));
  const stopFile = join(dir, 'stop');
  const accepted = new Array<number>(members).fill(0);
  const ends: (MemberEnd | null)[] = new Array<MemberEnd | null>(members).fill(null);
  const started = performance.now();
  let firstAt = -1;
  let doneAt = -1;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const exits = Array.from({ length: members }, (_, i) => new Promise<void>((resolve, reject) => {
    const child = spawn(franzBinary(), ['share', bootstrap, topic, group, stopFile, String(timeoutMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const parsed = JSON.parse(line) as MemberEnd;
      if (parsed.ackMs !== undefined || parsed.errors !== undefined) ends[i] = parsed;
      accepted[i] = parsed.accepted;
      const total = accepted.reduce((a, b) => a + b, 0);
      if (total > 0 && firstAt < 0) firstAt = performance.now();
      if (total >= records && doneAt < 0) {
        doneAt = performance.now();
        resolveDone();
      }
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`share member exited with ${code}`))));
  }));
  const timer = setTimeout(resolveDone, timeoutMs);
  try {
    await done;
  } finally {
    clearTimeout(timer);
    writeFileSync(stopFile, '');
    await Promise.all(exits).finally(() => rmSync(dir, { recursive: true, force: true }));
  }
  if (doneAt < 0) throw new Error(`${accepted.reduce((a, b) => a + b, 0)} of ${records} records accepted in ${timeoutMs} ms`);
  const failed = ends.find((e) => e !== null && e.errors > 0);
  if (failed) throw new Error(`acknowledgement errors: ${failed.errors}, first: ${failed.firstError}`);
  return { ms: doneAt - started, afterFirstMs: doneAt - firstAt, ackMs: ends.flatMap((e) => e?.ackMs ?? []) };
}

export const shareScenario: Scenario = {
  name: 'share',
  title: 'share group throughput: records/s through 1, 4 and 16 franz-go share consumers, and the acknowledgement latency',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const records = ctx.quick ? 5_000 : 200_000;
    const sizes = ctx.quick ? [1, 2] : [1, 4, 16];
    rec.notes.push(`${records} records of ${VALUE_BYTES} B over ${PARTITIONS} partitions, loaded first; each run a fresh share group reading from the start; every record accepted, acknowledgements flushed after each poll; throughput from the members' start (join, initialization) to the last accepted record`);
    if (!commandWorks('go', ['version'])) {
      rec.skipped.push('franz-go: go not found');
      return rec.report();
    }
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} broker`, async () => {
        const broker = await ctx.pool.get(kind);
        const topic = uniqueName('bench-share');
        await createTopic(broker.bootstrap, topic, PARTITIONS);
        progress(`share: loading ${records} records into ${kind}`);
        await loadTopic(broker.bootstrap, topic, { records, valueBytes: VALUE_BYTES, partitions: PARTITIONS });
        for (const members of sizes) {
          await rec.attempt(`${members} members on ${kind}`, async () => {
            const rates: number[] = [];
            const steady: number[] = [];
            const p50: number[] = [];
            const p99: number[] = [];
            for (let run = 1; run <= ctx.runs; run++) {
              progress(`share: ${members} members on ${kind}, run ${run}/${ctx.runs}`);
              const group = uniqueName('bench-share-group');
              await readFromStart(broker.bootstrap, group);
              const r = await runGroup(broker.bootstrap, topic, group, members, records, ctx.quick ? 90_000 : 600_000);
              rates.push((records / r.ms) * 1000);
              steady.push((records / r.afterFirstMs) * 1000);
              p50.push(percentile(r.ackMs, 50));
              p99.push(percentile(r.ackMs, 99));
              progress(`share: ${members} members on ${kind}: ${Math.round((records / r.ms) * 1000)} records/s, ack p50 ${percentile(r.ackMs, 50).toFixed(1)} ms`);
            }
            const where = { case: `${members} member${members === 1 ? '' : 's'}`, client: 'franz-go', broker: kind };
            rec.add(where, { name: 'throughput', unit: 'records/s', lowerIsBetter: false }, rates);
            rec.add(where, { name: 'after first ack', unit: 'records/s', lowerIsBetter: false }, steady);
            rec.add(where, { name: 'ack latency p50', unit: 'ms', lowerIsBetter: true }, p50);
            rec.add(where, { name: 'ack latency p99', unit: 'ms', lowerIsBetter: true }, p99);
          });
        }
      });
    }
    return rec.report();
  },
};
