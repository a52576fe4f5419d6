/**
 * Share groups (KIP-932) with franz-go's share consumer (kgo.ShareGroup, franz-go v1.22), in
 * one group with Kafka 4.4's KafkaShareConsumer: the scenario of test/support/share-scenario.ts
 * (every record accepted once, releases redelivered with delivery count 2), on Kafka 4.4.0
 * (the oracle) and on Brook.
 */
import { after, test } from 'node:test';
import { startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { startBrook } from '../support/brook.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { goAvailable, startFranzShareMember, startJavaShareMember } from '../support/clients/share-members.js';
import { shareGroupScenario, type MemberStarter } from '../support/share-scenario.js';

const skip = !goAvailable() ? 'the Go toolchain (go 1.26+) is needed to build franz-go'
  : !javaAvailable() ? 'java and mvn are needed for Kafka 4.4 and its KafkaShareConsumer' : false;
if (!skip) javaJar();

let kafka: Promise<KafkaBroker> | null = null;
after(async () => { if (kafka) await (await kafka).stop(); });

const RELEASE_EVERY = 5;
const members: MemberStarter[] = [
  (bootstrap, topic, group) => startFranzShareMember(bootstrap, topic, group, { releaseEvery: RELEASE_EVERY }),
  (bootstrap, topic, group) => startFranzShareMember(bootstrap, topic, group, { releaseEvery: RELEASE_EVERY }),
  (bootstrap, topic, group) => startJavaShareMember(bootstrap, topic, group, { releaseEvery: RELEASE_EVERY, clientId: 'java-0' }),
];

test('Kafka 4.4.0 (oracle): franz-go and KafkaShareConsumer members share a topic', { timeout: 300_000, skip }, async () => {
  kafka ??= startKafka({ config: { 'num.partitions': '1' } });
  const { bootstrap } = await kafka;
  await shareGroupScenario(bootstrap, 'franz-kafka', members, RELEASE_EVERY);
});

test('Brook: the same franz-go and KafkaShareConsumer share group', { timeout: 300_000, skip }, async () => {
  const broker = await startBrook();
  try {
    await shareGroupScenario(broker.bootstrap, 'franz-brook', members, RELEASE_EVERY);
  } finally {
    await broker.stop();
  }
});
