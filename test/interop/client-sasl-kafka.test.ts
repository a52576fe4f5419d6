/**
 * Brook's clients with SASL against Apache Kafka 4.4: SCRAM-SHA-512 over SASL_SSL (producer,
 * a consumer group that commits and a second member that resumes from the commit, the admin
 * client, `bin/brook topics list --command-config` with a JAAS login), SCRAM-SHA-256 and PLAIN
 * over SASL_PLAINTEXT, and the failures as Kafka answers them: a wrong password, a mechanism
 * the listener does not enable, a SASL client on a PLAINTEXT listener. Kafka's
 * SaslServerAuthenticator is the oracle of the exchange; its error codes and messages are
 * what the clients must report. connections.max.reauth.ms is short so that connections
 * outlive their SASL session: Kafka closes those, and the clients must carry on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { kafkaAvailable, startKafka } from '../support/kafka/kafka-broker.js';
import { makeTestPki, opensslMissing } from '../support/tls-certs.js';
import { Admin, AuthenticationError, Consumer, ErrorCode, Producer, type CommonClientOptions, type SaslOptions } from '../../src/index.js';

const skip = opensslMissing() ?? (kafkaAvailable() ? false : 'needs Java 17+ and the Kafka classpath (BROOK_KAFKA=0 or missing)');
const SCRAM_LOGIN = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
const REAUTH_MS = 4_000;

async function consume(consumer: Consumer, count: number): Promise<string[]> {
  const seen: string[] = [];
  const deadline = Date.now() + 60_000;
  while (seen.length < count && Date.now() < deadline) {
    for (const r of await consumer.poll({ timeoutMs: 200 })) seen.push(r.value!.toString());
  }
  return seen;
}

test('Brook\'s clients with SASL (SCRAM-SHA-512 over SASL_SSL, SCRAM-SHA-256 and PLAIN over SASL_PLAINTEXT) against Apache Kafka 4.4', { timeout: 240_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const kafka = await startKafka({
    saslListeners: ['SASL_SSL', 'SASL_PLAINTEXT'],
    formatArgs: ['--add-scram', 'SCRAM-SHA-512=[name=admin,password=admin-secret]', '--add-scram', 'SCRAM-SHA-256=[name=bob,password=bob-secret]'],
    config: {
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': pki.serverEncryptedKeystore,
      'ssl.key.password': pki.serverKeyPassword,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': pki.ca,
      'listener.name.sasl_ssl.sasl.enabled.mechanisms': 'SCRAM-SHA-512',
      'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': SCRAM_LOGIN,
      'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'SCRAM-SHA-256,PLAIN',
      'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': SCRAM_LOGIN,
      'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";',
      'connections.max.reauth.ms': String(REAUTH_MS),
      'num.partitions': '2',
    },
  });
  cleanup.add('stop kafka', () => kafka.stop());
  const saslSsl = (sasl: SaslOptions): CommonClientOptions => ({
    bootstrapServers: `127.0.0.1:${kafka.listenerPorts['SASL_SSL']!}`, securityProtocol: 'SASL_SSL', ssl: { ca: pki.caPem }, sasl,
  });
  const saslPlaintext = (sasl: SaslOptions): CommonClientOptions => ({
    bootstrapServers: `127.0.0.1:${kafka.listenerPorts['SASL_PLAINTEXT']!}`, securityProtocol: 'SASL_PLAINTEXT', sasl,
  });
  const admin512 = saslSsl({ mechanism: 'SCRAM-SHA-512', username: 'admin', password: 'admin-secret' });

  await t.test('SCRAM-SHA-512 over SASL_SSL: producer, consumer group with commit and rejoin, admin, CLI', async () => {
    const producer = new Producer(admin512);
    cleanup.add('close producer', () => producer.close());
    const first = Array.from({ length: 40 }, (_, i) => `a${i}`);
    await Promise.all(first.map((v) => producer.send({ topic: 'sasl-kafka', key: v, value: v })));

    const group = { ...admin512, groupId: 'sasl-kafka-group', autoOffsetReset: 'earliest', fetchMaxWaitMs: 100, enableAutoCommit: false } as const;
    const consumer = new Consumer(group);
    consumer.subscribe(['sasl-kafka']);
    assert.deepEqual((await consume(consumer, first.length)).sort(), [...first].sort());
    // The next poll marks what the last one returned as consumed; commitSync commits that.
    assert.deepEqual(await consumer.poll({ timeoutMs: 0 }), []);
    await consumer.commitSync();
    const admin = await Admin.connect(admin512);
    cleanup.add('close admin', () => admin.close());
    const described = await admin.describeGroup('sasl-kafka-group');
    assert.equal(described.state, 'Stable');
    assert.equal(described.members.length, 1);
    await consumer.close();

    // Past the SASL session's end: Kafka closes connections that outlive it; new ones authenticate.
    await new Promise((resolve) => setTimeout(resolve, REAUTH_MS + 500));
    const second = Array.from({ length: 10 }, (_, i) => `b${i}`);
    await Promise.all(second.map((v) => producer.send({ topic: 'sasl-kafka', key: v, value: v })));
    const rejoined = new Consumer(group);
    cleanup.add('close rejoined consumer', () => rejoined.close());
    rejoined.subscribe(['sasl-kafka']);
    // The rejoined member starts at the committed offsets: only the records written after them.
    assert.deepEqual((await consume(rejoined, second.length)).sort(), [...second].sort());
    assert.deepEqual(await rejoined.poll({ timeoutMs: 0 }), []);
    await rejoined.commitSync();
    const offsets = await admin.committedOffsets('sasl-kafka-group');
    assert.equal(offsets.reduce((sum, o) => sum + Number(o.offset), 0), first.length + second.length);

    const props = join(pki.dir, 'client.properties');
    writeFileSync(props, [
      'security.protocol=SASL_SSL', 'sasl.mechanism=SCRAM-SHA-512',
      'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="admin-secret";',
      'ssl.truststore.type=PEM', `ssl.truststore.location=${pki.ca}`, '',
    ].join('\n'));
    const listed = await runProcess(process.execPath, [join(projectRoot, 'bin', 'brook'), 'topics', 'list', '-b', admin512.bootstrapServers, '--command-config', props], { timeoutMs: 30_000 });
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.split('\n').includes('sasl-kafka'), listed.stdout);
  });

  await t.test('SCRAM-SHA-256 and PLAIN over SASL_PLAINTEXT', async () => {
    for (const sasl of [{ mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'bob-secret' }, { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' }] as const) {
      const producer = new Producer(saslPlaintext(sasl));
      const metadata = await producer.send({ topic: `sasl-${sasl.mechanism.toLowerCase()}`, value: sasl.username });
      await producer.close();
      const admin = await Admin.connect(saslPlaintext(sasl));
      const topics = await admin.listTopics();
      await admin.close();
      assert.ok(topics.includes(metadata.topic), `${sasl.mechanism}: ${JSON.stringify(topics)}`);
    }
  });

  await t.test('failures as Kafka reports them, promptly', async () => {
    const fails = async (options: CommonClientOptions, code: number, message: RegExp): Promise<void> => {
      const started = Date.now();
      await assert.rejects(Admin.connect({ ...options, defaultApiTimeoutMs: 30_000 }), (err: unknown) => {
        assert.ok(err instanceof AuthenticationError, String(err));
        assert.equal(err.errorCode, code);
        assert.match(err.message, message);
        return true;
      });
      // Refused at once: no retry until the call's time limit.
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    };
    await fails(saslSsl({ mechanism: 'SCRAM-SHA-512', username: 'admin', password: 'wrong' }), ErrorCode.SASL_AUTHENTICATION_FAILED,
      /Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512/);
    await fails(saslPlaintext({ mechanism: 'PLAIN', username: 'alice', password: 'wrong' }), ErrorCode.SASL_AUTHENTICATION_FAILED,
      /Authentication failed: Invalid username or password/);
    await fails(saslPlaintext({ mechanism: 'SCRAM-SHA-512', username: 'admin', password: 'admin-secret' }), ErrorCode.UNSUPPORTED_SASL_MECHANISM,
      /enabled mechanisms are \[PLAIN, SCRAM-SHA-256\]/);
    await fails({ bootstrapServers: kafka.bootstrap, securityProtocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' } },
      ErrorCode.ILLEGAL_SASL_STATE, /not a SASL listener/);

    const producer = new Producer({ ...saslSsl({ mechanism: 'SCRAM-SHA-512', username: 'admin', password: 'wrong' }), maxBlockMs: 60_000 });
    cleanup.add('close refused producer', () => producer.close(0));
    await assert.rejects(producer.send({ topic: 'sasl-kafka', value: 'x' }), (err: unknown) => err instanceof AuthenticationError && err.errorCode === 58);
  });
});
