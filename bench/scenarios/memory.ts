/**
 * Scenario 9: memory. Broker RSS idle with 1,000 partitions (10 topics x 100, fresh brokers),
 * and broker and client RSS while one Java consumer reads scenario 1's records.
 */
import { javaConsume, javaUnavailable } from '../clients/java.js';
import { startBroker } from '../lib/brokers.js';
import { progress } from '../lib/progress.js';
import { sampleRss } from '../lib/rss.js';
import { Recorder, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport, type TargetCheck } from '../lib/scenario.js';
import { createTopic, loadTopic, uniqueName } from '../lib/topics.js';
import { PARTITIONS, VALUE_BYTES, recordCount } from './consume.js';

const MiB = 2 ** 20;

export const memoryScenario: Scenario = {
  name: 'memory',
  title: 'memory: broker RSS idle with 1,000 partitions; broker and client RSS under scenario 1',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const topics = ctx.quick ? 2 : 10;
    const idleCase = `idle, ${topics * 100} partitions`;
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} idle`, async () => {
        const rss: number[] = [];
        for (let run = 1; run <= ctx.runs; run++) {
          progress(`memory: ${kind} ${idleCase}, run ${run}/${ctx.runs}`);
          // Quick: the shared broker (not fresh; no extra broker start).
          const broker = ctx.quick ? await ctx.pool.get(kind) : await startBroker(kind, ctx.pool.options(kind));
          try {
            for (let t = 0; t < topics; t++) await createTopic(broker.bootstrap, uniqueName('bench-memory'), 100);
            await new Promise((r) => setTimeout(r, ctx.quick ? 500 : 5000));
            rss.push((broker.rssBytes() ?? Number.NaN) / MiB);
          } finally {
            if (!ctx.quick) await broker.stop();
          }
        }
        rec.add({ case: idleCase, client: '-', broker: kind }, { name: 'RSS', unit: 'MiB', lowerIsBetter: true }, rss);
      });
      const why = javaUnavailable() ?? (ctx.quick && kind !== 'brook' ? 'not in quick mode' : null);
      if (why !== null) {
        rec.skipped.push(`under load: ${why}`);
        continue;
      }
      await rec.attempt(`${kind} under load`, async () => {
        const broker = await ctx.pool.get(kind);
        const records = recordCount(ctx.quick);
        const topic = uniqueName('bench-memory-load');
        await createTopic(broker.bootstrap, topic, PARTITIONS);
        await loadTopic(broker.bootstrap, topic, { records, valueBytes: VALUE_BYTES, partitions: PARTITIONS });
        const brokerPeak: number[] = [];
        const clientPeak: number[] = [];
        for (let run = 1; run <= ctx.runs; run++) {
          progress(`memory: ${kind} under consume load, run ${run}/${ctx.runs}`);
          const sampler = sampleRss(broker.pid, 50);
          const r = await javaConsume({ bootstrap: broker.bootstrap, topic, group: uniqueName('bench-memory-group'), records, timeoutMs: 600_000 });
          brokerPeak.push((sampler.stop() ?? Number.NaN) / MiB);
          clientPeak.push((r.clientRssBytes ?? Number.NaN) / MiB);
        }
        const where = { case: `consume ${records} x ${VALUE_BYTES} B`, client: 'java', broker: kind };
        rec.add(where, { name: 'broker peak RSS', unit: 'MiB', lowerIsBetter: true }, brokerPeak);
        rec.add(where, { name: 'client peak RSS', unit: 'MiB', lowerIsBetter: true }, clientPeak);
      });
    }
    const brook = rec.find({ case: idleCase, broker: 'brook' });
    const kafka = rec.find({ case: idleCase, broker: 'kafka' });
    const target: TargetCheck = brook && kafka
      ? { text: 'Brook broker memory a fraction of Kafka (idle, 1,000 partitions)', met: brook.median < kafka.median / 2, detail: `${brook.median.toFixed(0)} vs ${kafka.median.toFixed(0)} MiB` }
      : { text: 'Brook broker memory a fraction of Kafka (idle, 1,000 partitions)', met: null, detail: 'not measured on both brokers' };
    rec.notes.push('RSS from /proc VmRSS; the Kafka JVM runs with -Xms512m -Xmx1g (SerialGC, C1), so its RSS reflects its heap setting');
    return rec.report([target]);
  },
};
