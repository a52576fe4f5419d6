/**
 * Scenario 4: group formation. N members (10, 100, 500; quick: 10) of one group, all in one
 * client process (Java: threads in one JVM; librdkafka: consumers in one python process), join
 * at once with group.initial.rebalance.delay.ms=0 on both brokers; measured is the time from
 * the client's start signal until every member holds its assignment of an N-partition topic,
 * and the broker's CPU time from the client's launch to then (the broker's work for the
 * formation, which a client that is slow on its own does not hide).
 */
import { groupClients } from '../clients/registry.js';
import type { GroupClient, GroupSession } from '../clients/types.js';
import { cpuMsOf } from '../lib/cpu-time.js';
import { firstStable } from '../lib/group-events.js';
import { progress } from '../lib/progress.js';
import { Recorder, checkTarget, pairWanted, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';

/** Waits until the session's events show a stable group after `fromUs`; returns it. */
export async function waitStable(session: GroupSession, members: number, partitions: number, fromUs: number, timeoutMs: number): Promise<{ atUs: number; owners: Map<number, number> }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const error = session.events.find((e) => e.ev === 'error');
    if (error !== undefined && error.ev === 'error') throw new Error(`member ${error.m}: ${error.message}`);
    const stable = firstStable(session.events, members, partitions, fromUs);
    if (stable !== null) return stable;
    if (Date.now() > deadline) throw new Error(`group not stable after ${timeoutMs} ms (${session.events.length} events)`);
    await session.nextEvent(250);
  }
}

export function startEvent(session: GroupSession): number | null {
  const e = session.events.find((x) => x.ev === 'start');
  return e === undefined ? null : e.t;
}

export function selectedGroupClients(ctx: ScenarioContext, rec: Recorder): GroupClient[] {
  return groupClients.filter((c) => {
    if (ctx.clients !== null && !ctx.clients.includes(c.name)) return false;
    const why = c.unavailable();
    if (why !== null) rec.skipped.push(`${c.name}: ${why}`);
    return why === null;
  });
}

export const groupScenario: Scenario = {
  name: 'group',
  title: 'group formation: N members joining at once, time until all hold their assignment',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const sizes = ctx.quick ? [10] : [10, 100, 500];
    const clients = selectedGroupClients(ctx, rec);
    rec.notes.push(`classic protocol, range assignor, topic with N partitions, session.timeout.ms=45000, heartbeat.interval.ms=${ctx.heartbeatIntervalMs}; start = all members constructed, then subscribed at once`);
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} broker`, async () => {
        const broker = await ctx.pool.get(kind);
        for (const n of sizes) {
          const topic = uniqueName(`bench-group-${n}`);
          await createTopic(broker.bootstrap, topic, n);
          for (const [ci, client] of clients.entries()) {
            if (!pairWanted(ctx, ci, ctx.brokers.indexOf(kind))) continue;
            await rec.attempt(`${client.name} N=${n} on ${kind}`, async () => {
              const times: number[] = [];
              const rss: number[] = [];
              const brokerCpu: number[] = [];
              for (let run = 1; run <= ctx.runs; run++) {
                progress(`group: ${client.name} N=${n} on ${kind}, run ${run}/${ctx.runs}`);
                const cpuBefore = cpuMsOf(broker.pid);
                const session = await client.start({ bootstrap: broker.bootstrap, topic, group: uniqueName('bench-group'), members: n, assignor: 'range', timeoutMs: 120_000, heartbeatIntervalMs: ctx.heartbeatIntervalMs });
                try {
                  const startDeadline = Date.now() + 120_000;
                  while (startEvent(session) === null) {
                    if (Date.now() > startDeadline) throw new Error('client did not start');
                    await session.nextEvent(500);
                  }
                  const start = startEvent(session)!;
                  const stable = await waitStable(session, n, n, start, ctx.quick ? 60_000 : 180_000);
                  brokerCpu.push(cpuMsOf(broker.pid) - cpuBefore);
                  times.push((stable.atUs - start) / 1000);
                  rss.push((session.rssBytes() ?? Number.NaN) / 2 ** 20);
                  progress(`group: ${client.name} N=${n} on ${kind}: stable after ${((stable.atUs - start) / 1000).toFixed(0)} ms`);
                } finally {
                  await session.close();
                }
              }
              const where = { case: `N=${n}`, client: client.name, broker: kind };
              rec.add(where, { name: 'all assigned', unit: 'ms', lowerIsBetter: true }, times);
              rec.add(where, { name: 'broker CPU', unit: 'ms', lowerIsBetter: true }, brokerCpu);
              rec.add(where, { name: 'client RSS', unit: 'MiB', lowerIsBetter: true }, rss);
            });
          }
        }
      });
    }
    const targets = clients.map((c) => checkTarget(`100 members stable <= 500 ms (${c.name} client, Brook broker)`,
      rec.find({ case: 'N=100', client: c.name, broker: 'brook', metric: 'all assigned' }), (v) => v <= 500, (v) => `${v.toFixed(0)} ms`));
    return rec.report(targets);
  },
};
