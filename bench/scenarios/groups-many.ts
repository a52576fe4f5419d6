/**
 * Many consumer groups on one broker (KIP-848, raw members: lib/heartbeats.ts): 10,000 groups
 * of 2 members heartbeating every 5 s (Kafka's group.consumer.heartbeat.interval.ms default),
 * and 1,000 groups of 2 members of which one commits its partitions every second
 * (`--many-groups H,C`; quick: 200 and 20). Measured once every member has joined and
 * settled, over windows of 20 s (quick: 5 s), one per run: the broker's CPU (cores, over the
 * window), and the heartbeats' and commits' latency from write to answer (p50, p99). Each
 * case runs on a fresh broker of each kind, so one case's members do not expire during the
 * next; both brokers get the same group settings, with the heartbeat interval the members
 * keep.
 */
import { startBroker, type BrokerKind, type BrokerUnderTest } from '../lib/brokers.js';
import { cpuMsOf } from '../lib/cpu-time.js';
import { HeartbeatLoad, type HeartbeatLoadOptions } from '../lib/heartbeats.js';
import { progress } from '../lib/progress.js';
import { Recorder, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';

const HEARTBEAT_INTERVAL_MS = 5_000;
const COMMIT_INTERVAL_MS = 1_000;
const MEMBERS_PER_GROUP = 2;

interface ManyCase {
  readonly name: string;
  readonly groups: number;
  readonly commitGroups: number;
}

/** Groups of the full run (`--many-groups`); quick runs take a fiftieth. */
const DEFAULT_HEARTBEATING_GROUPS = 10_000;
const DEFAULT_COMMITTING_GROUPS = 1_000;

function cases(ctx: ScenarioContext): ManyCase[] {
  const scale = ctx.quick ? 50 : 1;
  const heartbeating = ctx.manyGroups?.heartbeating ?? DEFAULT_HEARTBEATING_GROUPS / scale;
  const committing = ctx.manyGroups?.committing ?? DEFAULT_COMMITTING_GROUPS / scale;
  const n = (x: number): string => x.toLocaleString('en-US');
  const out: ManyCase[] = [];
  if (heartbeating > 0) out.push({ name: `${n(heartbeating)} groups x 2 heartbeating`, groups: heartbeating, commitGroups: 0 });
  if (committing > 0) out.push({ name: `${n(committing)} groups x 2, committing every 1 s`, groups: committing, commitGroups: committing });
  return out;
}

async function runCase(ctx: ScenarioContext, rec: Recorder, kind: BrokerKind, c: ManyCase): Promise<void> {
  const start = ctx.pool.options(kind);
  // The interval the broker hands out is the one the members keep (they do not follow it).
  const broker: BrokerUnderTest = await startBroker(kind, { ...start, config: { ...start.config, 'group.consumer.heartbeat.interval.ms': String(HEARTBEAT_INTERVAL_MS) } });
  const topic = uniqueName('bench-many');
  const options: HeartbeatLoadOptions = {
    bootstrap: broker.bootstrap, topic, groups: c.groups, membersPerGroup: MEMBERS_PER_GROUP,
    connections: Math.min(1000, c.groups), heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
    commitIntervalMs: COMMIT_INTERVAL_MS, commitGroups: c.commitGroups, groupPrefix: uniqueName('bench-many'),
  };
  const load = new HeartbeatLoad(options);
  try {
    await createTopic(broker.bootstrap, topic, MEMBERS_PER_GROUP);
    progress(`groups-many: ${c.name} on ${kind}: joining`);
    await load.start();
    await load.settled(1, 300_000);
    const cpu: number[] = [];
    const hb50: number[] = [];
    const hb99: number[] = [];
    const c50: number[] = [];
    const c99: number[] = [];
    const commitRate: number[] = [];
    const rate: number[] = [];
    const errors: number[] = [];
    const windowMs = ctx.quick ? 5_000 : 20_000;
    for (let run = 1; run <= ctx.runs; run++) {
      progress(`groups-many: ${c.name} on ${kind}, window ${run}/${ctx.runs}`);
      const before = cpuMsOf(broker.pid);
      const w = await load.window(windowMs);
      cpu.push((cpuMsOf(broker.pid) - before) / 1000 / w.seconds);
      hb50.push(w.heartbeatP50Ms);
      hb99.push(w.heartbeatP99Ms);
      rate.push(w.heartbeats / w.seconds);
      errors.push(w.errors);
      if (c.commitGroups > 0) {
        c50.push(w.commitP50Ms);
        c99.push(w.commitP99Ms);
        commitRate.push(w.commits / w.seconds);
      }
    }
    const where = { case: c.name, client: 'raw', broker: kind };
    rec.add(where, { name: 'broker CPU', unit: 'cores', lowerIsBetter: true }, cpu);
    rec.add(where, { name: 'heartbeat p50', unit: 'ms', lowerIsBetter: true }, hb50);
    rec.add(where, { name: 'heartbeat p99', unit: 'ms', lowerIsBetter: true }, hb99);
    rec.add(where, { name: 'heartbeats', unit: '/s', lowerIsBetter: false }, rate);
    rec.add(where, { name: 'commit p50', unit: 'ms', lowerIsBetter: true }, c50);
    rec.add(where, { name: 'commit p99', unit: 'ms', lowerIsBetter: true }, c99);
    rec.add(where, { name: 'commits', unit: '/s', lowerIsBetter: false }, commitRate);
    rec.add(where, { name: 'errors answered', unit: 'count', lowerIsBetter: true }, errors);
  } finally {
    load.close();
    await broker.stop();
  }
}

export const groupsManyScenario: Scenario = {
  name: 'groups-many',
  title: 'many groups: 10,000 groups of 2 heartbeating, 1,000 groups committing every second (broker CPU, heartbeat and commit latency)',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    rec.notes.push(`raw ConsumerGroupHeartbeat v1 members (bench/lib/heartbeats.ts), ${MEMBERS_PER_GROUP} per group on a ${MEMBERS_PER_GROUP}-partition topic, over up to 1,000 connections, each heartbeating every ${HEARTBEAT_INTERVAL_MS} ms (Kafka's default interval) with at most one request in flight, a new assignment acknowledged at once; committers: OffsetCommit v9 of the member's partitions every ${COMMIT_INTERVAL_MS} ms with its member epoch`);
    rec.notes.push('measured after every member joined, was at its group\'s latest epoch and had an unchanged answer; broker CPU in cores over each window; latency from write to answer; a fresh broker per case, both with group.consumer.heartbeat.interval.ms=' + HEARTBEAT_INTERVAL_MS + " and the run's other group settings; a commit is answered by Brook once fsynced, by Kafka once appended (--kafka-config log.flush.interval.messages=1 makes it fsync too)");
    for (const kind of usableBrokers(ctx, rec)) {
      for (const c of cases(ctx)) {
        await rec.attempt(`${c.name} on ${kind}`, () => runCase(ctx, rec, kind, c));
      }
    }
    return rec.report();
  },
};
