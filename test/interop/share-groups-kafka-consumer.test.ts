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
import { startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { startBrook } from '../support/brook.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { startJavaShareMember } from '../support/clients/share-members.js';
import { shareGroupScenario } from '../support/share-scenario.js';

const skip = javaAvailable() ? false : 'java and mvn are needed for Kafka 4.4 and its KafkaShareConsumer';
if (!skip) javaJar();

let kafka: Promise<KafkaBroker> | null = null;
after(async () => { if (kafka) await (await kafka).stop(); });

const javaMembers = [0, 1, 2].map((i) => (bootstrap: string, topic: string, group: string) => startJavaShareMember(bootstrap, topic, group, { releaseEvery: 7, clientId: `java-${i}` }));

test('Kafka 4.4.0 (oracle): KafkaShareConsumer members share a topic, releases come back with delivery count 2, every record accepted once', { timeout: 240_000, skip }, async () => {
  kafka ??= startKafka({ config: { 'num.partitions': '1' } });
  const { bootstrap } = await kafka;
  await shareGroupScenario(bootstrap, 'kafka', javaMembers, 7);
});

test('Brook: the same KafkaShareConsumer scenario', { timeout: 240_000, skip }, async () => {
  const broker = await startBrook();
  try {
    await shareGroupScenario(broker.bootstrap, 'brook', javaMembers, 7);
  } finally {
    await broker.stop();
  }
});
