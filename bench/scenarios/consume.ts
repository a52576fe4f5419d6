/**
 * Scenario 1: consume throughput. 1M records of 100 B over 6 partitions (quick: 20k), one
 * consumer in a fresh group reading from the earliest offsets, for every client on Brook's
 * broker and on Kafka's. Also the broker's and (out-of-process) client's peak RSS meanwhile.
 */
import { throughputClients } from '../clients/registry.js';
import { createTopic, loadTopic, uniqueName } from '../lib/topics.js';
import { progress } from '../lib/progress.js';
import { sampleRss } from '../lib/rss.js';
import { Recorder, pairWanted, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { throughputTargets } from './targets.js';

export const PARTITIONS = 6;
export const VALUE_BYTES = 100;

export function recordCount(quick: boolean): number {
  return quick ? 20_000 : 1_000_000;
}

export const consumeScenario: Scenario = {
  name: 'consume',
  title: 'consume throughput, one consumer in a group, 100 B records over 6 partitions',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const records = recordCount(ctx.quick);
    const caseName = `${records} x ${VALUE_BYTES} B`;
    rec.notes.push(`${records} records, ${PARTITIONS} partitions, loaded before the clock starts; each run is a fresh group from the earliest offsets; throughput = records / (subscribe to last record), group join included; kcat: process wall time (it cannot time itself); "after first record" excludes the join`);
    const clients = throughputClients.filter((c) => ctx.clients === null || ctx.clients.includes(c.name));
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} broker`, async () => {
        const broker = await ctx.pool.get(kind);
        const topic = uniqueName('bench-consume');
        await createTopic(broker.bootstrap, topic, PARTITIONS);
        progress(`consume: loading ${records} records into ${kind}`);
        await loadTopic(broker.bootstrap, topic, { records, valueBytes: VALUE_BYTES, partitions: PARTITIONS });
        for (const [ci, client] of clients.entries()) {
          if (!pairWanted(ctx, ci, ctx.brokers.indexOf(kind))) continue;
          const why = client.unavailable();
          if (why !== null) {
            rec.skipped.push(`${client.name} on ${kind}: ${why}`);
            continue;
          }
          await rec.attempt(`${client.name} on ${kind}`, async () => {
            const rates: number[] = [];
            const steady: number[] = [];
            const firstRecord: number[] = [];
            const brokerRss: number[] = [];
            const clientRss: number[] = [];
            for (let run = 1; run <= ctx.runs; run++) {
              progress(`consume: ${client.name} on ${kind}, run ${run}/${ctx.runs}`);
              const brokerSampler = sampleRss(broker.pid);
              const r = await client.consume({
                bootstrap: broker.bootstrap, topic, group: uniqueName('bench-consume-group'), records,
                timeoutMs: ctx.quick ? 60_000 : 600_000,
              });
              brokerRss.push(brokerSampler.stop() ?? Number.NaN);
              if (r.clientRssBytes !== null) clientRss.push(r.clientRssBytes);
              rates.push((r.records / r.ms) * 1000);
              if (r.firstRecordMs !== undefined && r.firstRecordMs !== null && r.firstRecordMs >= 0 && r.ms > r.firstRecordMs) {
                firstRecord.push(r.firstRecordMs);
                steady.push((r.records / (r.ms - r.firstRecordMs)) * 1000);
              }
              progress(`consume: ${client.name} on ${kind}: ${Math.round((r.records / r.ms) * 1000)} records/s`);
            }
            const where = { case: caseName, client: client.name, broker: kind };
            rec.add(where, { name: 'throughput', unit: 'records/s', lowerIsBetter: false }, rates);
            rec.add(where, { name: 'after first record', unit: 'records/s', lowerIsBetter: false }, steady);
            rec.add(where, { name: 'to first record', unit: 'ms', lowerIsBetter: true }, firstRecord);
            rec.add(where, { name: 'broker peak RSS', unit: 'MiB', lowerIsBetter: true }, brokerRss.map((b) => b / 2 ** 20));
            rec.add(where, { name: 'client peak RSS', unit: 'MiB', lowerIsBetter: true }, clientRss.map((b) => b / 2 ** 20));
          });
        }
      });
    }
    return rec.report(throughputTargets(rec, caseName));
  },
};

