/**
 * When Brook's password checks are all taken (sasl/password-checks.ts), a PLAIN login beyond
 * the queue is closed unanswered, as Kafka closes a connection it cannot authenticate now.
 * Kafka's clients take that as a network error and retry, not as a failed login: Kafka
 * 4.4.0's console producer and librdkafka (confluent-kafka) each have a login closed that way
 * (counted in closedAuthenticationBusy), retry once the checks run again, and produce.
 * KafkaJS does not retry any failure of its PLAIN step (it would not retry
 * SASL_AUTHENTICATION_FAILED either): its connect fails, and the next one works. The checks are held by the test through the broker's own queue, filled with raw
 * connections waiting their turn, as a flood of logins would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { Broker } from '../../src/broker/broker.js';
import { MAX_RUNNING_PASSWORD_CHECKS, MAX_WAITING_PASSWORD_CHECKS } from '../../src/broker/sasl/password-checks.js';
import { Api } from '../../src/protocol/messages/index.js';
import { encodePlain } from '../../src/protocol/sasl/plain.js';
import { projectRoot, tempDir } from '../support/brook.js';
import { RawClient } from '../support/clients/raw-client.js';
import { commandWorks, runProcess, until } from '../support/clients/run.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';
import { loggedIn, saslBroker, saslPort } from '../support/sasl-broker.js';

const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';

/**
 * Fills the password-check queue (its running slots held, every waiting place taken), runs
 * `client`, and once the broker has closed one of its logins for that, lets the checks go.
 */
async function whileChecksBusy<T>(broker: Broker, client: () => Promise<T>): Promise<T> {
  const checks = broker.context.passwordChecks;
  // The previous round's connections leave the queue once the broker sees them closed.
  await until('the password-check queue is empty', 30_000, async () => (checks.running === 0 && checks.waiting === 0 ? true : undefined), 5);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  for (let i = 0; i < MAX_RUNNING_PASSWORD_CHECKS; i++) checks.run(() => gate).catch(() => undefined);
  const waiting: RawClient[] = [];
  for (let i = 0; i < MAX_WAITING_PASSWORD_CHECKS; i++) {
    const c = new RawClient(saslPort(broker));
    c.send(Api.SaslHandshake, 1, { mechanism: 'PLAIN' });
    c.send(Api.SaslAuthenticate, 2, { authBytes: encodePlain('bob', 'wrong') });
    waiting.push(c);
  }
  try {
    await until('the password-check queue is full', 30_000, async () => (checks.waiting === MAX_WAITING_PASSWORD_CHECKS ? true : undefined), 5);
    const before = broker.stats.connections.closedAuthenticationBusy;
    const result = client();
    result.catch(() => undefined); // awaited below, once the checks are released
    await until('a login of the client is closed unanswered', 60_000, async () => (broker.stats.connections.closedAuthenticationBusy > before ? true : undefined), 5);
    for (const c of waiting) c.socket.destroy();
    release();
    return await result;
  } finally {
    for (const c of waiting) c.socket.destroy();
    release();
  }
}

async function endOffset(broker: Broker, topic: string): Promise<bigint> {
  const c = await loggedIn(broker);
  c.send(Api.ListOffsets, 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }] });
  const r = await c.response<{ topics: { partitions: { offset: bigint }[] }[] }>(Api.ListOffsets, 7);
  c.socket.destroy();
  return r.topics[0]!.partitions[0]!.offset;
}

test('a login closed unanswered because the password checks are busy is retried by Kafka\'s console producer and librdkafka, which then produce; KafkaJS connects again', { timeout: 300_000 }, async (t) => {
  const broker = await saslBroker({ numPartitions: 1 });
  const dir = tempDir();
  t.after(async () => {
    await broker.stop();
    dir.remove();
  });
  const bootstrap = `127.0.0.1:${saslPort(broker)}`;

  await t.test('KafkaJS: its connect fails (it wraps any failure of its PLAIN step as a final SASL error), the next one works', async () => {
    const kafka = new Kafka({
      clientId: 'busy-kafkajs', brokers: [bootstrap], sasl: { mechanism: 'plain', username: 'bob', password: 'bob-secret' },
      logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1000 },
    });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    // KafkaJS's PLAIN authenticator turns a closed connection into KafkaJSSASLAuthenticationError,
    // which it does not retry: SASL_AUTHENTICATION_FAILED would end the same way for it.
    await assert.rejects(whileChecksBusy(broker, () => producer.connect()), { name: 'KafkaJSSASLAuthenticationError', message: /Closed connection/ });
    await producer.connect();
    await producer.send({ topic: 'busy-kafkajs', messages: [{ value: 'a' }, { value: 'b' }] });
    await producer.disconnect();
    assert.equal(await endOffset(broker, 'busy-kafkajs'), 2n);
  });

  await t.test('librdkafka (confluent-kafka)', { skip: commandWorks('python3', ['-c', 'import confluent_kafka']) ? false : 'needs python3 with confluent-kafka' }, async () => {
    const r = await whileChecksBusy(broker, () => runProcess('python3', [join(projectRoot, 'test', 'support', 'python', 'sasl_client.py'),
      'produce-consume', bootstrap, 'SASL_PLAINTEXT', 'PLAIN', 'bob', 'bob-secret', '', 'busy-rdkafka', 'busy-rdkafka-group', '5'], { timeoutMs: 120_000 }));
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as { ok: boolean; consumed: string[] };
    assert.ok(result.ok, r.stdout);
    assert.equal(await endOffset(broker, 'busy-rdkafka'), 5n);
  });

  await t.test('Kafka 4.4.0\'s console producer', { skip: kafkaAvailable() ? false : 'needs Java 17+ and the Kafka classpath' }, async () => {
    const props = join(dir.path, 'client.properties');
    writeFileSync(props, ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=PLAIN', `sasl.jaas.config=${PLAIN_MODULE} required username="bob" password="bob-secret";`, ''].join('\n'));
    const r = await whileChecksBusy(broker, () => runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), 'org.apache.kafka.tools.ConsoleProducer',
      '--bootstrap-server', bootstrap, '--topic', 'busy-java', '--command-config', props], { input: 'x\ny\nz\n', timeoutMs: 120_000 }));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await endOffset(broker, 'busy-java'), 3n);
  });
});
