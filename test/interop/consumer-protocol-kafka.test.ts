/**
 * Brook's consumer with the consumer protocol (KIP-848, groupProtocol 'consumer') against
 * Apache Kafka 4.4.0, whose group coordinator assigns:
 *
 * - three Brook consumers share a 6-partition topic; one leaves and another joins while they
 *   consume. Every record is read once, no partition has two owners at once (ownership
 *   intervals from the rebalance listeners), the committed offsets end at the log ends.
 *   They run with auto-commit only: what makes a partition's hand-over exact is the commit
 *   of consumed offsets before it is revoked.
 * - two Brook consumers and Kafka 4.4's Java KafkaConsumer (group.protocol=consumer,
 *   test/support/java GroupConsumer) in one group, one Brook member leaving mid-way: every
 *   record once, one owner per partition.
 * - the README consumer killed with SIGKILL three times (test/support/kill-restart.ts):
 *   no record left unprocessed.
 *
 * Kafka runs with a short heartbeat interval and session timeout
 * (group.consumer.heartbeat.interval.ms, group.consumer.session.timeout.ms and their minima)
 * so the rebalances of a test take seconds.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../src/client/admin.js';
import { startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { createTopic, produceSpread } from '../support/consumer-helpers.js';
import { Member, PARTITIONS, PER_PARTITION, assertExactlyOnceAndOneOwner, mixedGroupWithJava, waitFor } from '../support/consumer-protocol-mixed.js';
import { runKillRestart } from '../support/kill-restart.js';

/** Sum of the group's committed offsets equals the log ends of every partition. */
async function committedAtEnd(bootstrap: string, group: string, topic: string): Promise<Map<number, bigint>> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    const committed = await admin.committedOffsets(group);
    return new Map(committed.filter((c) => c.topic === topic).map((c) => [c.partition, c.offset]));
  } finally {
    admin.close();
  }
}

let kafka: Promise<KafkaBroker> | null = null;
function kafkaBroker(): Promise<KafkaBroker> {
  kafka ??= startKafka({
    config: {
      'group.consumer.heartbeat.interval.ms': '500', 'group.consumer.min.heartbeat.interval.ms': '100',
      'group.consumer.session.timeout.ms': '6000', 'group.consumer.min.session.timeout.ms': '2000',
    },
  });
  return kafka;
}
after(async () => { if (kafka) await (await kafka).stop(); });

test('Kafka 4.4.0, consumer protocol: 3 Brook consumers share 6 partitions, a fourth joins and one leaves mid-way; every record once, one owner per partition, commits at the log ends', { timeout: 120_000 }, async () => {
  const { bootstrap } = await kafkaBroker();
  const topic = 'cp-brook';
  const group = 'cp-brook-group';
  await createTopic(bootstrap, topic, PARTITIONS);
  const members = [0, 1, 2].map(() => new Member(bootstrap, topic, group, false, true));
  const all = [...members];
  const read = (): number => all.reduce((n, m) => n + m.records.length, 0);
  try {
    for (const m of members) m.start();
    const describe = (): string => JSON.stringify(all.map((m) => m.consumer.assignment().map((tp) => tp.partition)));
    await waitFor(() => members.every((m) => m.consumer.assignment().length === 2), 30_000, () => `not 2 partitions each: ${describe()}`);
    assert.deepEqual(members.flatMap((m) => m.consumer.assignment().map((tp) => tp.partition)).sort(), [0, 1, 2, 3, 4, 5]);
    assert.ok(members.every((m) => m.consumer.groupMetadata().generationId > 0), 'member epochs from Kafka');
    await produceSpread(bootstrap, topic, PARTITIONS, PER_PARTITION);
    await waitFor(() => members.every((m) => m.records.length >= 100), 30_000, () => `too little read: ${members.map((m) => m.records.length)}`);
    // In the middle of it another joins: the three give it partitions they are reading (each
    // revocation commits what was consumed first); then one leaves (close() commits, then the
    // leave heartbeat) and the others take its partitions over from its commits.
    const readAtJoin = read();
    const joiner = new Member(bootstrap, topic, group, false, true);
    all.push(joiner);
    joiner.start();
    await waitFor(() => joiner.records.length > 0, 30_000, () => `the joiner read nothing: ${describe()}`);
    await members[0]!.close();
    const live = [members[1]!, members[2]!, joiner];
    await waitFor(() => read() >= PARTITIONS * PER_PARTITION, 60_000, () => `read ${read()}; owners ${describe()}`);
    for (const m of live) await m.close();
    assert.ok(readAtJoin < PARTITIONS * PER_PARTITION * 0.7, `the rebalances came mid-way: ${readAtJoin} read when the fourth member joined`);
    assert.ok(members.some((m) => m.events.some((e) => e.type === 'revoked' && e.partitions.length > 0)), 'a live member gave up a partition it was reading');
    for (const m of all) assert.deepEqual(m.errors, [], 'no poll errors');
    assertExactlyOnceAndOneOwner(all, PER_PARTITION);
    const committed = await committedAtEnd(bootstrap, group, topic);
    assert.deepEqual(committed, new Map(Array.from({ length: PARTITIONS }, (_, p) => [p, BigInt(PER_PARTITION)])), 'auto-commit and close() committed every consumed offset');
    process.stderr.write(`consumer-protocol brook: records per member ${all.map((m) => m.records.length).join('/')}\n`);
  } finally {
    await Promise.all(all.map((m) => m.close().catch(() => undefined)));
  }
});

test('Kafka 4.4.0, consumer protocol: 2 Brook consumers and Kafka\'s Java KafkaConsumer (group.protocol=consumer) in one group, a Brook member leaving mid-way; every record once, one owner per partition', { timeout: 120_000 }, async () => {
  assert.ok(javaAvailable(), 'java 17+ and Maven are needed for the interop suite (test/support/java)');
  const { bootstrap } = await kafkaBroker();
  const perMember = await mixedGroupWithJava(bootstrap, javaJar(), 'cp-mixed', 'cp-mixed-group');
  process.stderr.write(`consumer-protocol mixed: records per member ${perMember.join('/')}\n`);
});

test('Kafka 4.4.0, consumer protocol: kill -9 three times while the README consumer works, every record is processed at least once', { timeout: 240_000 }, async () => {
  const { bootstrap } = await kafkaBroker();
  const result = await runKillRestart(bootstrap, 'consumer');
  assert.deepEqual(result.missing, [], `records never processed (seed ${result.seed}, killed after ${result.killedAt.join(', ')} processed lines)`);
  process.stderr.write(`consumer-protocol kill-restart: ${result.processedLines} lines for 3000 records (seed ${result.seed})\n`);
});
