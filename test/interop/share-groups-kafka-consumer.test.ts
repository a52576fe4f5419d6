/**
 * Share groups (KIP-932) with Apache Kafka 4.4's own KafkaShareConsumer, the same scenario
 * against Kafka 4.4.0 (the oracle) and against Brook: three members in one share group read a
 * 3-partition topic with explicit acknowledgement, each releasing every record whose offset is
 * a multiple of 7 the first time it gets it. Every record must be accepted exactly once, every
 * released record must come back with delivery count 2, and no record may come with a delivery
 * count that its history does not explain.
 *
 * A share group starts reading at the log end (share.auto.offset.reset=latest): warm-up
 * records go to every partition until each has delivered one, then the counted records are
 * produced.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { startBrook } from '../support/brook.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { startJavaShareMember, type JavaShareMember, type ShareDelivery } from '../support/clients/java-share.js';
import { createTopic, produce } from '../support/consumer-helpers.js';

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

async function scenario(bootstrap: string, name: string): Promise<void> {
  const topic = `share-${name}`;
  const group = `share-${name}-group`;
  await createTopic(bootstrap, topic, PARTITIONS);
  const members: JavaShareMember[] = [0, 1, 2].map((i) => startJavaShareMember(bootstrap, topic, group, { releaseEvery: RELEASE_EVERY, clientId: `${name}-${i}` }));
  const all = (): ShareDelivery[] => members.flatMap((m) => m.deliveries);
  try {
    // Warm-up: until every partition delivered something, its share-partition may not be
    // initialized yet, and records produced before that are not the group's.
    const warm = new Set<number>();
    await waitFor('every partition to deliver a warm-up record', () => warm.size === PARTITIONS, 90_000, async () => {
      for (const d of all()) if (d.v.startsWith('warm-')) warm.add(d.p);
      for (let p = 0; p < PARTITIONS; p++) if (!warm.has(p)) await produce(bootstrap, topic, p, [`warm-${p}-${Date.now()}`]);
    });
    for (let p = 0; p < PARTITIONS; p++) {
      await produce(bootstrap, topic, p, Array.from({ length: PER_PARTITION }, (_, i) => `rec-${p}-${i}`));
    }
    const accepted = (): ShareDelivery[] => all().filter((d) => d.v.startsWith('rec-') && d.ack === 'ACCEPT');
    await waitFor('every record to be accepted', () => accepted().length >= PARTITIONS * PER_PARTITION, 90_000);
    await new Promise((r) => setTimeout(r, 1000));
    for (const m of members) assert.deepEqual(m.errors, [], 'commitSync errors');

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
    // The work was shared: more than one member accepted records.
    assert.ok(members.filter((m) => m.deliveries.some((d) => d.ack === 'ACCEPT')).length >= 2, 'more than one member got records');
  } finally {
    await Promise.all(members.map((m) => m.stop()));
  }
}

test('Kafka 4.4.0 (oracle): KafkaShareConsumer members share a topic, releases come back with delivery count 2, every record accepted once', { timeout: 240_000, skip }, async () => {
  kafka ??= startKafka({ config: { 'num.partitions': '1' } });
  const { bootstrap } = await kafka;
  await scenario(bootstrap, 'kafka');
});

test('Brook: the same KafkaShareConsumer scenario', { timeout: 240_000, skip }, async () => {
  const broker = await startBrook();
  try {
    await scenario(broker.bootstrap, 'brook');
  } finally {
    await broker.stop();
  }
});
