/**
 * Brook's clients as a restricted SCRAM-SHA-512 user over SASL_SSL, against Apache Kafka 4.4
 * with the StandardAuthorizer and against Brook's broker with the same settings: granted
 * exactly what Kafka's documentation says a producer (WRITE and DESCRIBE on the topic) and a
 * consumer in a group (READ and DESCRIBE on the topic, READ on the group) need, the producer
 * produces and the group consumes; a send to a topic without WRITE, a consumer in a group
 * without READ and a consumer subscribed to a topic it may not DESCRIBE fail with Brook's KafkaProtocolError carrying TOPIC_AUTHORIZATION_FAILED or
 * GROUP_AUTHORIZATION_FAILED, which
 * Kafka's clients treat as not retriable: the failure comes long before the retry budgets
 * (delivery.timeout.ms, the poll's deadline) set here to minutes would run out.
 * The super user User:ANONYMOUS (a PLAINTEXT listener) creates the topics and the ACLs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { brookCli } from '../support/admin-fixture.js';
import { kafkaAvailable, startKafka } from '../support/kafka/kafka-broker.js';
import { makeTestPki, opensslMissing } from '../support/tls-certs.js';
import { Consumer, Producer, type CommonClientOptions } from '../../src/index.js';
import { KafkaProtocolError } from '../../src/protocol/errors.js';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import type { AclCreation } from '../../src/protocol/messages/create-acls.js';

const skip = opensslMissing() ?? (kafkaAvailable() ? false : 'needs Java 17+ and the Kafka classpath (BROOK_KAFKA=0 or missing)');
const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const ALICE = { mechanism: 'SCRAM-SHA-512', username: 'alice', password: 'alice-secret' } as const;
// ResourceType, PatternType, AclOperation and AclPermissionType codes.
const TOPIC = 2, GROUP = 3, LITERAL = 3, READ = 3, WRITE = 4, DESCRIBE = 8, ALLOW = 3;
const allow = (resourceType: number, resourceName: string, operation: number): AclCreation =>
  ({ resourceType, resourceName, resourcePatternType: LITERAL, principal: 'User:alice', host: '*', operation, permissionType: ALLOW });
/** Kafka's docs (kafka-acls --producer / --consumer): what a producer and a consumer group need. */
const GRANTS = [allow(TOPIC, 'acl-orders', WRITE), allow(TOPIC, 'acl-orders', DESCRIBE), allow(TOPIC, 'acl-orders', READ), allow(GROUP, 'acl-group', READ)];

async function protocolError(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof KafkaProtocolError, `not a KafkaProtocolError: ${String(err)}`);
    assert.equal(err.retriable, false);
    return err.errorName;
  }
  return 'no error';
}

/** Creates the topics and the ACLs as the super user, on the PLAINTEXT listener. */
async function setUp(port: number): Promise<void> {
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port });
  try {
    const created = await conn.request(Api.CreateTopics, {
      topics: ['acl-orders', 'acl-secret'].map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })), timeoutMs: 10_000, validateOnly: false,
    }, { version: 5 });
    assert.deepEqual(created.topics.map((t) => t.errorCode), [0, 0]);
    const r = await conn.request(Api.CreateAcls, { creations: GRANTS }, { version: 3 });
    assert.deepEqual(r.results.map((x) => x.errorCode), GRANTS.map(() => 0));
    // Kafka's broker applies the controller's ACL records shortly after CreateAcls answers.
    for (let i = 0; i < 200; i++) {
      const d = await conn.request(Api.DescribeAcls, {
        resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: 'User:alice', hostFilter: null, operation: 1, permissionType: 1,
      }, { version: 3 });
      if (d.resources.reduce((n, x) => n + x.acls.length, 0) === GRANTS.length) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the ACLs did not show');
  } finally {
    conn.close();
  }
}

async function scenario(options: CommonClientOptions, cleanup: Cleanup): Promise<void> {
  const producer = new Producer({ ...options, deliveryTimeoutMs: 300_000 });
  cleanup.add('close producer', () => producer.close());
  const values = Array.from({ length: 10 }, (_, i) => `v${i}`);
  await Promise.all(values.map((value) => producer.send({ topic: 'acl-orders', value })));
  assert.equal(await protocolError(producer.send({ topic: 'acl-secret', value: 'x' })), 'TOPIC_AUTHORIZATION_FAILED');

  const group = { ...options, groupId: 'acl-group', autoOffsetReset: 'earliest', fetchMaxWaitMs: 100 } as const;
  const consumer = new Consumer(group);
  cleanup.add('close consumer', () => consumer.close());
  consumer.subscribe(['acl-orders']);
  const seen: string[] = [];
  for (let i = 0; i < 300 && seen.length < values.length; i++) for (const r of await consumer.poll({ timeoutMs: 200 })) seen.push(r.value!.toString());
  assert.deepEqual(seen.sort(), values);
  await consumer.commitSync();

  const otherGroup = new Consumer({ ...group, groupId: 'not-alices' });
  cleanup.add('close other group', () => otherGroup.close());
  otherGroup.subscribe(['acl-orders']);
  assert.equal(await protocolError(otherGroup.poll({ timeoutMs: 300_000 })), 'GROUP_AUTHORIZATION_FAILED');

  // Java's consumer throws TopicAuthorizationException from poll() when the metadata of a
  // subscribed topic answers TOPIC_AUTHORIZATION_FAILED (alice may not DESCRIBE acl-secret).
  const secret = new Consumer(group);
  cleanup.add('close secret consumer', () => secret.close());
  secret.subscribe(['acl-secret']);
  assert.equal(await protocolError(secret.poll({ timeoutMs: 300_000 })), 'TOPIC_AUTHORIZATION_FAILED');
}

test('Brook\'s clients under ACLs over SASL_SSL (SCRAM-SHA-512): served as granted, refused promptly where not', { timeout: 150_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());

  await t.test('against Apache Kafka 4.4', async () => {
    const kafka = await startKafka({
      saslListeners: ['SASL_SSL'],
      formatArgs: ['--add-scram', `SCRAM-SHA-512=[name=alice,password=${ALICE.password}]`],
      config: {
        'authorizer.class.name': STANDARD, 'super.users': 'User:ANONYMOUS',
        'ssl.keystore.type': 'PEM', 'ssl.keystore.location': pki.serverEncryptedKeystore, 'ssl.key.password': pki.serverKeyPassword,
        'ssl.truststore.type': 'PEM', 'ssl.truststore.location': pki.ca,
        'listener.name.sasl_ssl.sasl.enabled.mechanisms': 'SCRAM-SHA-512',
        'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
      },
    });
    cleanup.add('stop kafka', () => kafka.stop());
    await setUp(kafka.port);
    await scenario({ bootstrapServers: `127.0.0.1:${kafka.listenerPorts['SASL_SSL']!}`, securityProtocol: 'SASL_SSL', ssl: { ca: pki.caPem }, sasl: ALICE }, cleanup);
  });

  await t.test('against Brook\'s broker', async () => {
    const dir = tempDir('brook-client-acls-');
    cleanup.add('remove data dir', () => dir.remove());
    const added = await brookCli(['users', 'add', 'alice', '--mechanism', 'SCRAM-SHA-512', '--password', ALICE.password, '--data-dir', dir.path]);
    assert.equal(added.code, 0, added.stderr);
    const broker = await startBrook({
      dataDir: dir.path, listeners: 'PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0', saslEnabledMechanisms: 'SCRAM-SHA-512',
      ssl: { keystoreType: 'PEM', keystoreLocation: pki.serverKeystore, truststoreType: 'PEM', truststoreLocation: pki.ca },
      authorizerClassName: STANDARD, superUsers: 'User:ANONYMOUS',
    });
    cleanup.add('stop broker', () => broker.stop());
    const port = (protocol: string): number => broker.listeners.find((l) => l.securityProtocol === protocol)!.port;
    await setUp(port('PLAINTEXT'));
    await scenario({ bootstrapServers: `127.0.0.1:${port('SASL_SSL')}`, securityProtocol: 'SASL_SSL', ssl: { ca: pki.caPem }, sasl: ALICE }, cleanup);
  });
});
