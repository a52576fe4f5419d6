/**
 * Scenario 3: broker against broker. The same loads against Brook's broker and Kafka's: Java
 * (kafka-clients 4.4.0 BenchProducer / BenchConsumer) and librdkafka (bench/c/rdkafka_load.c,
 * which needs far less CPU per record, so more of the 2 cores go to the broker); 100 B and
 * 1 KB records, acks=1 and acks=all: produce MB/s (with latency at that full load), then
 * fetch MB/s reading the same topic back. Latency proper is measured at a fixed rate below
 * saturation (librdkafka, open loop). Also start-up time and idle RSS of fresh brokers, and
 * raw loopback TCP throughput as the ceiling measured in the same run.
 */
import { javaConsume, javaProduce, javaUnavailable } from '../clients/java.js';
import { rdkafkaConsume, rdkafkaLoadUnavailable, rdkafkaProduce } from '../clients/rdkafka-load.js';
import { startBroker, type BrokerKind } from '../lib/brokers.js';
import { loopbackThroughput } from '../lib/net.js';
import { progress } from '../lib/progress.js';
import { sampleRss } from '../lib/rss.js';
import { Recorder, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport, type TargetCheck } from '../lib/scenario.js';
import { createTopic, uniqueName } from '../lib/topics.js';

const PARTITIONS = 6;
const MB = 1e6;
/** The paced latency case: 100 B records at this rate (1 MB/s), for this long. */
const LATENCY_RATE = 10_000;
const LATENCY_SECONDS = 10;

function cases(quick: boolean): { valueBytes: number; records: number }[] {
  return quick
    ? [{ valueBytes: 100, records: 20_000 }]
    : [{ valueBytes: 100, records: 1_000_000 }, { valueBytes: 1000, records: 200_000 }];
}

export const brokerScenario: Scenario = {
  name: 'broker',
  title: 'broker vs broker: same Java and librdkafka loads, produce/fetch MB/s, latency, start-up, RSS',
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
          const b = await startBroker(kind, ctx.pool.options(kind));
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
    const loads = availableLoads(rec);
    for (const kind of brokers) {
      await rec.attempt(`${kind} load`, async () => {
        const broker = await ctx.pool.get(kind);
        for (const { valueBytes, records } of cases(ctx.quick)) {
          for (const acks of ctx.quick ? [-1] as const : [1, -1] as const) {
            const caseName = `${valueBytes} B acks=${acks === -1 ? 'all' : '1'}`;
            for (const load of loads) {
              await rec.attempt(`${kind} ${load.name} ${caseName}`, async () => {
                const m = { produce: [] as number[], p50: [] as number[], p99: [] as number[], fetch: [] as number[], peak: [] as number[] };
                for (let run = 1; run <= ctx.runs; run++) {
                  const topic = uniqueName('bench-broker');
                  await createTopic(broker.bootstrap, topic, PARTITIONS);
                  progress(`broker: ${kind} ${load.name} ${caseName}, run ${run}/${ctx.runs}`);
                  const sampler = sampleRss(broker.pid);
                  const timeoutMs = ctx.quick ? 60_000 : 600_000;
                  const p = await load.produce({ bootstrap: broker.bootstrap, topic, records, valueBytes, acks, timeoutMs });
                  m.produce.push(p.bytes / MB / (p.ms / 1000));
                  m.p50.push(p.p50Ms);
                  m.p99.push(p.p99Ms);
                  const c = await load.consume({ bootstrap: broker.bootstrap, topic, records, timeoutMs });
                  // From the first record on: the group join is scenario 4's business.
                  m.fetch.push(c.bytes / MB / ((c.ms - Math.max(0, c.firstMs)) / 1000));
                  m.peak.push((sampler.stop() ?? Number.NaN) / 2 ** 20);
                  progress(`broker: ${kind} ${load.name} ${caseName}: produce ${m.produce.at(-1)!.toFixed(1)} MB/s p99 ${p.p99Ms.toFixed(1)} ms, fetch ${m.fetch.at(-1)!.toFixed(1)} MB/s`);
                }
                const where = { case: `${records} x ${caseName}`, client: load.name, broker: kind };
                rec.add(where, { name: 'produce', unit: 'MB/s', lowerIsBetter: false }, m.produce);
                rec.add(where, { name: 'produce p50 at full load', unit: 'ms', lowerIsBetter: true }, m.p50);
                rec.add(where, { name: 'produce p99 at full load', unit: 'ms', lowerIsBetter: true }, m.p99);
                rec.add(where, { name: 'fetch', unit: 'MB/s', lowerIsBetter: false }, m.fetch);
                rec.add(where, { name: 'broker peak RSS', unit: 'MiB', lowerIsBetter: true }, m.peak);
              });
            }
          }
        }
        if (loads.some((l) => l.name === 'librdkafka')) await pacedLatency(ctx, rec, kind, broker.bootstrap);
      });
    }
    rec.notes.push('fetch MB/s runs from the first record to the last (group join excluded); MB = 10^6 bytes of record values');
    rec.notes.push('latency: each record\'s send to its acknowledgement. "At full load" includes the time records wait in the client\'s own buffer; "at N/s" paces the sends open-loop below saturation, so it is the broker\'s (and the network\'s) latency');
    rec.notes.push('durability differs by design: Brook acks=all waits for an fsync (group commit), Kafka acks=all with one replica does not fsync');
    return rec.report(brokerTargets(rec));
  },
};

interface LoadProduce { bootstrap: string; topic: string; records: number; valueBytes: number; acks: 1 | -1; timeoutMs: number }
interface Load {
  name: string;
  produce(spec: LoadProduce): Promise<{ bytes: number; ms: number; p50Ms: number; p99Ms: number }>;
  consume(spec: { bootstrap: string; topic: string; records: number; timeoutMs: number }): Promise<{ bytes: number; ms: number; firstMs: number }>;
}

/** Java's client (BenchProducer / BenchConsumer in a fresh group) and librdkafka (bench/c/rdkafka_load.c, assign). */
function availableLoads(rec: Recorder): Load[] {
  const loads: Load[] = [];
  const noJava = javaUnavailable();
  if (noJava === null) {
    loads.push({
      name: 'java',
      produce: (spec) => javaProduce({ ...spec, partitions: PARTITIONS }),
      consume: (spec) => javaConsume({ ...spec, group: uniqueName('bench-broker-group') }),
    });
  } else rec.skipped.push(`Java load: ${noJava}`);
  const noRdkafka = rdkafkaLoadUnavailable();
  if (noRdkafka === null) {
    loads.push({
      name: 'librdkafka',
      produce: (spec) => rdkafkaProduce({ ...spec, rate: 0 }),
      consume: (spec) => rdkafkaConsume({ ...spec, partitions: PARTITIONS }),
    });
  } else rec.skipped.push(`librdkafka load: ${noRdkafka}`);
  return loads;
}

/** Send-to-ack latency at a fixed rate well below saturation (librdkafka, open loop). */
async function pacedLatency(ctx: ScenarioContext, rec: Recorder, kind: BrokerKind, bootstrap: string): Promise<void> {
  const rate = LATENCY_RATE;
  const records = Math.round(rate * (ctx.quick ? 0.5 : LATENCY_SECONDS));
  for (const acks of [1, -1] as const) {
    const caseName = `100 B at ${rate}/s acks=${acks === -1 ? 'all' : '1'}`;
    await rec.attempt(`${kind} ${caseName}`, async () => {
      const p50: number[] = [];
      const p99: number[] = [];
      for (let run = 1; run <= ctx.runs; run++) {
        const topic = uniqueName('bench-latency');
        await createTopic(bootstrap, topic, PARTITIONS);
        progress(`broker: ${kind} ${caseName}, run ${run}/${ctx.runs}`);
        const p = await rdkafkaProduce({ bootstrap, topic, records, valueBytes: 100, acks, rate, timeoutMs: 120_000 });
        p50.push(p.p50Ms);
        p99.push(p.p99Ms);
      }
      const where = { case: caseName, client: 'librdkafka', broker: kind };
      rec.add(where, { name: 'latency p50', unit: 'ms', lowerIsBetter: true }, p50);
      rec.add(where, { name: 'latency p99', unit: 'ms', lowerIsBetter: true }, p99);
    });
  }
}

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
    all('Brook broker p99 latency below Kafka (fixed rate)', 'latency p99', (p) => p.brook < p.kafka),
    all('Brook broker start-up a fraction of Kafka', 'start-up', (p) => p.brook < p.kafka / 2),
    all('Brook broker memory a fraction of Kafka (idle)', 'idle RSS', (p) => p.brook < p.kafka / 2),
  ];
}
