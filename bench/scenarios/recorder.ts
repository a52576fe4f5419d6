/**
 * The flight recorder's cost: two Brook brokers in the same run, alike but for
 * group.timeline.enable (true: every group transition folded into a JSON entry of
 * `__brook_group_timeline`; false: nothing recorded), measured alternately so that whatever
 * else loads the machine weighs on both:
 *
 * - commits: OffsetCommit throughput, 1 partition per commit (lib/commits.ts, as the commits
 *   scenario), on brokers with no members yet;
 * - heartbeats: a few thousand KIP-848 members (raw, lib/heartbeats.ts) heartbeating on each
 *   broker, joined on both at once; then windows of steady heartbeats, heartbeat p50/p99 and
 *   the broker's CPU. The recorder has nothing to do here (no group changes): the figures
 *   show whether it costs anything when idle;
 * - churn, where it works: on top of those members, fresh groups form (many small ones, and
 *   in full runs a few of 100 members: entries that list many members and moves; time until
 *   every member holds its assignment), then rounds in which one member of every churn group leaves
 *   and a new one joins in its place, each round timed until every member of every churn
 *   group has converged; the broker's CPU per round, group changes per second, and the
 *   heartbeat p99 of the steady members and of the churning ones meanwhile. Then every churn
 *   member leaves (the groups become Empty: entries too).
 *
 * Cases are named "..., recorder on" / "..., recorder off"; the "on vs off" column is the
 * recorder-on figure against the recorder-off one: 1x is no cost, below 1x is its cost.
 */
import { startBroker, type BrokerUnderTest } from '../lib/brokers.js';
import { commitThroughput, connect } from '../lib/commits.js';
import { cpuMsOf } from '../lib/cpu-time.js';
import { HeartbeatLoad, TICK_MS } from '../lib/heartbeats.js';
import { progress } from '../lib/progress.js';
import { Recorder, type Metric, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { median } from '../lib/stats.js';
import { createTopic, uniqueName } from '../lib/topics.js';
import { Api } from '../../src/protocol/messages/index.js';

const TIMELINE_TOPIC = '__brook_group_timeline';

interface Sizes {
  readonly commits: number;
  /** Steady members: groups x members per group. */
  readonly steadyGroups: number;
  readonly windowMs: number;
  readonly churn: readonly Churn[];
  readonly churnRounds: number;
}

/** Churn groups: many small ones (many entries), and a few large ones (entries listing 100 members and their moves). */
interface Churn {
  readonly groups: number;
  readonly members: number;
  readonly partitions: number;
}

const FULL: Sizes = {
  commits: 30_000, steadyGroups: 1_000, windowMs: 10_000, churnRounds: 30,
  churn: [{ groups: 20, members: 10, partitions: 30 }, { groups: 2, members: 100, partitions: 300 }],
};
const QUICK: Sizes = { commits: 2_000, steadyGroups: 100, windowMs: 2_000, churnRounds: 3, churn: [{ groups: 5, members: 10, partitions: 30 }] };

const COMMIT_CONNECTIONS = 8;
const COMMIT_IN_FLIGHT = 8;
const STEADY_MEMBERS = 3;
/** Kafka's consumers heartbeat every 5 s by default; 3 s makes a thousand heartbeats a second per broker of 3,000 members. */
const STEADY_HEARTBEAT_MS = 3_000;
const STEADY_CONNECTIONS = 100;
/** The run's group.consumer.heartbeat.interval.ms default (lib/scenario.ts): members learn of changes within it. */
const CHURN_HEARTBEAT_MS = 100;

type Setting = 'on' | 'off';

interface Side {
  readonly setting: Setting;
  readonly broker: BrokerUnderTest;
  readonly topic: string;
  /** One per churn shape (Sizes.churn). */
  readonly churnTopics: readonly string[];
  steady: HeartbeatLoad | null;
}

const ms = (name: string): Metric => ({ name, unit: 'ms', lowerIsBetter: true });

/** Per-run values of one side, by case and metric. */
class Samples {
  private readonly values = new Map<string, Map<string, { metric: Metric; values: number[] }>>();

  push(c: string, metric: Metric, value: number): void {
    let byMetric = this.values.get(c);
    if (byMetric === undefined) this.values.set(c, (byMetric = new Map()));
    let entry = byMetric.get(metric.name);
    if (entry === undefined) byMetric.set(metric.name, (entry = { metric, values: [] }));
    entry.values.push(value);
  }

  /** Into the report, each case's on and off rows together: the recorder-on broker's compared with the recorder-off one's. */
  static addTo(rec: Recorder, on: Samples, off: Samples, noRatio: ReadonlySet<string>): void {
    const cases = [...new Set([...on.values.keys(), ...off.values.keys()])];
    for (const c of cases) {
      for (const [setting, samples] of [['on', on], ['off', off]] as const) {
        for (const { metric, values } of samples.values.get(c)?.values() ?? []) {
          const compared = setting === 'on' && !noRatio.has(metric.name);
          rec.add({ case: `${c}, recorder ${setting}`, client: 'raw', broker: 'brook', ...(compared ? { vsCase: `${c}, recorder off` } : {}) }, metric, values);
        }
      }
    }
  }
}

/** The next offset of the timeline topic: entries written so far (0 while it does not exist). */
async function timelineEntries(bootstrap: string): Promise<number> {
  const conn = await connect(bootstrap, 'brook-bench-timeline');
  try {
    const r = await conn.request(Api.ListOffsets, { replicaId: -1, isolationLevel: 0, topics: [{ name: TIMELINE_TOPIC, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] }, { version: 5 });
    const p = r.topics[0]?.partitions[0];
    return p === undefined || p.errorCode !== 0 ? 0 : Number(p.offset);
  } finally {
    conn.close();
  }
}

/** Both settings in an order alternating with the run, so neither always goes first. */
function alternate(sides: readonly Side[], run: number): Side[] {
  return run % 2 === 1 ? [...sides] : [...sides].reverse();
}

async function measureCommits(ctx: ScenarioContext, sides: readonly Side[], sizes: Sizes, samples: Record<Setting, Samples>): Promise<void> {
  const conns = new Map(await Promise.all(sides.map(async (s) => [s.setting, await Promise.all(Array.from({ length: COMMIT_CONNECTIONS }, () => connect(s.broker.bootstrap)))] as const)));
  try {
    // Warm-up, not recorded: connections, JIT, the offsets topic's first writes.
    for (const s of sides) await commitThroughput(conns.get(s.setting)!, uniqueName('bench-recorder-warmup'), s.topic, 1, Math.min(2_000, sizes.commits), COMMIT_IN_FLIGHT);
    for (let run = 1; run <= ctx.runs; run++) {
      for (const s of alternate(sides, run)) {
        progress(`recorder: commits, recorder ${s.setting}, run ${run}/${ctx.runs}`);
        const cpu = cpuMsOf(s.broker.pid);
        const rate = await commitThroughput(conns.get(s.setting)!, uniqueName('bench-recorder-commits'), s.topic, 1, sizes.commits, COMMIT_IN_FLIGHT);
        samples[s.setting].push('1 partition/commit', { name: 'commits', unit: 'commits/s', lowerIsBetter: false }, rate);
        samples[s.setting].push('1 partition/commit', { name: 'broker CPU per 1,000 commits', unit: 'ms', lowerIsBetter: true }, ((cpuMsOf(s.broker.pid) - cpu) / sizes.commits) * 1000);
        progress(`recorder: commits, recorder ${s.setting}: ${rate.toFixed(0)} commits/s`);
      }
    }
  } finally {
    for (const list of conns.values()) for (const c of list) c.close();
  }
}

/**
 * Both brokers' steady members join at once (each the other's load alike), then stay for the
 * rest of the scenario. One timer sends both fleets' heartbeats, the two in turn first: with a
 * timer each, the fleet whose timer fired first always waited for the other's sends before its
 * answers were read (an earlier run measured that as a 0.2 ms higher p50 on whichever broker's
 * fleet started first).
 */
async function startSteady(sides: readonly Side[], sizes: Sizes, samples: Record<Setting, Samples>, label: string): Promise<() => void> {
  for (const s of sides) {
    s.steady = new HeartbeatLoad({
      bootstrap: s.broker.bootstrap, topic: s.topic, groups: sizes.steadyGroups, membersPerGroup: STEADY_MEMBERS,
      connections: Math.min(STEADY_CONNECTIONS, sizes.steadyGroups), heartbeatIntervalMs: STEADY_HEARTBEAT_MS,
      groupPrefix: uniqueName('bench-recorder-steady'), externalTicks: true,
    });
  }
  let flip = false;
  const ticker = setInterval(() => {
    flip = !flip;
    for (const s of flip ? sides : [...sides].reverse()) s.steady!.tick();
  }, TICK_MS);
  const stop = (): void => clearInterval(ticker);
  try {
    await Promise.all(sides.map((s) => joinSteady(s, samples, label)));
  } catch (err) {
    stop();
    throw err;
  }
  return stop;
}

async function joinSteady(s: Side, samples: Record<Setting, Samples>, label: string): Promise<void> {
  const load = s.steady!;
  const started = performance.now();
  const cpu = cpuMsOf(s.broker.pid);
  await load.start();
  await load.settled(1, 300_000, 50);
  samples[s.setting].push(label, ms('to converged'), performance.now() - started);
  samples[s.setting].push(label, ms('broker CPU'), cpuMsOf(s.broker.pid) - cpu);
  progress(`recorder: ${label}, recorder ${s.setting}: converged in ${(performance.now() - started).toFixed(0)} ms`);
}

async function measureSteady(ctx: ScenarioContext, sides: readonly Side[], sizes: Sizes, samples: Record<Setting, Samples>, label: string): Promise<void> {
  for (let run = 1; run <= ctx.runs; run++) {
    for (const s of alternate(sides, run)) {
      progress(`recorder: ${label}, recorder ${s.setting}, window ${run}/${ctx.runs}`);
      const cpu = cpuMsOf(s.broker.pid);
      const w = await s.steady!.window(sizes.windowMs);
      const out = samples[s.setting];
      out.push(label, ms('heartbeat p50'), w.heartbeatP50Ms);
      out.push(label, ms('heartbeat p99'), w.heartbeatP99Ms);
      out.push(label, { name: 'heartbeats', unit: '/s', lowerIsBetter: false }, w.heartbeats / w.seconds);
      out.push(label, { name: 'broker CPU', unit: 'cores', lowerIsBetter: true }, (cpuMsOf(s.broker.pid) - cpu) / 1000 / w.seconds);
      out.push(label, { name: 'errors answered', unit: 'count', lowerIsBetter: true }, w.errors);
      // The recorder keeps each group's members, assignments and newest entries in memory: a larger heap to collect.
      out.push(label, { name: 'broker RSS', unit: 'MiB', lowerIsBetter: true }, (s.broker.rssBytes() ?? NaN) / (1024 * 1024));
    }
  }
}

/** One churn run on one broker: fresh groups form, `churnRounds` rounds of replacements, then everyone leaves. */
async function churnRun(s: Side, sizes: Sizes, shape: number, out: Samples): Promise<void> {
  const c = sizes.churn[shape]!;
  const { form: formLabel, churn: churnLabel } = churnLabels(c);
  const entriesBefore = await timelineEntries(s.broker.bootstrap);
  const load = new HeartbeatLoad({
    bootstrap: s.broker.bootstrap, topic: s.churnTopics[shape]!, groups: c.groups, membersPerGroup: c.members,
    connections: Math.min(c.groups * c.members, 20), heartbeatIntervalMs: CHURN_HEARTBEAT_MS, groupPrefix: uniqueName('bench-recorder-churn'),
  });
  try {
    let cpu = cpuMsOf(s.broker.pid);
    let started = performance.now();
    await load.start();
    await load.settled(1, 120_000, 5);
    out.push(formLabel, ms('to converged'), performance.now() - started);
    out.push(formLabel, ms('broker CPU'), cpuMsOf(s.broker.pid) - cpu);

    const rounds: number[] = [];
    s.steady!.beginWindow();
    load.beginWindow();
    cpu = cpuMsOf(s.broker.pid);
    started = performance.now();
    for (let round = 0; round < sizes.churnRounds; round++) {
      const t0 = performance.now();
      for (let g = 0; g < c.groups; g++) load.replace(g, round % c.members);
      await load.settled(1, 60_000, 5);
      rounds.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = cpuMsOf(s.broker.pid) - cpu;
    const steady = s.steady!.endWindow();
    const churning = load.endWindow();
    out.push(churnLabel, ms('round to converged, median'), median(rounds));
    out.push(churnLabel, { name: 'group changes', unit: '/s', lowerIsBetter: false }, (2 * c.groups * sizes.churnRounds) / seconds);
    out.push(churnLabel, ms('broker CPU per round'), cpuMs / sizes.churnRounds);
    out.push(churnLabel, ms('steady members heartbeat p50'), steady.heartbeatP50Ms);
    out.push(churnLabel, ms('steady members heartbeat p99'), steady.heartbeatP99Ms);
    out.push(churnLabel, ms('churning members heartbeat p99'), churning.heartbeatP99Ms);
    await load.leaveAll();
    // Entries of the whole run: formation, rounds, the groups emptying (as far as written when the leaves were answered).
    out.push(churnLabel, { name: 'timeline entries written', unit: 'count', lowerIsBetter: true }, (await timelineEntries(s.broker.bootstrap)) - entriesBefore);
    progress(`recorder: ${churnLabel}, recorder ${s.setting}: rounds median ${median(rounds).toFixed(0)} ms, broker CPU ${(cpuMs / sizes.churnRounds).toFixed(0)} ms/round`);
  } finally {
    load.close();
  }
}

function churnLabels(c: Churn): { form: string; churn: string } {
  return { form: `churn: ${c.groups} groups x ${c.members} form`, churn: `churn: ${c.groups} groups x ${c.members}, 1 leaves + 1 joins each per round` };
}

async function startSide(ctx: ScenarioContext, setting: Setting, sizes: Sizes): Promise<Side> {
  const base = ctx.pool.options('brook');
  const broker = await startBroker('brook', { ...base, config: { ...base.config, 'group.timeline.enable': setting === 'on' ? 'true' : 'false' } });
  try {
    const topic = uniqueName('bench-recorder-steady');
    await createTopic(broker.bootstrap, topic, STEADY_MEMBERS);
    const churnTopics: string[] = [];
    for (const c of sizes.churn) {
      churnTopics.push(uniqueName('bench-recorder-churn'));
      await createTopic(broker.bootstrap, churnTopics.at(-1)!, c.partitions);
    }
    progress(`recorder: broker with recorder ${setting} up at ${broker.bootstrap}`);
    return { setting, broker, topic, churnTopics, steady: null };
  } catch (err) {
    await broker.stop();
    throw err;
  }
}

export const recorderScenario: Scenario = {
  name: 'recorder',
  title: 'flight recorder cost: group.timeline.enable=true vs false (commits/s, heartbeat p50/p99, churn of members)',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    rec.caseRatio = 'on vs off';
    if (!ctx.brokers.includes('brook')) {
      rec.skipped.push('needs Brook\'s broker (--brokers without brook)');
      return rec.report();
    }
    const sizes = ctx.quick ? QUICK : FULL;
    const steadyMembers = sizes.steadyGroups * STEADY_MEMBERS;
    const steadyLabel = `${steadyMembers.toLocaleString('en-US')} members heartbeating`;
    const formSteadyLabel = `${steadyMembers.toLocaleString('en-US')} members join (both brokers at once)`;
    rec.notes.push('two Brook brokers in the same run, the same settings but group.timeline.enable (true / false); every measurement alternates between them (on, off, then off, on, ...) so the machine\'s other load weighs on both alike; "on vs off": the recorder-on figure against the recorder-off one, 1x no cost, below 1x its cost');
    rec.notes.push(`commits: ${COMMIT_CONNECTIONS} connections x ${COMMIT_IN_FLIGHT} OffsetCommit v8 in flight, 1 partition each, simple groups (generation -1), ${sizes.commits.toLocaleString('en-US')} per run, before any member joins`);
    rec.notes.push(`heartbeats: ${sizes.steadyGroups.toLocaleString('en-US')} consumer groups x ${STEADY_MEMBERS} raw ConsumerGroupHeartbeat v1 members per broker over ${Math.min(STEADY_CONNECTIONS, sizes.steadyGroups)} connections, each every ${STEADY_HEARTBEAT_MS} ms, live on both brokers from their joining to the end (so each window runs with both fleets heartbeating); windows of ${sizes.windowMs / 1000} s; latency from write to answer`);
    rec.notes.push(`churn: ${sizes.churn.map((c) => `${c.groups} groups x ${c.members} members on a ${c.partitions}-partition topic`).join('; ')}, heartbeating every ${CHURN_HEARTBEAT_MS} ms (and at once to acknowledge a new assignment); a round: in every group one member leaves (leave heartbeat) and a new one joins, timed until every member is at its group's epoch and had an unchanged answer (so it includes up to one heartbeat interval of the members' pace); ${sizes.churnRounds} rounds per run, on top of the steady members (whose heartbeat latency is measured meanwhile); each run ends with every churn member leaving`);
    const sides: Side[] = [];
    let stopTicker = (): void => undefined;
    const samples: Record<Setting, Samples> = { on: new Samples(), off: new Samples() };
    try {
      await rec.attempt('starting the brokers', async () => {
        // One after the other: start-up is not measured.
        sides.push(await startSide(ctx, 'on', sizes));
        sides.push(await startSide(ctx, 'off', sizes));
      });
      if (sides.length === 2) {
        await rec.attempt('commits', () => measureCommits(ctx, sides, sizes, samples));
        await rec.attempt('steady members', async () => {
          stopTicker = await startSteady(sides, sizes, samples, formSteadyLabel);
          await measureSteady(ctx, sides, sizes, samples, steadyLabel);
        });
        if (sides.every((s) => s.steady !== null)) {
          for (const [shape, c] of sizes.churn.entries()) {
            const label = churnLabels(c).churn;
            await rec.attempt(label, async () => {
              for (let run = 1; run <= ctx.runs; run++) {
                for (const s of alternate(sides, run)) {
                  progress(`recorder: ${label}, recorder ${s.setting}, run ${run}/${ctx.runs}`);
                  await churnRun(s, sizes, shape, samples[s.setting]);
                }
              }
            });
          }
        }
      }
    } finally {
      stopTicker();
      for (const s of sides) {
        s.steady?.close();
        await s.broker.stop().catch(() => undefined);
      }
    }
    Samples.addTo(rec, samples.on, samples.off, new Set(['timeline entries written', 'errors answered']));
    return rec.report();
  },
};
