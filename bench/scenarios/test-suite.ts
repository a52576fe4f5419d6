/**
 * A test suite whose every case gets a fresh broker, as franz-go's kfake or Testcontainers are
 * used: 100 cases, each starting a broker, running a small test body over the wire (create a
 * topic with Brook's Admin, produce 10 records with Brook's Producer, acks=all) and stopping
 * the broker. Three ways to get the broker, each case measured from start to stop (wall time):
 * the embedded `Broker.start` (memory storage) in the suite's process; Brook's broker as a
 * process of its own (`bin/brook broker`, file storage in a fresh temp dir: the
 * Testcontainers shape without a container); Apache Kafka 4.4 as a process (single-node KRaft,
 * storage formatted per case, counted). Kafka runs 10 cases (its start-up is seconds): its
 * 100-case figure is its median case times 100, marked as such.
 */
import { Broker } from '../../src/broker/broker.js';
import { Admin } from '../../src/client/admin/admin.js';
import { Producer } from '../../src/client/producer/producer.js';
import { silentLogger } from '../../src/util/log.js';
import { startBroker } from '../lib/brokers.js';
import { progress } from '../lib/progress.js';
import { Recorder, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';

const ms = (name: string) => ({ name, unit: 'ms', lowerIsBetter: true });
const s = (name: string) => ({ name, unit: 's', lowerIsBetter: true });

/** The body every case runs against its broker. */
async function testBody(bootstrapServers: string): Promise<void> {
  const admin = await Admin.connect({ bootstrapServers });
  try {
    await admin.createTopic({ name: 'orders', partitions: 1 });
  } finally {
    admin.close();
  }
  const producer = new Producer({ bootstrapServers });
  try {
    await Promise.all(Array.from({ length: 10 }, (_, i) => producer.send({ topic: 'orders', key: `k${i}`, value: `v${i}` })));
  } finally {
    await producer.close();
  }
}

async function suite(cases: number, label: string, start: () => Promise<{ bootstrap: string; stop(): Promise<void> }>): Promise<number[]> {
  const perCase: number[] = [];
  for (let i = 0; i < cases; i++) {
    if (i % 20 === 0) progress(`test-suite: ${label}, case ${i + 1}/${cases}`);
    const t0 = performance.now();
    const broker = await start();
    await testBody(broker.bootstrap);
    await broker.stop();
    perCase.push(performance.now() - t0);
  }
  return perCase;
}

export const testSuiteScenario: Scenario = {
  name: 'test-suite',
  title: 'a test suite of 100 cases, a fresh broker each: embedded Broker.start against a broker process per case',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const cases = ctx.quick ? 10 : 100;
    const where = (c: string, broker: 'brook' | 'kafka' = 'brook') => ({ case: c, client: 'brook', broker });
    const record = (c: string, kind: 'brook' | 'kafka', perCase: number[], scaledTo: number) => {
      rec.add(where(c, kind), ms('per case'), perCase);
      const total = perCase.reduce((a, b) => a + b, 0);
      // An estimate takes the median case (the first Kafka case may also resolve its classpath).
      const median = [...perCase].sort((a, b) => a - b)[Math.floor(perCase.length / 2)]!;
      const suiteMs = scaledTo === perCase.length ? total : median * scaledTo;
      rec.add(where(c, kind), s(scaledTo === perCase.length ? `suite of ${scaledTo}` : `suite of ${scaledTo} (median case x ${scaledTo})`), [suiteMs / 1000]);
    };

    await rec.attempt('embedded', async () => {
      const perCase = await suite(cases, 'embedded Broker.start', async () => {
        const broker = await Broker.start({ host: '127.0.0.1', port: 0, dataDir: null, log: silentLogger, groupInitialRebalanceDelayMs: 0, autoCreateTopics: false });
        return { bootstrap: broker.bootstrapServers, stop: () => broker.stop() };
      });
      record('embedded Broker.start, memory', 'brook', perCase, cases);
    });

    for (const kind of usableBrokers(ctx, rec)) {
      if (ctx.quick && kind !== 'brook') {
        rec.skipped.push(`${kind} broker process: not in quick mode`);
        continue;
      }
      const n = kind === 'kafka' ? Math.min(cases, 10) : cases;
      await rec.attempt(`${kind} broker process`, async () => {
        const perCase = await suite(n, `${kind} broker process`, () => startBroker(kind, ctx.pool.options(kind)));
        record('broker process per case', kind, perCase, cases);
      });
    }
    rec.notes.push('per case: start the broker, create a topic (Admin), produce 10 records (Producer, acks=all), stop the broker; wall time, one case after the other');
    rec.notes.push('Brook process: bin/brook broker with file storage in a fresh temp dir; Kafka: single-node KRaft, storage formatted in each case (counted), -Xms512m -Xmx1g, 10 cases, the 100-case suite estimated as the median case x 100');
    return rec.report([]);
  },
};
