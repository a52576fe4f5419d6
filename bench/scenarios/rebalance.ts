/**
 * Scenario 5: rebalance. A stable group of 100 members (quick: 10) on a 100-partition topic;
 * then one member leaves (close(): LeaveGroup, or the consumer protocol's leave heartbeat),
 * and separately one more joins. Measured: the time from the change to the stable state the
 * group settles in (every live member holds its partitions, all partitions owned once; the
 * start of the last stable stretch once members were quiet for 2 s), the partitions whose
 * owner changed, and the broker's CPU time over that interval (it includes the members'
 * heartbeats, so a client that takes longer also costs its broker more).
 *
 * Classic protocol: eager (range) and cooperative-sticky, the client's assignors. Consumer
 * protocol (KIP-848, always incremental): the broker's uniform and range assignors, each
 * compared with its classic counterpart of the same run (uniform with cooperative-sticky,
 * range with eager range). Every variant of a client runs once per round, rounds repeated
 * `runs` times, so protocols and assignors are interleaved.
 */
import type { AssignorName, GroupProtocolName } from '../clients/types.js';
import { cpuMsOf } from '../lib/cpu-time.js';
import { moved } from '../lib/group-events.js';
import { progress } from '../lib/progress.js';
import { Recorder, pairWanted, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';
import { clientProtocols, selectedGroupClients, startEvent, waitSettled, waitStable } from './group.js';
import { rebalanceTargets } from './targets.js';

type Change = 'leave' | 'join';

/**
 * The end of a rebalance is the start of the last stable stretch after the change, taken
 * once no member reported anything for this long (lib/group-events.ts, lastStable).
 */
const SETTLE_QUIET_MS = 2000;

interface Variant {
  protocol: GroupProtocolName;
  assignor: AssignorName;
  change: Change;
}

const ALL_VARIANTS: Variant[] = [
  { protocol: 'classic', assignor: 'range', change: 'leave' },
  { protocol: 'classic', assignor: 'range', change: 'join' },
  { protocol: 'classic', assignor: 'cooperative-sticky', change: 'leave' },
  { protocol: 'classic', assignor: 'cooperative-sticky', change: 'join' },
  { protocol: 'consumer', assignor: 'uniform', change: 'leave' },
  { protocol: 'consumer', assignor: 'uniform', change: 'join' },
  { protocol: 'consumer', assignor: 'range', change: 'leave' },
  { protocol: 'consumer', assignor: 'range', change: 'join' },
];

/** The case's label: "leave, eager (range)", "join, cooperative-sticky", "leave, consumer (uniform)". */
export function rebalanceCase(v: Variant): string {
  if (v.protocol === 'consumer') return `${v.change}, consumer (${v.assignor})`;
  return `${v.change}, ${v.assignor === 'range' ? 'eager (range)' : v.assignor}`;
}

/** The classic case a consumer-protocol case is compared with: uniform with cooperative-sticky, range with eager. */
function classicCounterpart(v: Variant): string | undefined {
  if (v.protocol !== 'consumer') return undefined;
  return rebalanceCase({ protocol: 'classic', assignor: v.assignor === 'uniform' ? 'cooperative-sticky' : 'range', change: v.change });
}

/** Full runs: every variant; quick runs: one classic and one consumer variant per client, alternating. */
function variants(quick: boolean, clientIndex: number, protocols: readonly GroupProtocolName[]): Variant[] {
  const chosen = quick
    ? (clientIndex % 2 === 0 ? [ALL_VARIANTS[0]!, ALL_VARIANTS[5]!] : [ALL_VARIANTS[3]!, ALL_VARIANTS[4]!])
    : ALL_VARIANTS;
  return chosen.filter((v) => protocols.includes(v.protocol));
}

export const rebalanceScenario: Scenario = {
  name: 'rebalance',
  title: 'rebalance of a 100-member group: one leaves / one joins, classic (eager, cooperative-sticky) vs consumer protocol',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const n = ctx.quick ? 10 : 100;
    const clients = selectedGroupClients(ctx, rec);
    rec.notes.push(`${n} members, ${n} partitions; the time runs from the client's 'leave' (before close()) or 'join' event to the stable state the group settles in (no member event for ${SETTLE_QUIET_MS} ms after it); broker CPU over that interval and the quiet time`);
    if (ctx.groupProtocols.includes('classic')) rec.notes.push(`classic: session.timeout.ms=45000, heartbeat.interval.ms=${ctx.heartbeatIntervalMs}`);
    if (ctx.groupProtocols.includes('consumer')) rec.notes.push(`consumer: both brokers with group.consumer.heartbeat.interval.ms=${ctx.heartbeatIntervalMs}, group.consumer.assignment.interval.ms=${ctx.assignmentIntervalMs}; consumer (uniform) vs cooperative-sticky, consumer (range) vs eager (range)`);
    if (ctx.groupProtocols.length > 1) rec.caseRatio = 'consumer vs classic';
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} broker`, async () => {
        const broker = await ctx.pool.get(kind);
        const topic = uniqueName(`bench-rebalance-${n}`);
        await createTopic(broker.bootstrap, topic, n);
        for (const [ci, client] of clients.entries()) {
          if (!pairWanted(ctx, ci, ctx.brokers.indexOf(kind))) continue;
          const chosen = variants(ctx.quick, ci, clientProtocols(ctx, rec, client));
          const results = new Map(chosen.map((v) => [v, { times: [] as number[], movedCounts: [] as number[], brokerCpu: [] as number[], failed: false }]));
          for (let run = 1; run <= ctx.runs; run++) {
            for (const v of chosen) {
              const r = results.get(v)!;
              if (r.failed) continue;
              const label = rebalanceCase(v);
              await rec.attempt(`${client.name} ${label} on ${kind}`, async () => {
                try {
                  progress(`rebalance: ${client.name} ${label} on ${kind}, run ${run}/${ctx.runs}`);
                  const session = await client.start({
                    bootstrap: broker.bootstrap, topic, group: uniqueName('bench-rebalance'), members: n, assignor: v.assignor,
                    timeoutMs: 120_000, heartbeatIntervalMs: ctx.heartbeatIntervalMs, protocol: v.protocol,
                  });
                  try {
                    while (startEvent(session) === null) await session.nextEvent(500);
                    const before = await waitStable(session, n, n, startEvent(session)!, 180_000);
                    // Let the group settle (no rebalance in flight) before the change.
                    await new Promise((resolve) => setTimeout(resolve, 1000));
                    const count = session.events.length;
                    const cpuBefore = cpuMsOf(broker.pid);
                    if (v.change === 'leave') session.leave(0);
                    else session.join();
                    const deadline = Date.now() + 60_000;
                    let changeAt: number | undefined;
                    while (changeAt === undefined) {
                      const e = session.events.slice(count).find((x) => x.ev === v.change);
                      if (e !== undefined) changeAt = e.t;
                      else if (Date.now() > deadline) throw new Error(`no ${v.change} event`);
                      else await session.nextEvent(250);
                    }
                    // +1 us: the replay must have applied the change itself before it checks.
                    const stableAfter = await waitSettled(session, n, n, changeAt + 1, SETTLE_QUIET_MS, 60_000);
                    r.brokerCpu.push(cpuMsOf(broker.pid) - cpuBefore);
                    r.times.push((stableAfter.atUs - changeAt) / 1000);
                    r.movedCounts.push(moved(before.owners, stableAfter.owners));
                    progress(`rebalance: ${client.name} ${label} on ${kind}: ${((stableAfter.atUs - changeAt) / 1000).toFixed(0)} ms, ${r.movedCounts.at(-1)} partitions moved`);
                  } finally {
                    await session.close();
                  }
                } catch (err) {
                  r.failed = true;
                  throw err;
                }
              });
            }
          }
          for (const [v, r] of results) {
            const vsCase = classicCounterpart(v);
            const where = { case: rebalanceCase(v), client: client.name, broker: kind, ...(vsCase !== undefined ? { vsCase } : {}) };
            rec.add(where, { name: 'to stable', unit: 'ms', lowerIsBetter: true }, r.times);
            rec.add(where, { name: 'partitions moved', unit: 'count', lowerIsBetter: true }, r.movedCounts);
            rec.add(where, { name: 'broker CPU', unit: 'ms', lowerIsBetter: true }, r.brokerCpu);
          }
        }
      });
    }
    return rec.report(rebalanceTargets(rec, clients.map((c) => c.name), ctx.groupProtocols));
  },
};
