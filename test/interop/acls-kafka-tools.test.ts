/**
 * Authorization with Kafka's own tools and a third-party client: a Brook broker with Kafka's
 * StandardAuthorizer setting, an admin (super user User:ANONYMOUS on a PLAINTEXT listener) and
 * a restricted principal (an mTLS client certificate on an SSL listener, `User:` + its
 * subject as openssl writes it in RFC 2253).
 *  - `kafka-acls` (AclCommand, Kafka 4.4.0) adds, lists and removes ACLs;
 *  - KafkaJS as the restricted principal is refused (TOPIC_AUTHORIZATION_FAILED,
 *    GROUP_AUTHORIZATION_FAILED) until the ACLs allow it, then produces and consumes in a group;
 *  - the ACLs survive a restart of the broker on the same data directory;
 *  - without an authorizer, `kafka-acls --list` fails with Kafka's SECURITY_DISABLED.
 * Needs Java 17 with Kafka's classpath (test/support/kafka/build.sh) and openssl.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, until, type RunResult } from '../support/clients/run.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';
import { makeTestPki, opensslMissing, type TestPki } from '../support/tls-certs.js';
import type { Broker } from '../../src/broker/broker.js';

const ACL_COMMAND = 'org.apache.kafka.tools.AclCommand';
const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';

function kafkaAcls(bootstrap: string, args: readonly string[]): Promise<RunResult> {
  return runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), ACL_COMMAND, '--bootstrap-server', bootstrap, ...args], { timeoutMs: 60_000 });
}

function port(broker: Broker, protocol: 'PLAINTEXT' | 'SSL'): number {
  return broker.listeners.find((l) => l.securityProtocol === protocol)!.port;
}

function restricted(broker: Broker, pki: TestPki): Kafka {
  return new Kafka({
    clientId: 'brook-acls-kafkajs',
    brokers: [`localhost:${port(broker, 'SSL')}`],
    logLevel: process.env['BROOK_TEST_LOG'] ? logLevel.INFO : logLevel.NOTHING,
    connectionTimeout: 3_000,
    retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 500 },
    ssl: { ca: [pki.caPem], cert: readFileSync(pki.client.cert, 'utf8'), key: readFileSync(pki.client.key, 'utf8') },
  });
}

/** The `(principal=..., host=..., operation=..., permissionType=...)` entries kafka-acls --list prints, sorted. */
function listed(out: string): string[] {
  return [...out.matchAll(/\(principal=(.*?), host=(\S+), operation=(\w+), permissionType=(\w+)\)/g)].map((m) => `${m[1]} ${m[2]} ${m[3]} ${m[4]}`).sort();
}

async function errorType(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (err) {
    // KafkaJS wraps the broker's error once it gives up retrying.
    const e = err as { type?: string; cause?: { type?: string }; originalError?: { type?: string } };
    return e.type ?? e.originalError?.type ?? e.cause?.type ?? String(err);
  }
  return 'no error';
}

test('kafka-acls manages Brook\'s ACLs, which refuse and then allow a KafkaJS client, and survive a restart', { timeout: 240_000, skip: opensslMissing() ?? false }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const data = tempDir('brook-acls-');
  cleanup.add('remove data', () => data.remove());
  const settings = {
    listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
    ssl: { keystoreType: 'PEM', keystoreLocation: pki.serverKeystore, truststoreType: 'PEM', truststoreLocation: pki.ca, clientAuth: 'required' as const },
    dataDir: data.path,
    authorizerClassName: STANDARD_AUTHORIZER,
    superUsers: 'User:ANONYMOUS',
  };
  let broker = await startBrook(settings);
  let stopped = false;
  cleanup.add('stop broker', () => (stopped ? undefined : broker.stop()));
  broker.createTopic('orders', 1);
  const admin = `127.0.0.1:${port(broker, 'PLAINTEXT')}`;
  const user = `User:${pki.client.subjectRfc2253}`;

  const kafka = restricted(broker, pki);
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  cleanup.add('disconnect producer', () => producer.disconnect());
  const send = (): Promise<unknown> => producer.send({ topic: 'orders', messages: [{ key: 'k', value: 'v1' }] });
  assert.equal(await errorType(send), 'TOPIC_AUTHORIZATION_FAILED', 'no ACL: the producer is refused');

  const add = await kafkaAcls(admin, ['--add', '--allow-principal', user, '--operation', 'Write', '--topic', 'orders']);
  assert.equal(add.code, 0, add.stdout + add.stderr);
  await send();

  const admin2 = kafka.admin();
  await admin2.connect();
  cleanup.add('disconnect admin', () => admin2.disconnect());
  // FindCoordinator answers GROUP_AUTHORIZATION_FAILED, which KafkaJS reports as not finding the coordinator.
  assert.match(await errorType(() => admin2.fetchOffsets({ groupId: 'billing', topics: ['orders'] })), /Failed to find group coordinator/);
  const describe = await kafkaAcls(admin, ['--add', '--allow-principal', user, '--operation', 'Describe', '--group', 'billing']);
  assert.equal(describe.code, 0, describe.stdout + describe.stderr);
  // DESCRIBE on the group lets it find the coordinator and read offsets, but joining needs READ.
  assert.deepEqual(await admin2.fetchOffsets({ groupId: 'billing', topics: ['orders'] }), [{ topic: 'orders', partitions: [{ partition: 0, offset: '-1', metadata: null }] }]);
  const refused = kafka.consumer({ groupId: 'billing', retry: { retries: 0 } });
  const crashed = new Promise<{ type?: string }>((resolve) => refused.on(refused.events.CRASH, (e) => resolve(e.payload.error as { type?: string })));
  await refused.connect();
  await refused.subscribe({ topic: 'orders', fromBeginning: true });
  await refused.run({ eachMessage: async () => {} });
  assert.equal((await crashed).type, 'GROUP_AUTHORIZATION_FAILED', 'JoinGroup without READ on the group');
  await refused.disconnect();

  const read = await kafkaAcls(admin, ['--add', '--allow-principal', user, '--operation', 'Read', '--topic', 'orders', '--group', 'billing']);
  assert.equal(read.code, 0, read.stdout + read.stderr);
  const consumer = kafka.consumer({ groupId: 'billing', sessionTimeout: 10_000, heartbeatInterval: 500 });
  await consumer.connect();
  cleanup.add('disconnect consumer', () => consumer.disconnect());
  await consumer.subscribe({ topic: 'orders', fromBeginning: true });
  const seen: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => { seen.push(message.value!.toString()); } });
  await until('the restricted consumer reads what it produced', 30_000, async () => (seen.length >= 1 ? true : undefined));
  assert.deepEqual(seen, ['v1']);
  await consumer.disconnect();

  const list = await kafkaAcls(admin, ['--list', '--topic', 'orders']);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(listed(list.stdout), [`${user} * READ ALLOW`, `${user} * WRITE ALLOW`]);

  const remove = await kafkaAcls(admin, ['--remove', '--force', '--allow-principal', user, '--operation', 'Write', '--topic', 'orders']);
  assert.equal(remove.code, 0, remove.stdout + remove.stderr);
  assert.equal(await errorType(send), 'TOPIC_AUTHORIZATION_FAILED', 'WRITE removed: refused again');
  await producer.disconnect();
  await admin2.disconnect();

  stopped = true;
  await broker.stop();
  broker = await startBrook(settings);
  stopped = false;
  const after = await kafkaAcls(`127.0.0.1:${port(broker, 'PLAINTEXT')}`, ['--list']);
  assert.equal(after.code, 0, after.stderr);
  assert.deepEqual(listed(after.stdout), [`${user} * DESCRIBE ALLOW`, `${user} * READ ALLOW`, `${user} * READ ALLOW`], 'after a restart: READ on the topic, DESCRIBE and READ on the group');
});

test('without an authorizer kafka-acls is told SECURITY_DISABLED', { timeout: 120_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const broker = await startBrook();
  t.after(() => broker.stop());
  const list = await kafkaAcls(broker.bootstrap, ['--list']);
  assert.match(list.stdout + list.stderr, /SecurityDisabledException: No Authorizer is configured/);
  const add = await kafkaAcls(broker.bootstrap, ['--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 't']);
  assert.match(add.stdout + add.stderr, /SecurityDisabledException: No Authorizer is configured/);
});
