/**
 * SASL principals under the StandardAuthorizer, as KafkaJS sees them: SCRAM users `admin`
 * (a super user), `alice` and `bob` on a SASL_PLAINTEXT listener. Without ACLs alice and bob
 * are refused with Kafka's TOPIC_/GROUP_AUTHORIZATION_FAILED; once the admin grants alice
 * WRITE and READ on the prefix `orders` and READ on her group (KafkaJS's createAcls), alice
 * produces and consumes in the group while bob, and alice on another topic, stay refused; and
 * the SCRAM-credential APIs need ALTER / DESCRIBE on the cluster (Brook's admin client as
 * alice gets CLUSTER_AUTHORIZATION_FAILED, as admin succeeds).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import kafkajs from 'kafkajs';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { brookCli } from '../support/admin-fixture.js';
import { Admin } from '../../src/index.js';

const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } = kafkajs;
type Kafka = InstanceType<typeof Kafka>;
type AclResourceTypes = kafkajs.AclResourceTypes;
type ResourcePatternTypes = kafkajs.ResourcePatternTypes;
type AclOperationTypes = kafkajs.AclOperationTypes;

const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const PASSWORDS: Record<string, string> = { admin: 'admin-secret', alice: 'alice-secret', bob: 'bob-secret' };

test('SASL users under ACLs: refused without them, served with them, as KafkaJS reports it', { timeout: 120_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  for (const [name, password] of Object.entries(PASSWORDS)) {
    const r = await brookCli(['users', 'add', name, '--mechanism', 'SCRAM-SHA-256', '--password', password, '--data-dir', dir.path]);
    assert.equal(r.code, 0, r.stderr);
  }
  const broker = await startBrook({
    dataDir: dir.path, listeners: 'SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'SCRAM-SHA-256',
    authorizerClassName: STANDARD, superUsers: 'User:admin',
  });
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = `127.0.0.1:${broker.listeners[0]!.port}`;
  const client = (user: string): Kafka => new Kafka({
    clientId: `acl-${user}`, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 },
    sasl: { mechanism: 'scram-sha-256', username: user, password: PASSWORDS[user]! },
  });
  const errorType = async (work: () => Promise<unknown>): Promise<string> => {
    try {
      await work();
      return 'none';
    } catch (err) {
      const e = err as { type?: string; cause?: { type?: string }; name?: string };
      return e.type ?? e.cause?.type ?? e.name ?? String(err);
    }
  };
  const produce = async (user: string, topic: string): Promise<string> => {
    const producer = client(user).producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      return await errorType(() => producer.send({ topic, messages: [{ value: `${user}->${topic}` }] }));
    } finally {
      await producer.disconnect();
    }
  };

  const admin = client('admin').admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'orders-eu', numPartitions: 1 }, { topic: 'payroll', numPartitions: 1 }] });

  assert.equal(await produce('alice', 'orders-eu'), 'TOPIC_AUTHORIZATION_FAILED');
  assert.equal(await produce('admin', 'orders-eu'), 'none');

  const allow = (resourceType: AclResourceTypes, resourceName: string, resourcePatternType: ResourcePatternTypes, operation: AclOperationTypes) => ({
    resourceType, resourceName, resourcePatternType, principal: 'User:alice', host: '*', operation, permissionType: AclPermissionTypes.ALLOW,
  });
  await admin.createAcls({
    acl: [
      allow(AclResourceTypes.TOPIC, 'orders', ResourcePatternTypes.PREFIXED, AclOperationTypes.WRITE),
      allow(AclResourceTypes.TOPIC, 'orders', ResourcePatternTypes.PREFIXED, AclOperationTypes.READ),
      allow(AclResourceTypes.GROUP, 'alice-group', ResourcePatternTypes.LITERAL, AclOperationTypes.READ),
    ],
  });

  assert.equal(await produce('alice', 'orders-eu'), 'none');
  assert.equal(await produce('alice', 'payroll'), 'TOPIC_AUTHORIZATION_FAILED');
  assert.equal(await produce('bob', 'orders-eu'), 'TOPIC_AUTHORIZATION_FAILED');

  // alice reads both records in her group; a group she has no ACL for is refused.
  const consumer = client('alice').consumer({ groupId: 'alice-group', sessionTimeout: 10_000 });
  await consumer.connect();
  cleanup.add('consumer', () => consumer.disconnect());
  await consumer.subscribe({ topic: 'orders-eu', fromBeginning: true });
  const values: string[] = [];
  await new Promise<void>((resolve, reject) => {
    consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value!.toString());
        if (values.length === 2) resolve();
      },
    }).catch(reject);
  });
  assert.deepEqual(values.sort(), ['admin->orders-eu', 'alice->orders-eu']);
  // KafkaJS gives up with its own KafkaJSGroupCoordinatorNotFound; the broker's code is in its debug log.
  const coordinatorErrors: string[] = [];
  const logged = new Kafka({
    clientId: 'acl-alice-logged', brokers: [bootstrap], retry: { retries: 0 }, logLevel: logLevel.DEBUG,
    sasl: { mechanism: 'scram-sha-256', username: 'alice', password: PASSWORDS['alice']! },
    logCreator: () => ({ log }) => {
      const entry = log as { message?: string; error?: { type?: string } };
      if (entry.message === 'Tried to find group coordinator' && entry.error?.type !== undefined) coordinatorErrors.push(entry.error.type);
    },
  });
  const other = logged.consumer({ groupId: 'not-alices', sessionTimeout: 10_000, retry: { retries: 0 } });
  await other.connect();
  cleanup.add('other consumer', () => other.disconnect());
  await other.subscribe({ topic: 'orders-eu', fromBeginning: true });
  const crashed = new Promise<void>((resolve) => other.on(other.events.CRASH, () => resolve()));
  void other.run({ eachMessage: async () => {} }).catch(() => {});
  await crashed;
  assert.deepEqual([...new Set(coordinatorErrors)], ['GROUP_AUTHORIZATION_FAILED']);

  // The SCRAM-credential APIs: ALTER / DESCRIBE on the cluster.
  const asUser = (user: string) => Admin.connect({
    bootstrapServers: bootstrap, securityProtocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-256', username: user, password: PASSWORDS[user]! },
  });
  const aliceAdmin = await asUser('alice');
  cleanup.add('alice admin', () => aliceAdmin.close());
  await assert.rejects(aliceAdmin.describeUserScramCredentials(), /CLUSTER_AUTHORIZATION_FAILED/);
  const superAdmin = await asUser('admin');
  cleanup.add('super admin', () => superAdmin.close());
  const described = await superAdmin.describeUserScramCredentials();
  assert.deepEqual(described.map((u) => u.user).sort(), ['admin', 'alice', 'bob']);
});
