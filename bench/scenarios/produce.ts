/**
 * Scenario 2: produce throughput. The same records as scenario 1 (1M x 100 B, quick 20k),
 * acks=all, into a fresh 6-partition topic per run, for every client on both brokers.
 */
import { throughputClients } from '../clients/registry.js';
import { createTopic, uniqueName } from '../lib/topics.js';
import { progress } from '../lib/progress.js';
import { sampleRss } from '../lib/rss.js';
import { Recorder, pairWanted, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { PARTITIONS, VALUE_BYTES, recordCount } from './consume.js';
import { throughputTargets } from './targets.js';

export const produceScenario: Scenario = {
  name: 'produce',
  title: 'produce throughput, acks=all, 100 B records over 6 partitions',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const records = recordCount(ctx.quick);
    const caseName = `${records} x ${VALUE_BYTES} B acks=all`;
    rec.notes.push(`${records} records with null keys into a fresh ${PARTITIONS}-partition topic per run; clients' default batching (Node clients: 1,000-record sends, 4 in flight)`);
    const clients = throughputClients.filter((c) => ctx.clients === null || ctx.clients.includes(c.name));
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} broker`, async () => {
        const broker = await ctx.pool.get(kind);
        for (const [ci, client] of clients.entries()) {
          if (!pairWanted(ctx, ci, ctx.brokers.indexOf(kind))) continue;
          const why = client.unavailable();
          if (why !== null) {
            rec.skipped.push(`${client.name} on ${kind}: ${why}`);
            continue;
          }
          await rec.attempt(`${client.name} on ${kind}`, async () => {
            const rates: number[] = [];
            const brokerRss: number[] = [];
            for (let run = 1; run <= ctx.runs; run++) {
              const topic = uniqueName('bench-produce');
              await createTopic(broker.bootstrap, topic, PARTITIONS);
              progress(`produce: ${client.name} on ${kind}, run ${run}/${ctx.runs}`);
              const sampler = sampleRss(broker.pid);
              const r = await client.produce({
                bootstrap: broker.bootstrap, topic, partitions: PARTITIONS, records, valueBytes: VALUE_BYTES, acks: -1,
                timeoutMs: ctx.quick ? 60_000 : 600_000,
              });
              brokerRss.push(sampler.stop() ?? Number.NaN);
              rates.push((r.records / r.ms) * 1000);
              progress(`produce: ${client.name} on ${kind}: ${Math.round((r.records / r.ms) * 1000)} records/s`);
            }
            const where = { case: caseName, client: client.name, broker: kind };
            rec.add(where, { name: 'throughput', unit: 'records/s', lowerIsBetter: false }, rates);
            rec.add(where, { name: 'broker peak RSS', unit: 'MiB', lowerIsBetter: true }, brokerRss.map((b) => b / 2 ** 20));
          });
        }
      });
    }
    return rec.report(throughputTargets(rec, caseName));
  },
};
