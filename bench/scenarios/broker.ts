/**
 * Scenario 3: broker against broker. The same Java load (kafka-clients 4.1.2 BenchProducer /
 * BenchConsumer) against Brook's broker and Kafka's: 100 B and 1 KB records, acks=1 and
 * acks=all; produce MB/s with p50/p99 send-to-ack latency, then fetch MB/s reading the same
 * topic back (one consumer, fresh group). Also start-up time and idle RSS of fresh brokers,
 * and raw loopback TCP throughput as the ceiling measured in the same run.
 */
import { javaConsume, javaProduce, javaUnavailable } from '../clients/java.js';
import { startBroker } from '../lib/brokers.js';
import { loopbackThroughput } from '../lib/net.js';
import { progress } from '../lib/progress.js';
import { sampleRss } from '../lib/rss.js';
import { Recorder, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport, type TargetCheck } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';

const PARTITIONS = 6;
const MB = 1e6;

function cases(quick: boolean): { valueBytes: number; records: number }[] {
  return quick
    ? [{ valueBytes: 100, records: 20_000 }]
    : [{ valueBytes: 100, records: 1_000_000 }, { valueBytes: 1000, records: 200_000 }];
}

export const brokerScenario: Scenario = {
  name: 'broker',
  title: 'broker vs broker: same Java load, produce/fetch MB/s, latency, start-up, RSS',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const brokers = usableBrokers(ctx, rec);
    await rec.attempt('loopback TCP', async () => {
      const values: number[] = [];
      for (let run = 1; run <= ctx.runs; run++) values.push((await loopbackThroughput(ctx.quick ? 300 : 2000)) / MB);
      rec.add({ case: 'loopback TCP, 1 stream', client: 'node net', broker: 'none' }, { name: 'throughput', unit: 'MB/s', lowerIsBetter: false }, values);
    });
    // Start-up and idle memory: fresh brokers, empty data dirs.
    for (const kind of brokers) {
      await rec.attempt(`${kind} start-up`, async () => {
        const startup: number[] = [];
        const rss: number[] = [];
        if (ctx.quick) {
          // Quick: the shared broker's own start (no extra broker starts).
          const b = await ctx.pool.get(kind);
          startup.push(b.startupMs);
          rss.push((b.rssBytes() ?? Number.NaN) / 2 ** 20);
        }
        for (let run = 1; !ctx.quick && run <= ctx.runs; run++) {
          progress(`broker: ${kind} start-up, run ${run}/${ctx.runs}`);
          const b = await startBroker(kind);
          startup.push(b.startupMs);
          await new Promise((r) => setTimeout(r, 2000));
          rss.push((b.rssBytes() ?? Number.NaN) / 2 ** 20);
          await b.stop();
        }
        const where = { case: 'empty broker', client: '-', broker: kind };
        rec.add(where, { name: 'start-up', unit: 'ms', lowerIsBetter: true }, startup);
        rec.add(where, { name: 'idle RSS', unit: 'MiB', lowerIsBetter: true }, rss);
      });
    }
    const why = javaUnavailable();
    if (why !== null) {
      rec.skipped.push(`Java load: ${why}`);
      return rec.report();
    }
    for (const kind of brokers) {
      await rec.attempt(`${kind} load`, async () => {
        const broker = await ctx.pool.get(kind);
        const quick = ctx.quick;
        for (const { valueBytes, records } of cases(quick)) {
          for (const acks of quick ? [-1] as const : [1, -1] as const) {
            const caseName = `${valueBytes} B acks=${acks === -1 ? 'all' : '1'}`;
            await rec.attempt(`${kind} ${caseName}`, async () => {
              const produce: number[] = [];
              const p50: number[] = [];
              const p99: number[] = [];
              const fetch: number[] = [];
              const peak: number[] = [];
              for (let run = 1; run <= ctx.runs; run++) {
                const topic = uniqueName('bench-broker');
                await createTopic(broker.bootstrap, topic, PARTITIONS);
                progress(`broker: ${kind} ${caseName}, run ${run}/${ctx.runs}`);
                const sampler = sampleRss(broker.pid);
                const timeoutMs = ctx.quick ? 60_000 : 600_000;
                const p = await javaProduce({ bootstrap: broker.bootstrap, topic, partitions: PARTITIONS, records, valueBytes, acks, timeoutMs });
                produce.push(p.bytes / MB / (p.ms / 1000));
                p50.push(p.p50Ms);
                p99.push(p.p99Ms);
                const c = await javaConsume({ bootstrap: broker.bootstrap, topic, group: uniqueName('bench-broker-group'), records, timeoutMs });
                // From the first record on: the group join is scenario 4's business.
                fetch.push(c.bytes / MB / ((c.ms - Math.max(0, c.firstMs)) / 1000));
                peak.push((sampler.stop() ?? Number.NaN) / 2 ** 20);
                progress(`broker: ${kind} ${caseName}: produce ${(p.bytes / MB / (p.ms / 1000)).toFixed(1)} MB/s p99 ${p.p99Ms.toFixed(1)} ms, fetch ${fetch.at(-1)!.toFixed(1)} MB/s`);
              }
              const where = { case: `${records} x ${caseName}`, client: 'java', broker: kind };
              rec.add(where, { name: 'produce', unit: 'MB/s', lowerIsBetter: false }, produce);
              rec.add(where, { name: 'produce p50', unit: 'ms', lowerIsBetter: true }, p50);
              rec.add(where, { name: 'produce p99', unit: 'ms', lowerIsBetter: true }, p99);
              rec.add(where, { name: 'fetch', unit: 'MB/s', lowerIsBetter: false }, fetch);
              rec.add(where, { name: 'broker peak RSS', unit: 'MiB', lowerIsBetter: true }, peak);
            });
          }
        }
      });
    }
    rec.notes.push('fetch MB/s runs from the first record to the last (group join excluded); MB = 10^6 bytes of record values; latency is each record\'s send() to acknowledgement at full load (queueing included)');
    rec.notes.push('durability differs by design: Brook acks=all waits for an fsync (group commit), Kafka acks=all with one replica does not fsync');
    return rec.report(brokerTargets(rec));
  },
};

function brokerTargets(rec: Recorder): TargetCheck[] {
  const pairs = (metric: string): { brook: number; kafka: number }[] => rec.measurements
    .filter((m) => m.broker === 'brook' && m.metric === metric)
    .flatMap((m) => {
      const k = rec.find({ case: m.case, client: m.client, broker: 'kafka', metric });
      return k ? [{ brook: m.median, kafka: k.median }] : [];
    });
  const all = (text: string, metric: string, ok: (p: { brook: number; kafka: number }) => boolean): TargetCheck => {
    const ps = pairs(metric);
    if (ps.length === 0) return { text, met: null, detail: 'not measured on both brokers' };
    const good = ps.filter(ok).length;
    return { text, met: good === ps.length, detail: `${good} of ${ps.length} cases` };
  };
  return [
    all('Brook broker produce MB/s >= Kafka', 'produce', (p) => p.brook >= p.kafka),
    all('Brook broker fetch MB/s >= Kafka', 'fetch', (p) => p.brook >= p.kafka),
    all('Brook broker produce p99 below Kafka', 'produce p99', (p) => p.brook < p.kafka),
    all('Brook broker start-up a fraction of Kafka', 'start-up', (p) => p.brook < p.kafka / 2),
    all('Brook broker memory a fraction of Kafka (idle)', 'idle RSS', (p) => p.brook < p.kafka / 2),
  ];
}
