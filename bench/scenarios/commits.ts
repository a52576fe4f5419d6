/**
 * Scenario 7: offset commits through the group coordinator with durable acknowledgement.
 * Raw OffsetCommit requests (lib/commits.ts), pipelined on one connection: commits/s with 1
 * and with 100 partitions per commit, and p50/p99 latency at a fixed 1,000 commits/s.
 */
import { commitLatency, commitThroughput, connect } from '../lib/commits.js';
import { progress } from '../lib/progress.js';
import { Recorder, checkTarget, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';

const CONNECTIONS = 8;
const IN_FLIGHT = 8;

export const commitsScenario: Scenario = {
  name: 'commits',
  title: 'offset commits: commits/s (1 and 100 partitions per commit), latency at 1,000 commits/s',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const count = ctx.quick ? { 1: 2_000, 100: 200 } : { 1: 50_000, 100: 5_000 };
    const latencyMs = ctx.quick ? 1_000 : 10_000;
    rec.notes.push(`${CONNECTIONS} connections x ${IN_FLIGHT} OffsetCommit v8 requests in flight, a simple group (generation -1) per connection; latency: round-robin over the same connections; ${count[1]} / ${count[100]} commits per run; latency: open loop at 1,000/s for ${latencyMs / 1000} s`);
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} broker`, async () => {
        const broker = await ctx.pool.get(kind);
        const topic = uniqueName('bench-commits');
        await createTopic(broker.bootstrap, topic, 100);
        const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => connect(broker.bootstrap)));
        try {
          // Latency first: at steady state, not in the writeback and cleaning that follow the
          // throughput runs' 1.6M commits (those would measure the burst, not the fixed rate).
          const p50: number[] = [];
          const p99: number[] = [];
          const sentP50: number[] = [];
          const sentP99: number[] = [];
          const late: number[] = [];
          // Warm-up, not recorded (3 s; quick: 0.5 s): connections, JIT, the new topic's files reaching disk.
          await commitLatency(conns, uniqueName('bench-commit-warmup'), topic, 1000, ctx.quick ? 500 : 3_000);
          for (let run = 1; run <= ctx.runs; run++) {
            progress(`commits: latency at 1,000/s on ${kind}, run ${run}/${ctx.runs}`);
            const r = await commitLatency(conns, uniqueName('bench-commit-latency'), topic, 1000, latencyMs);
            p50.push(r.p50);
            p99.push(r.p99);
            sentP50.push(r.sentP50);
            sentP99.push(r.sentP99);
            late.push(r.lateP99);
          }
          const where = { case: '1,000 commits/s', client: 'raw', broker: kind };
          rec.add(where, { name: 'p50 from send', unit: 'ms', lowerIsBetter: true }, sentP50);
          rec.add(where, { name: 'p99 from send', unit: 'ms', lowerIsBetter: true }, sentP99);
          rec.add(where, { name: 'p50 from schedule', unit: 'ms', lowerIsBetter: true }, p50);
          rec.add(where, { name: 'p99 from schedule', unit: 'ms', lowerIsBetter: true }, p99);
          rec.add(where, { name: 'generator send lateness p99', unit: 'ms', lowerIsBetter: true }, late);
          for (const per of [1, 100] as const) {
            const commitsPerSec: number[] = [];
            for (let run = 1; run <= ctx.runs; run++) {
              progress(`commits: ${per} partition(s) per commit on ${kind}, run ${run}/${ctx.runs}`);
              commitsPerSec.push(await commitThroughput(conns, uniqueName('bench-commit-group'), topic, per, count[per], IN_FLIGHT));
              progress(`commits: ${per}/commit on ${kind}: ${commitsPerSec.at(-1)!.toFixed(0)} commits/s`);
            }
            const where = { case: `${per} partition${per === 1 ? '' : 's'}/commit`, client: 'raw', broker: kind };
            rec.add(where, { name: 'commits', unit: 'commits/s', lowerIsBetter: false }, commitsPerSec);
            rec.add(where, { name: 'partition-offsets', unit: '/s', lowerIsBetter: false }, commitsPerSec.map((c) => c * per));
          }
        } finally {
          for (const c of conns) c.close();
        }
      });
    }
    const offsets = rec.measurements.filter((m) => m.broker === 'brook' && m.metric === 'partition-offsets').sort((a, b) => b.median - a.median)[0];
    return rec.report([
      checkTarget('commits >= 100,000 partition-offsets/s (Brook broker, best case)', offsets, (v) => v >= 100_000, (v) => `${Math.round(v)}/s (${offsets?.case})`),
      checkTarget('commit p99 <= 5 ms at 1,000 commits/s (Brook broker, from send)', rec.find({ case: '1,000 commits/s', broker: 'brook', metric: 'p99 from send' }), (v) => v <= 5, (v) => `${v.toFixed(2)} ms`),
      checkTarget('commit p99 <= 5 ms at 1,000 commits/s (Brook broker, from schedule: generator lateness included)', rec.find({ case: '1,000 commits/s', broker: 'brook', metric: 'p99 from schedule' }), (v) => v <= 5, (v) => `${v.toFixed(2)} ms`),
    ]);
  },
};
