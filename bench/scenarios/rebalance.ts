/**
 * Scenario 5: rebalance. A stable group of 100 members (quick: 10) on a 100-partition topic;
 * then one member leaves (close(): LeaveGroup), and separately one more joins. Measured: the
 * time from the change to the next stable state (every live member holds its partitions, all
 * partitions owned once), for eager (range) and cooperative-sticky, and the partitions whose
 * owner changed, and the broker's CPU time over that interval (it includes the members'
 * heartbeats, so a client that takes longer also costs its broker more).
 */
import type { AssignorName } from '../clients/types.js';
import { cpuMsOf } from '../lib/cpu-time.js';
import { moved } from '../lib/group-events.js';
import { progress } from '../lib/progress.js';
import { Recorder, checkTarget, pairWanted, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';
import { selectedGroupClients, startEvent, waitStable } from './group.js';

const ALL_VARIANTS: [AssignorName, 'leave' | 'join'][] = [['range', 'leave'], ['range', 'join'], ['cooperative-sticky', 'leave'], ['cooperative-sticky', 'join']];

/** Full runs: every variant; quick runs: one per client, alternating. */
function variants(quick: boolean, clientIndex: number): [AssignorName, 'leave' | 'join'][] {
  return quick ? [clientIndex % 2 === 0 ? ALL_VARIANTS[0]! : ALL_VARIANTS[3]!] : ALL_VARIANTS;
}

export const rebalanceScenario: Scenario = {
  name: 'rebalance',
  title: 'rebalance of a 100-member group: one leaves / one joins, eager vs cooperative-sticky',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const n = ctx.quick ? 10 : 100;
    const clients = selectedGroupClients(ctx, rec);
    rec.notes.push(`${n} members, ${n} partitions; the time runs from the client's 'leave' (before close()) or 'join' event to the next stable state`);
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} broker`, async () => {
        const broker = await ctx.pool.get(kind);
        const topic = uniqueName(`bench-rebalance-${n}`);
        await createTopic(broker.bootstrap, topic, n);
        for (const [ci, client] of clients.entries()) {
          if (!pairWanted(ctx, ci, ctx.brokers.indexOf(kind))) continue;
          for (const [assignor, change] of variants(ctx.quick, ci)) {
            {
              const label = `${change}, ${assignor === 'range' ? 'eager (range)' : assignor}`;
              await rec.attempt(`${client.name} ${label} on ${kind}`, async () => {
                const times: number[] = [];
                const movedCounts: number[] = [];
                const brokerCpu: number[] = [];
                for (let run = 1; run <= ctx.runs; run++) {
                  progress(`rebalance: ${client.name} ${label} on ${kind}, run ${run}/${ctx.runs}`);
                  const session = await client.start({ bootstrap: broker.bootstrap, topic, group: uniqueName('bench-rebalance'), members: n, assignor, timeoutMs: 120_000, heartbeatIntervalMs: ctx.heartbeatIntervalMs });
                  try {
                    while (startEvent(session) === null) await session.nextEvent(500);
                    const before = await waitStable(session, n, n, startEvent(session)!, 180_000);
                    // Let the group settle (no rebalance in flight) before the change.
                    await new Promise((r) => setTimeout(r, 1000));
                    const count = session.events.length;
                    const cpuBefore = cpuMsOf(broker.pid);
                    if (change === 'leave') session.leave(0);
                    else session.join();
                    const deadline = Date.now() + 60_000;
                    let changeAt: number | undefined;
                    while (changeAt === undefined) {
                      const e = session.events.slice(count).find((x) => x.ev === change);
                      if (e !== undefined) changeAt = e.t;
                      else if (Date.now() > deadline) throw new Error(`no ${change} event`);
                      else await session.nextEvent(250);
                    }
                    // +1 us: the replay must have applied the change itself before it checks.
                    const stableAfter = await waitStable(session, n, n, changeAt + 1, 60_000);
                    brokerCpu.push(cpuMsOf(broker.pid) - cpuBefore);
                    times.push((stableAfter.atUs - changeAt) / 1000);
                    movedCounts.push(moved(before.owners, stableAfter.owners));
                    progress(`rebalance: ${client.name} ${label} on ${kind}: ${((stableAfter.atUs - changeAt) / 1000).toFixed(0)} ms, ${movedCounts.at(-1)} partitions moved`);
                  } finally {
                    await session.close();
                  }
                }
                const where = { case: label, client: client.name, broker: kind };
                rec.add(where, { name: 'to stable', unit: 'ms', lowerIsBetter: true }, times);
                rec.add(where, { name: 'partitions moved', unit: 'count', lowerIsBetter: true }, movedCounts);
                rec.add(where, { name: 'broker CPU', unit: 'ms', lowerIsBetter: true }, brokerCpu);
              });
            }
          }
        }
      });
    }
    const targets = clients.flatMap((c) => ['leave, eager (range)', 'leave, cooperative-sticky'].map((label) =>
      checkTarget(`rebalance <= 200 ms (${c.name}, ${label}, Brook broker)`, rec.find({ case: label, client: c.name, broker: 'brook', metric: 'to stable' }), (v) => v <= 200, (v) => `${v.toFixed(0)} ms`)));
    return rec.report(targets);
  },
};
