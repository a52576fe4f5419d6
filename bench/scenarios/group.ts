/**
 * Scenario 4: group formation. N members (10, 100, 500, 1,000; quick: 10; `--group-sizes`) of one group, all in one
 * client process (Java: threads in one JVM; librdkafka: consumers in one python process), join
 * at once with group.initial.rebalance.delay.ms=0 on both brokers; measured is the time from
 * the client's start signal until every member holds its assignment of an N-partition topic,
 * and the broker's CPU time from the client's launch to then (the broker's work for the
 * formation, which a client that is slow on its own does not hide).
 *
 * Each client runs with every group protocol of the run (`--group-protocol`, default classic
 * and consumer) that it speaks, the protocols interleaved run by run; the consumer protocol's
 * cases are compared with the classic ones of the same run ("consumer vs classic").
 */
import { groupClients, groupClientsMissing } from '../clients/registry.js';
import type { AssignorName, GroupClient, GroupProtocolName, GroupSession } from '../clients/types.js';
import { cpuMsOf } from '../lib/cpu-time.js';
import { firstStable, lastStable } from '../lib/group-events.js';
import { progress } from '../lib/progress.js';
import { Recorder, pairWanted, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';
import { groupTargets } from './targets.js';

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

/**
 * Waits until the group is stable after `fromUs` and no member event came for `quietMs`;
 * returns the start of that last stable stretch (lastStable), so a state that only looks
 * stable on the way is not taken for the end of a rebalance.
 */
export async function waitSettled(session: GroupSession, members: number, partitions: number, fromUs: number, quietMs: number, timeoutMs: number): Promise<{ atUs: number; owners: Map<number, number> }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const error = session.events.find((e) => e.ev === 'error');
    if (error !== undefined && error.ev === 'error') throw new Error(`member ${error.m}: ${error.message}`);
    const stable = lastStable(session.events, members, partitions, fromUs);
    const lastUs = session.events.reduce((t, e) => Math.max(t, e.t), 0);
    const quietFor = Date.now() - lastUs / 1000;
    if (stable !== null && quietFor >= quietMs) return stable;
    if (Date.now() > deadline) throw new Error(`group not stable after ${timeoutMs} ms (${session.events.length} events)`);
    await session.nextEvent(stable !== null ? Math.max(10, quietMs - quietFor) : 250);
  }
}

export function startEvent(session: GroupSession): number | null {
  const e = session.events.find((x) => x.ev === 'start');
  return e === undefined ? null : e.t;
}

export function selectedGroupClients(ctx: ScenarioContext, rec: Recorder): GroupClient[] {
  for (const missing of groupClientsMissing) {
    if (ctx.clients === null || ctx.clients.includes(missing.name)) rec.skipped.push(`${missing.name}: ${missing.why}`);
  }
  return groupClients.filter((c) => {
    if (ctx.clients !== null && !ctx.clients.includes(c.name)) return false;
    const why = c.unavailable();
    if (why !== null) rec.skipped.push(`${c.name}: ${why}`);
    return why === null;
  });
}

/** The protocols of this run `client` speaks; the others are recorded as skipped. */
export function clientProtocols(ctx: ScenarioContext, rec: Recorder, client: GroupClient): GroupProtocolName[] {
  return ctx.groupProtocols.filter((p) => {
    const why = client.protocolUnavailable(p);
    if (why !== null && !rec.skipped.some((s) => s.startsWith(`${client.name} (${p} protocol)`))) rec.skipped.push(`${client.name} (${p} protocol): ${why}`);
    return why === null;
  });
}

/** Formation's assignor per protocol: the client's range (classic), the broker's default, uniform (consumer). */
export const FORMATION_ASSIGNOR: Record<GroupProtocolName, AssignorName> = { classic: 'range', consumer: 'uniform' };

export function formationCase(n: number, protocol: GroupProtocolName): string {
  return `N=${n} ${protocol}`;
}

export const groupScenario: Scenario = {
  name: 'group',
  title: 'group formation: N members joining at once, time until all hold their assignment',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const sizes = ctx.groupSizes ?? (ctx.quick ? [10] : [10, 100, 500, 1000]);
    const clients = selectedGroupClients(ctx, rec);
    if (ctx.groupProtocols.includes('classic')) rec.notes.push(`classic: range assignor (the client's), session.timeout.ms=45000, heartbeat.interval.ms=${ctx.heartbeatIntervalMs}`);
    if (ctx.groupProtocols.includes('consumer')) rec.notes.push(`consumer: the broker's uniform assignor; both brokers with group.consumer.heartbeat.interval.ms=${ctx.heartbeatIntervalMs}, group.consumer.assignment.interval.ms=${ctx.assignmentIntervalMs}, group.consumer.session.timeout.ms=45000`);
    rec.notes.push('topic with N partitions; start = all members constructed, then subscribed at once; protocols interleaved run by run');
    if (ctx.groupProtocols.length > 1) rec.caseRatio = 'consumer vs classic';
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} broker`, async () => {
        const broker = await ctx.pool.get(kind);
        for (const n of sizes) {
          const topic = uniqueName(`bench-group-${n}`);
          await createTopic(broker.bootstrap, topic, n);
          for (const [ci, client] of clients.entries()) {
            if (!pairWanted(ctx, ci, ctx.brokers.indexOf(kind))) continue;
            const protocols = clientProtocols(ctx, rec, client);
            const results = new Map(protocols.map((p) => [p, { times: [] as number[], rss: [] as number[], brokerCpu: [] as number[], failed: false }]));
            for (let run = 1; run <= ctx.runs; run++) {
              for (const protocol of protocols) {
                const r = results.get(protocol)!;
                if (r.failed) continue;
                await rec.attempt(`${client.name} N=${n} ${protocol} on ${kind}`, async () => {
                  try {
                    progress(`group: ${client.name} N=${n} ${protocol} on ${kind}, run ${run}/${ctx.runs}`);
                    const cpuBefore = cpuMsOf(broker.pid);
                    const session = await client.start({
                      bootstrap: broker.bootstrap, topic, group: uniqueName('bench-group'), members: n, assignor: FORMATION_ASSIGNOR[protocol],
                      timeoutMs: 120_000, heartbeatIntervalMs: ctx.heartbeatIntervalMs, protocol,
                    });
                    try {
                      const startDeadline = Date.now() + 120_000;
                      while (startEvent(session) === null) {
                        if (Date.now() > startDeadline) throw new Error('client did not start');
                        await session.nextEvent(500);
                      }
                      const start = startEvent(session)!;
                      const stable = await waitStable(session, n, n, start, ctx.quick ? 60_000 : 180_000);
                      r.brokerCpu.push(cpuMsOf(broker.pid) - cpuBefore);
                      r.times.push((stable.atUs - start) / 1000);
                      r.rss.push((session.rssBytes() ?? Number.NaN) / 2 ** 20);
                      progress(`group: ${client.name} N=${n} ${protocol} on ${kind}: stable after ${((stable.atUs - start) / 1000).toFixed(0)} ms`);
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
            for (const [protocol, r] of results) {
              const where = { case: formationCase(n, protocol), client: client.name, broker: kind, ...(protocol === 'consumer' ? { vsCase: formationCase(n, 'classic') } : {}) };
              rec.add(where, { name: 'all assigned', unit: 'ms', lowerIsBetter: true }, r.times);
              rec.add(where, { name: 'broker CPU', unit: 'ms', lowerIsBetter: true }, r.brokerCpu);
              rec.add(where, { name: 'client RSS', unit: 'MiB', lowerIsBetter: true }, r.rss);
            }
          }
        }
      });
    }
    return rec.report(groupTargets(rec, clients.map((c) => c.name), ctx.groupProtocols));
  },
};
