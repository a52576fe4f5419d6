/**
 * SASL on Brook's broker with third-party clients: KafkaJS over SASL_PLAINTEXT with PLAIN,
 * SCRAM-SHA-256 and SCRAM-SHA-512 (a producer and a consumer group each), refused with a
 * wrong password or an unknown mechanism, and a non-SASL client refused, while the others
 * keep working; Kafka 4.4's kafka-configs creating a SCRAM user (the salted password comes
 * from Kafka's own ScramFormatter) that KafkaJS then logs in as.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { brookCli } from '../support/admin-fixture.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';
import type { Broker } from '../../src/broker/broker.js';

function saslBootstrap(broker: Broker): string {
  return `127.0.0.1:${broker.listeners.find((l) => l.securityProtocol === 'SASL_PLAINTEXT')!.port}`;
}

function kafka(bootstrap: string, sasl: SASLOptions | undefined): Kafka {
  return new Kafka({ clientId: 'sasl-test', brokers: [bootstrap], ...(sasl ? { sasl } : {}), logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 5000 });
}

/** Produces `count` records and reads them back in a consumer group; returns the values read. */
async function produceAndConsume(client: Kafka, topic: string, count: number): Promise<string[]> {
  const producer = client.producer();
  await producer.connect();
  await producer.send({ topic, messages: Array.from({ length: count }, (_, i) => ({ value: `${topic}-${i}` })) });
  await producer.disconnect();
  const consumer = client.consumer({ groupId: `${topic}-group`, sessionTimeout: 10_000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: string[] = [];
  await new Promise<void>((resolve, reject) => {
    consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value!.toString());
        if (values.length === count) resolve();
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  return values;
}

test('KafkaJS over SASL_PLAINTEXT: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; wrong passwords and mechanisms refused as KafkaJS reports them', { timeout: 120_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  // Users added offline, as an operator bootstraps them.
  for (const [name, mechanism, password] of [['alice', 'SCRAM-SHA-256', 'alice-256'], ['alice', 'SCRAM-SHA-512', 'alice-512'], ['bob', 'PLAIN', 'bob-pw']]) {
    const r = await brookCli(['users', 'add', name!, '--mechanism', mechanism!, '--password', password!, '--data-dir', dir.path]);
    assert.equal(r.code, 0, r.stderr);
  }
  const broker = await startBrook({
    dataDir: dir.path, listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
  });
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = saslBootstrap(broker);

  // A client authenticated before the refusals, still working after them.
  const steady = kafka(bootstrap, { mechanism: 'scram-sha-512', username: 'alice', password: 'alice-512' }).producer();
  await steady.connect();
  cleanup.add('steady producer', () => steady.disconnect());

  assert.deepEqual(await produceAndConsume(kafka(bootstrap, { mechanism: 'plain', username: 'bob', password: 'bob-pw' }), 'sasl-plain', 5),
    Array.from({ length: 5 }, (_, i) => `sasl-plain-${i}`));
  assert.deepEqual(await produceAndConsume(kafka(bootstrap, { mechanism: 'scram-sha-256', username: 'alice', password: 'alice-256' }), 'sasl-scram-256', 5),
    Array.from({ length: 5 }, (_, i) => `sasl-scram-256-${i}`));
  assert.deepEqual(await produceAndConsume(kafka(bootstrap, { mechanism: 'scram-sha-512', username: 'alice', password: 'alice-512' }), 'sasl-scram-512', 5),
    Array.from({ length: 5 }, (_, i) => `sasl-scram-512-${i}`));

  const refused = async (sasl: SASLOptions | undefined): Promise<string> => {
    const p = kafka(bootstrap, sasl).producer();
    try {
      await p.connect();
      await p.send({ topic: 'sasl-plain', messages: [{ value: 'x' }] });
    } catch (err) {
      return (err as Error).message;
    } finally {
      await p.disconnect().catch(() => undefined);
    }
    return 'accepted';
  };
  assert.match(await refused({ mechanism: 'scram-sha-256', username: 'alice', password: 'wrong' }),
    /Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256/);
  // The SCRAM-SHA-256 password is not the SCRAM-SHA-512 one: credentials are per mechanism.
  assert.match(await refused({ mechanism: 'scram-sha-512', username: 'alice', password: 'alice-256' }), /invalid credentials with SASL mechanism SCRAM-SHA-512/);
  assert.match(await refused({ mechanism: 'plain', username: 'bob', password: 'nope' }), /Invalid username or password/);
  // PLAIN users are not SCRAM users.
  assert.match(await refused({ mechanism: 'scram-sha-256', username: 'bob', password: 'bob-pw' }), /invalid credentials/);
  assert.match(await refused({ mechanism: 'aws', authorizationIdentity: 'x', accessKeyId: 'a', secretAccessKey: 'b' }), /The broker does not support the requested SASL mechanism/);
  assert.notEqual(await refused(undefined), 'accepted', 'a client without SASL is not served');

  await steady.send({ topic: 'sasl-plain', messages: [{ value: 'still here' }] });
  assert.ok(broker.stats.connections.failedAuthentication >= 6, `failedAuthentication ${broker.stats.connections.failedAuthentication}`);
});

test('kafka-configs (Kafka 4.4.0) adds a SCRAM-SHA-512 user to Brook; KafkaJS logs in as it; brook users lists it', { timeout: 180_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'SCRAM-SHA-512' });
  cleanup.add('stop broker', () => broker.stop());
  const r = await runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), 'org.apache.kafka.tools.ConfigCommand', '--bootstrap-server', broker.bootstrap,
    '--alter', '--add-config', 'SCRAM-SHA-512=[iterations=8192,password=secret]', '--entity-type', 'users', '--entity-name', 'carol'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'Completed updating config for user carol.');
  const listed = await brookCli(['users', 'list', '-b', broker.bootstrap]);
  assert.equal(listed.stdout, 'carol\tSCRAM-SHA-512=iterations=8192\n');
  const producer = kafka(saslBootstrap(broker), { mechanism: 'scram-sha-512', username: 'carol', password: 'secret' }).producer();
  await producer.connect();
  await producer.send({ topic: 'from-carol', messages: [{ value: 'hi' }] });
  await producer.disconnect();
});
