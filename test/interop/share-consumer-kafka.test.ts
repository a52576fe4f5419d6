/**
 * Brook's ShareConsumer against Apache Kafka 4.4.0 and against Brook, the scenario of
 * share-groups-kafka-consumer.test.ts: members of one share group read a 3-partition topic
 * with explicit acknowledgement, each releasing every record whose offset is a multiple of 7
 * the first time it gets it. Every record must be accepted exactly once and every released
 * record must come back with delivery count 2. Then a mixed group: Brook's ShareConsumer and
 * Kafka's KafkaShareConsumer sharing one topic.
 *
 * A share group starts reading at the log end (share.auto.offset.reset=latest): warm-up
 * records go to every partition until each has delivered one, then the counted records are
 * produced.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ShareConsumer } from '../../src/index.js';
import { startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { startBrook } from '../support/brook.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { startJavaShareMember, type ShareMember as JavaShareMember, type ShareDelivery } from '../support/clients/share-members.js';
import { createTopic, produce } from '../support/consumer-helpers.js';
import { valueOfShare } from '../support/share-helpers.js';

const PARTITIONS = 3;
const PER_PARTITION = 100;
const RELEASE_EVERY = 7;

const skip = javaAvailable() ? false : 'java and mvn are needed for Kafka 4.4 and its KafkaShareConsumer';
if (!skip) javaJar();

let kafka: Promise<KafkaBroker> | null = null;
after(async () => { if (kafka) await (await kafka).stop(); });

async function waitFor(what: string, condition: () => boolean, timeoutMs: number, tick?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await tick?.();
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A Brook ShareConsumer polling in the background as the Java member does: explicit acknowledgement, commitSync after each poll. */
interface BrookShareMember {
  readonly deliveries: ShareDelivery[];
  readonly errors: string[];
  stop(): Promise<void>;
}

async function startBrookShareMember(bootstrap: string, topic: string, group: string, clientId: string): Promise<BrookShareMember> {
  const consumer = await ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: group, clientId, acknowledgementMode: 'explicit' });
  consumer.subscribe([topic]);
  const deliveries: ShareDelivery[] = [];
  const errors: string[] = [];
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      const records = await consumer.poll({ timeoutMs: 500 });
      const acks = new Map<string, ShareDelivery>();
      for (const r of records) {
        const ack = Number(r.offset) % RELEASE_EVERY === 0 && r.deliveryCount === 1 ? 'RELEASE' : 'ACCEPT';
        consumer.acknowledge(r, ack);
        acks.set(`${r.partition}:${r.offset}`, { p: r.partition, o: Number(r.offset), d: r.deliveryCount, v: valueOfShare(r), ack });
      }
      if (records.length === 0) continue;
      // Counted once the broker applied them, as the Java member counts its deliveries.
      for (const result of await consumer.commitSync({ timeoutMs: 10_000 })) {
        if (result.error !== null) errors.push(`${result.topic}-${result.partition}: ${result.error.message}`);
        else for (const o of result.offsets) { const d = acks.get(`${result.partition}:${o}`); if (d) deliveries.push(d); }
      }
    }
  })().catch((err: unknown) => { errors.push(String(err)); });
  return {
    deliveries,
    errors,
    async stop() {
      stopping = true;
      await loop;
      await consumer.close({ timeoutMs: 10_000 });
    },
  };
}

type Member = Pick<JavaShareMember, 'deliveries' | 'errors' | 'stop'>;

async function scenario(bootstrap: string, name: string, start: (topic: string, group: string) => Promise<Member[]>): Promise<void> {
  const topic = `share-client-${name}`;
  const group = `share-client-${name}-group`;
  await createTopic(bootstrap, topic, PARTITIONS);
  const members = await start(topic, group);
  const all = (): ShareDelivery[] => members.flatMap((m) => m.deliveries);
  try {
    const warm = new Set<number>();
    await waitFor('every partition to deliver a warm-up record', () => warm.size === PARTITIONS, 90_000, async () => {
      for (const d of all()) if (d.v.startsWith('warm-')) warm.add(d.p);
      for (let p = 0; p < PARTITIONS; p++) {
        // Right after CreateTopics Kafka may not lead the partition yet (NOT_LEADER_OR_FOLLOWER): the next tick tries again.
        if (!warm.has(p)) await produce(bootstrap, topic, p, [`warm-${p}-${Date.now()}`]).catch(() => undefined);
      }
    });
    for (let p = 0; p < PARTITIONS; p++) {
      await produce(bootstrap, topic, p, Array.from({ length: PER_PARTITION }, (_, i) => `rec-${p}-${i}`));
    }
    const accepted = (): ShareDelivery[] => all().filter((d) => d.v.startsWith('rec-') && d.ack === 'ACCEPT');
    await waitFor('every record to be accepted', () => accepted().length >= PARTITIONS * PER_PARTITION, 90_000);
    await new Promise((r) => setTimeout(r, 1000));
    for (const m of members) assert.deepEqual(m.errors, [], 'acknowledgement errors');

    const counted = all().filter((d) => d.v.startsWith('rec-'));
    const acceptedValues = counted.filter((d) => d.ack === 'ACCEPT').map((d) => d.v).sort();
    const expected = Array.from({ length: PARTITIONS * PER_PARTITION }, (_, i) => `rec-${Math.floor(i / PER_PARTITION)}-${i % PER_PARTITION}`).sort();
    assert.deepEqual(acceptedValues, expected, 'every record accepted exactly once');
    for (const d of counted) {
      const releasedFirst = d.o % RELEASE_EVERY === 0;
      if (d.ack === 'RELEASE') assert.equal(d.d, 1, `released on first delivery: ${JSON.stringify(d)}`);
      else assert.equal(d.d, releasedFirst ? 2 : 1, `delivery count: ${JSON.stringify(d)}`);
    }
    const released = counted.filter((d) => d.ack === 'RELEASE').length;
    assert.equal(released, counted.filter((d) => d.ack === 'ACCEPT' && d.d === 2).length, 'every released record came back once');
    assert.ok(released > 0);
    assert.ok(members.filter((m) => m.deliveries.some((d) => d.ack === 'ACCEPT' && d.v.startsWith('rec-'))).length >= 2, 'more than one member accepted records');
  } finally {
    await Promise.all(members.map((m) => m.stop()));
  }
}

const brookMembers = (bootstrap: string, name: string) => (topic: string, group: string): Promise<Member[]> =>
  Promise.all([0, 1].map((i) => startBrookShareMember(bootstrap, topic, group, `${name}-${i}`)));

const mixedMembers = (bootstrap: string, name: string) => async (topic: string, group: string): Promise<Member[]> => [
  await startBrookShareMember(bootstrap, topic, group, `${name}-brook`),
  startJavaShareMember(bootstrap, topic, group, { releaseEvery: RELEASE_EVERY, clientId: `${name}-java` }),
];

test('Kafka 4.4.0: two Brook ShareConsumers share a topic, releases come back with delivery count 2, every record accepted once', { timeout: 240_000, skip }, async () => {
  kafka ??= startKafka({ config: { 'num.partitions': '1' } });
  const { bootstrap } = await kafka;
  await scenario(bootstrap, 'kafka', brookMembers(bootstrap, 'kafka'));
});

test('Kafka 4.4.0: a mixed share group, Brook\'s ShareConsumer with Kafka\'s KafkaShareConsumer', { timeout: 240_000, skip }, async () => {
  kafka ??= startKafka({ config: { 'num.partitions': '1' } });
  const { bootstrap } = await kafka;
  await scenario(bootstrap, 'kafka-mixed', mixedMembers(bootstrap, 'kafka-mixed'));
});

test('Brook: the same scenarios (two Brook ShareConsumers; Brook\'s with Kafka\'s)', { timeout: 240_000, skip }, async () => {
  const broker = await startBrook();
  try {
    await scenario(broker.bootstrap, 'brook', brookMembers(broker.bootstrap, 'brook'));
    await scenario(broker.bootstrap, 'brook-mixed', mixedMembers(broker.bootstrap, 'brook-mixed'));
  } finally {
    await broker.stop();
  }
});
