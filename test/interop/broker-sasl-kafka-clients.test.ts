/**
 * Brook's broker over SASL_SSL (TLS, then SCRAM-SHA-512 or PLAIN), started by `bin/brook
 * broker --config` from a server.properties as a Kafka user writes one (per-listener JAAS
 * settings, sasl.mechanism.inter.broker.protocol), with the first user bootstrapped offline
 * by `brook users add --data-dir`. Against it:
 *  - `brook users add -b --command-config` as the admin user adds a SCRAM user online, and
 *    Brook's own CLI produces and consumes in a group as that user;
 *  - librdkafka 2.16 (confluent-kafka 2.16.x; asserted) produces and consumes in a group, committing;
 *  - Kafka 4.4.0's console producer and consumer (--command-config) do the same, in a group;
 *  - KafkaJS logs in with PLAIN as a user of the listener's JAAS user list, and with SCRAM-SHA-512;
 *  - refusals as each client reports them (a wrong password, a mechanism the listener does
 *    not enable, a client speaking plaintext to the TLS listener), while a client logged in
 *    before them keeps working.
 * One broker for the file; each Java and Python run is one process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { projectRoot, spawnBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, type RunResult } from '../support/clients/run.js';
import { assertLibrdkafka216 } from '../support/clients/confluent-kafka.js';
import { brookCli } from '../support/admin-fixture.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';
import { makeTestPki, opensslMissing } from '../support/tls-certs.js';

const SCRAM_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';
const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const skip = opensslMissing() ?? (!kafkaAvailable() ? 'needs Java 17+ and the Kafka classpath' : false);

const java = (mainClass: string, args: readonly string[], input?: string): Promise<RunResult> =>
  runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), mainClass, ...args], { timeoutMs: 60_000, input });

interface PythonResult { ok: boolean; consumed?: string[]; committed?: number; metadata?: string[]; errors: string[] }

async function librdkafka(args: readonly string[]): Promise<PythonResult> {
  const r = await runProcess('python3', [join(projectRoot, 'test', 'support', 'python', 'sasl_client.py'), ...args], { timeoutMs: 90_000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as PythonResult;
}

const lines = (out: string): string[] => out.split('\n').filter((l) => l !== '');

test('Brook over SASL_SSL from a Kafka-style server.properties: librdkafka, Kafka 4.4.0\'s console tools, KafkaJS (JAAS PLAIN user), Brook\'s CLI; refusals', { timeout: 300_000, skip }, async (t) => {
  const { librdkafka: version } = assertLibrdkafka216();
  t.diagnostic(`librdkafka ${version}`);
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  kafkaClasspath();

  // The first user, before the broker starts (Kafka: kafka-storage format --add-scram).
  const bootstrapped = await brookCli(['users', 'add', 'admin', '--mechanism', 'SCRAM-SHA-512', '--password', 'admin-secret', '--data-dir', dir.path]);
  assert.equal(bootstrapped.code, 0, bootstrapped.stderr);
  const serverProperties = join(pki.dir, 'server.properties');
  writeFileSync(serverProperties, [
    'listeners=SASL_SSL://127.0.0.1:0',
    'sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN',
    'sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512',
    'ssl.keystore.type=PEM',
    `ssl.keystore.location=${pki.serverKeystore}`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${pki.ca}`,
    `listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=${SCRAM_MODULE} required;`,
    `listener.name.sasl_ssl.plain.sasl.jaas.config=${PLAIN_MODULE} required \\`,
    '    username="admin" password="admin-secret" \\',
    '    user_carol="carol-secret";',
    `log.dirs=${dir.path}`,
    'num.partitions=2',
    'group.initial.rebalance.delay.ms=0',
    '',
  ].join('\n'));
  const broker = await spawnBrook(['--config', serverProperties]);
  cleanup.add('stop broker', async () => { await broker.stop(); });
  const bootstrap = `127.0.0.1:${broker.port}`;

  const clientProperties = (name: string, mechanism: string, user: string, password: string, protocol = 'SASL_SSL'): string => {
    const file = join(pki.dir, `${name}.properties`);
    const module = mechanism === 'PLAIN' ? PLAIN_MODULE : SCRAM_MODULE;
    writeFileSync(file, [
      `security.protocol=${protocol}`, `sasl.mechanism=${mechanism}`,
      `sasl.jaas.config=${module} required username="${user}" password="${password}";`,
      'ssl.truststore.type=PEM', `ssl.truststore.location=${pki.ca}`, '',
    ].join('\n'));
    return file;
  };
  const admin = clientProperties('admin', 'SCRAM-SHA-512', 'admin', 'admin-secret');
  const alice = clientProperties('alice', 'SCRAM-SHA-512', 'alice', 'alice-secret');
  const rdkafka = (mechanism: string, user: string, password: string, protocol = 'SASL_SSL') => [bootstrap, protocol, mechanism, user, password, pki.ca];

  // KafkaJS with PLAIN, a user of the listener's JAAS list; connected before the refusals.
  const kafkajs = new Kafka({
    clientId: 'sasl-ssl-kafkajs', brokers: [bootstrap], ssl: { ca: [pki.caPem] },
    sasl: { mechanism: 'plain', username: 'carol', password: 'carol-secret' }, logLevel: logLevel.NOTHING, retry: { retries: 1 },
  });
  const steady = kafkajs.producer();
  await steady.connect();
  cleanup.add('steady producer', () => steady.disconnect());

  await t.test('brook users add -b as the admin user; Brook\'s CLI produces and consumes in a group as the new user', async () => {
    const added = await brookCli(['users', 'add', 'alice', '--mechanism', 'SCRAM-SHA-512', '--password', 'alice-secret', '-b', bootstrap, '--command-config', admin]);
    assert.equal(added.code, 0, added.stderr);
    const listed = await brookCli(['users', 'list', '-b', bootstrap, '--command-config', admin]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^alice\s+SCRAM-SHA-512=iterations=4096$/m);
    const values = Array.from({ length: 10 }, (_, i) => `brook-${i}`);
    const produced = await runProcess(process.execPath, [join(projectRoot, 'bin', 'brook'), 'produce', 'sasl-brook', '-b', bootstrap, '--command-config', alice], { input: `${values.join('\n')}\n`, timeoutMs: 30_000 });
    assert.equal(produced.code, 0, produced.stderr);
    const consumed = await brookCli(['consume', 'sasl-brook', '--group', 'brook-sasl-group', '--from-beginning', '--max-messages', '10', '-b', bootstrap, '--command-config', alice], 60_000);
    assert.equal(consumed.code, 0, consumed.stderr);
    assert.deepEqual(lines(consumed.stdout).sort(), [...values].sort());
  });

  await t.test('librdkafka (confluent-kafka) as alice: produce, then a consumer group that commits', async () => {
    const r = await librdkafka(['produce-consume', ...rdkafka('SCRAM-SHA-512', 'alice', 'alice-secret'), 'sasl-rdkafka', 'rdkafka-sasl-group', '20']);
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.consumed!.sort(), Array.from({ length: 20 }, (_, i) => `sasl-rdkafka-${i}`).sort());
    assert.equal(r.committed, 20);
  });

  await t.test('Kafka 4.4.0\'s console producer and consumer (--command-config) as alice, in a group', async () => {
    const values = Array.from({ length: 10 }, (_, i) => `java-${i}`);
    const produced = await java('org.apache.kafka.tools.ConsoleProducer', ['--bootstrap-server', bootstrap, '--topic', 'sasl-java', '--command-config', alice], `${values.join('\n')}\n`);
    assert.equal(produced.code, 0, produced.stderr);
    const consumed = await java('org.apache.kafka.tools.consumer.ConsoleConsumer', ['--bootstrap-server', bootstrap, '--topic', 'sasl-java', '--group', 'java-sasl-group',
      '--from-beginning', '--max-messages', '10', '--timeout-ms', '30000', '--command-config', alice]);
    assert.equal(consumed.code, 0, consumed.stderr);
    assert.deepEqual(lines(consumed.stdout).sort(), [...values].sort());
    // The group committed what it read (the console consumer commits as it closes).
    const described = await brookCli(['groups', 'describe', 'java-sasl-group', '--json', '-b', bootstrap, '--command-config', admin]);
    assert.equal(described.code, 0, described.stderr);
    const offsets = (JSON.parse(described.stdout) as { offsets: { committed: number }[] }).offsets;
    assert.equal(offsets.reduce((sum, o) => sum + o.committed, 0), 10, described.stdout);
  });

  await t.test('KafkaJS with PLAIN as carol, a user of the JAAS setting\'s list', async () => {
    const producer = kafkajs.producer();
    await producer.connect();
    const sent = await producer.send({ topic: 'sasl-kafkajs', messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    await producer.disconnect();
    assert.equal(sent[0]!.errorCode, 0);
    const kafkaAdmin = kafkajs.admin();
    await kafkaAdmin.connect();
    const offsets = await kafkaAdmin.fetchTopicOffsets('sasl-kafkajs');
    await kafkaAdmin.disconnect();
    assert.equal(offsets.reduce((sum, p) => sum + Number(p.high), 0), 3);
  });

  await t.test('KafkaJS with SCRAM-SHA-512 as alice over SASL_SSL', async () => {
    const scram = new Kafka({
      clientId: 'sasl-ssl-kafkajs-scram', brokers: [bootstrap], ssl: { ca: [pki.caPem] },
      sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' }, logLevel: logLevel.NOTHING, retry: { retries: 1 },
    });
    const producer = scram.producer();
    await producer.connect();
    const sent = await producer.send({ topic: 'sasl-kafkajs-scram', messages: [{ value: 'x' }, { value: 'y' }] });
    await producer.disconnect();
    assert.equal(sent[0]!.errorCode, 0);
    const kafkaAdmin = scram.admin();
    await kafkaAdmin.connect();
    const offsets = await kafkaAdmin.fetchTopicOffsets('sasl-kafkajs-scram');
    await kafkaAdmin.disconnect();
    assert.equal(offsets.reduce((sum, p) => sum + Number(p.high), 0), 2);
  });

  await t.test('refusals as each client reports them; a client logged in before keeps working', async () => {
    const invalid = /Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512/;
    // librdkafka: a wrong password, a mechanism the listener does not enable, plaintext on the TLS listener.
    const wrong = await librdkafka(['login', ...rdkafka('SCRAM-SHA-512', 'alice', 'wrong')]);
    assert.equal(wrong.ok, false);
    assert.match(wrong.errors.join('\n'), invalid);
    const mechanism = await librdkafka(['login', ...rdkafka('SCRAM-SHA-256', 'alice', 'alice-secret')]);
    assert.equal(mechanism.ok, false);
    assert.match(mechanism.errors.join('\n'), /Unsupported SASL mechanism.*SCRAM-SHA-512,PLAIN/);
    const plaintext = await librdkafka(['login', ...rdkafka('SCRAM-SHA-512', 'alice', 'alice-secret', 'SASL_PLAINTEXT')]);
    assert.equal(plaintext.ok, false);
    assert.match(plaintext.errors.join('\n'), /Disconnected|brokers are down|Transport/, JSON.stringify(plaintext.errors));

    // Kafka 4.4.0's tools (kafka-topics --list).
    const kafkaTopics = (props: string) => java('org.apache.kafka.tools.TopicCommand', ['--bootstrap-server', bootstrap, '--command-config', props, '--list']);
    const javaWrong = await kafkaTopics(clientProperties('java-wrong', 'SCRAM-SHA-512', 'alice', 'wrong'));
    assert.notEqual(javaWrong.code, 0);
    assert.match(javaWrong.stdout + javaWrong.stderr, /SaslAuthenticationException: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512/);
    const javaMechanism = await kafkaTopics(clientProperties('java-256', 'SCRAM-SHA-256', 'alice', 'alice-secret'));
    assert.notEqual(javaMechanism.code, 0);
    assert.match(javaMechanism.stdout + javaMechanism.stderr, /UnsupportedSaslMechanismException: Client SASL mechanism 'SCRAM-SHA-256' not enabled in the server, enabled mechanisms are \[SCRAM-SHA-512, PLAIN\]/);

    // Brook's CLI.
    const brookWrong = await brookCli(['topics', 'list', '-b', bootstrap, '--command-config', clientProperties('brook-wrong', 'SCRAM-SHA-512', 'alice', 'wrong')]);
    assert.equal(brookWrong.code, 1);
    assert.match(brookWrong.stderr, /SASL_AUTHENTICATION_FAILED \(58\).*Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512/);
    const brookPlainWrong = await brookCli(['topics', 'list', '-b', bootstrap, '--command-config', clientProperties('brook-plain-wrong', 'PLAIN', 'carol', 'wrong')]);
    assert.equal(brookPlainWrong.code, 1);
    assert.match(brookPlainWrong.stderr, /SASL_AUTHENTICATION_FAILED \(58\).*Authentication failed: Invalid username or password/);
    const brookMechanism = await brookCli(['topics', 'list', '-b', bootstrap, '--command-config', clientProperties('brook-256', 'SCRAM-SHA-256', 'alice', 'alice-secret')]);
    assert.equal(brookMechanism.code, 1);
    assert.match(brookMechanism.stderr, /UNSUPPORTED_SASL_MECHANISM \(33\)/);

    // The client logged in before all this still works.
    const sent = await steady.send({ topic: 'sasl-kafkajs', messages: [{ value: 'after' }] });
    assert.equal(sent[0]!.errorCode, 0);
  });
});
