/**
 * Brook's broker with Kafka's StandardAuthorizer setting, over the wire with Brook's own
 * connection (principal User:ANONYMOUS on a PLAINTEXT listener): the settings' checks, the
 * ACL APIs (Kafka's validation messages from AclApis and AclControlManager, SECURITY_DISABLED
 * without an authorizer, filters with MATCH and ANY), durability (a reopened data directory,
 * a failed write answered as an error), and what a principal without ACLs may do once it is no
 * longer a super user. Kafka's own behaviour is checked by the interop tests
 * (authorizer-kafka, acls-kafka-tools).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { AclCreation } from '../../src/protocol/messages/create-acls.js';
import { startBrook, tempDir } from '../support/brook.js';
import { FaultyFileSystem } from '../support/storage/faulty-fs.js';
import { configFromProperties } from '../../src/broker/broker-properties.js';

const TIMEOUT = { timeout: 60_000 };
const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
// Kafka's codes: resource TOPIC 2, GROUP 3, CLUSTER 4; pattern ANY 1, MATCH 2, LITERAL 3, PREFIXED 4;
// operation ANY 1, ALL 2, READ 3, WRITE 4, CREATE 5, DESCRIBE 8; permission ANY 1, DENY 2, ALLOW 3.
const TOPIC = 2, GROUP = 3, CLUSTER = 4;
const ANY = 1, MATCH = 2, LITERAL = 3, PREFIXED = 4;
const READ = 3, WRITE = 4, DESCRIBE = 8, DENY = 2, ALLOW = 3;

const acl = (resourceType: number, resourceName: string, resourcePatternType: number, operation: number, permissionType = ALLOW, principal = 'User:ANONYMOUS'): AclCreation =>
  ({ resourceType, resourceName, resourcePatternType, principal, host: '*', operation, permissionType });

async function connect(port: number): Promise<KafkaConnection> {
  return KafkaConnection.connect({ host: '127.0.0.1', port, clientId: 'acls-test' });
}

const everything = { resourceTypeFilter: ANY, resourceNameFilter: null, patternTypeFilter: ANY, principalFilter: null, hostFilter: null, operation: ANY, permissionType: ANY };

test('authorizer.class.name: the StandardAuthorizer, not the removed AclAuthorizer nor an unknown class; super.users checked', TIMEOUT, async () => {
  await assert.rejects(startBrook({ authorizerClassName: 'kafka.security.authorizer.AclAuthorizer' }), /removed in Kafka 4\.0.*use org\.apache\.kafka\.metadata\.authorizer\.StandardAuthorizer/);
  await assert.rejects(startBrook({ authorizerClassName: 'com.example.Mine' }), /Class com\.example\.Mine cannot be found/);
  await assert.rejects(startBrook({ authorizerClassName: STANDARD, superUsers: 'User:a;bob' }), /expected a string in format principalType:principalName but got bob/);
  const broker = await startBrook({ authorizerClassName: ` ${STANDARD} `, superUsers: ' User:ANONYMOUS ; ' });
  await broker.stop();
});

test('without an authorizer the ACL APIs answer SECURITY_DISABLED', TIMEOUT, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const conn = await connect(broker.port);
  t.after(() => conn.close());
  const created = await conn.request(Api.CreateAcls, { creations: [acl(TOPIC, 't', LITERAL, READ), acl(GROUP, 'g', LITERAL, READ)] });
  assert.deepEqual(created.results.map((r) => [r.errorCode, r.errorMessage]), [[ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.'], [ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.']]);
  const described = await conn.request(Api.DescribeAcls, everything);
  assert.deepEqual([described.errorCode, described.errorMessage], [ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured on the broker']);
  const deleted = await conn.request(Api.DeleteAcls, { filters: [everything] });
  assert.deepEqual(deleted.filterResults.map((r) => r.errorCode), [ErrorCode.SECURITY_DISABLED]);
});

test('CreateAcls checks each creation as Kafka does; DescribeAcls and DeleteAcls filter as AclBindingFilter; the ACLs are in the data directory', TIMEOUT, async (t) => {
  const dir = tempDir();
  const broker = await startBrook({ dataDir: dir.path, authorizerClassName: STANDARD, superUsers: 'User:ANONYMOUS' });
  t.after(async () => {
    await broker.stop();
    dir.remove();
  });
  const conn = await connect(broker.port);
  t.after(() => conn.close());
  const created = await conn.request(Api.CreateAcls, {
    creations: [
      acl(TOPIC, 'orders', LITERAL, READ),
      acl(TOPIC, 'ord', PREFIXED, WRITE),
      acl(TOPIC, '*', LITERAL, DESCRIBE, DENY, 'User:bob'),
      acl(TOPIC, 'orders', LITERAL, READ),
      acl(CLUSTER, 'my-cluster', LITERAL, READ),
      acl(TOPIC, '', LITERAL, READ),
      acl(ANY, 'x', LITERAL, READ),
      acl(TOPIC, 'x', MATCH, READ),
      acl(TOPIC, 'x', LITERAL, ANY),
      acl(TOPIC, 'x', LITERAL, READ, ANY),
    ],
  });
  assert.deepEqual(created.results.map((r) => [r.errorCode, r.errorMessage]), [
    [0, null], [0, null], [0, null], [0, null],
    [ErrorCode.INVALID_REQUEST, 'The only valid name for the CLUSTER resource is kafka-cluster'],
    [ErrorCode.INVALID_REQUEST, 'Invalid empty resource name'],
    [ErrorCode.INVALID_REQUEST, 'Invalid resourceType ANY'],
    [ErrorCode.INVALID_REQUEST, 'Invalid patternType MATCH'],
    [ErrorCode.INVALID_REQUEST, 'Invalid operation ANY'],
    [ErrorCode.INVALID_REQUEST, 'Invalid permissionType ANY'],
  ]);
  // MATCH: the ACLs that apply to the topic "orders" (literal, wildcard, prefixed); an equal ACL created twice is stored once.
  const matching = await conn.request(Api.DescribeAcls, { ...everything, resourceTypeFilter: TOPIC, resourceNameFilter: 'orders', patternTypeFilter: MATCH });
  assert.equal(matching.errorCode, 0);
  assert.deepEqual(matching.resources.map((r) => [r.resourceName, r.patternType, r.acls.map((a) => [a.principal, a.operation, a.permissionType])]).sort(), [
    ['*', LITERAL, [['User:bob', DESCRIBE, DENY]]], ['ord', PREFIXED, [['User:ANONYMOUS', WRITE, ALLOW]]], ['orders', LITERAL, [['User:ANONYMOUS', READ, ALLOW]]],
  ]);
  // A LITERAL filter is exact: no wildcard, no prefix.
  const literal = await conn.request(Api.DescribeAcls, { ...everything, resourceNameFilter: 'orders', patternTypeFilter: LITERAL });
  assert.deepEqual(literal.resources.map((r) => r.resourceName), ['orders']);

  const reopened = JSON.parse(readFileSync(join(dir.path, 'acls.json'), 'utf8')) as { acls: unknown[] };
  assert.equal(reopened.acls.length, 3);

  const deleted = await conn.request(Api.DeleteAcls, { filters: [{ ...everything, principalFilter: 'User:bob' }, { ...everything, resourceNameFilter: 'nothing' }] });
  assert.deepEqual(deleted.filterResults.map((r) => [r.errorCode, r.matchingAcls.map((m) => [m.resourceName, m.principal, m.operation])]), [
    [0, [['*', 'User:bob', DESCRIBE]]], [0, []],
  ]);
  const left = await conn.request(Api.DescribeAcls, everything);
  assert.deepEqual(left.resources.map((r) => r.resourceName).sort(), ['ord', 'orders']);
});

test('a request with an UNKNOWN code closes the connection, as Kafka\'s request parsing does', TIMEOUT, async (t) => {
  const broker = await startBrook({ authorizerClassName: STANDARD, superUsers: 'User:ANONYMOUS' });
  t.after(() => broker.stop());
  const conn = await connect(broker.port);
  t.after(() => conn.close());
  await assert.rejects(conn.request(Api.DescribeAcls, { ...everything, operation: 0 }));
  const second = await connect(broker.port);
  t.after(() => second.close());
  await assert.rejects(second.request(Api.CreateAcls, { creations: [acl(TOPIC, 't', LITERAL, READ), acl(0, 't', LITERAL, READ)] }));
  const third = await connect(broker.port);
  t.after(() => third.close());
  await assert.rejects(third.request(Api.DeleteAcls, { filters: [{ ...everything, permissionType: 0 }] }));
  const fresh = await connect(broker.port);
  t.after(() => fresh.close());
  // Nothing of the refused CreateAcls was created.
  const described = await fresh.request(Api.DescribeAcls, everything);
  assert.deepEqual([described.errorCode, described.resources], [0, []]);
});

test('a failed write of the ACLs is answered as an error and changes nothing', TIMEOUT, async (t) => {
  const dir = tempDir();
  const faults = new FaultyFileSystem();
  const broker = await startBrook({ dataDir: dir.path, fileSystem: faults, authorizerClassName: STANDARD, superUsers: 'User:ANONYMOUS' });
  t.after(async () => {
    faults.clear();
    await broker.stop();
    dir.remove();
  });
  const conn = await connect(broker.port);
  t.after(() => conn.close());
  const fault = faults.inject({ op: 'fsync', path: 'acls.json', errno: 'EIO' });
  const created = await conn.request(Api.CreateAcls, { creations: [acl(TOPIC, 'orders', LITERAL, READ)] });
  assert.equal(created.results[0]!.errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
  assert.match(created.results[0]!.errorMessage ?? '', /cannot write acls\.json/);
  assert.deepEqual((await conn.request(Api.DescribeAcls, everything)).resources, []);
  fault.remove();
  assert.equal((await conn.request(Api.CreateAcls, { creations: [acl(TOPIC, 'orders', LITERAL, READ)] })).results[0]!.errorCode, 0);
  const renameFault = faults.inject({ op: 'rename', path: 'acls.json', errno: 'ENOSPC' });
  const deleted = await conn.request(Api.DeleteAcls, { filters: [everything] });
  assert.equal(deleted.filterResults[0]!.errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
  renameFault.remove();
  assert.equal((await conn.request(Api.DescribeAcls, everything)).resources.length, 1);
});

test('after a restart without super users, ACLs decide what User:ANONYMOUS may do', TIMEOUT, async (t) => {
  const dir = tempDir();
  const admin = await startBrook({ dataDir: dir.path, authorizerClassName: STANDARD, superUsers: 'User:ANONYMOUS', autoCreateTopics: false });
  admin.createTopic('orders', 1);
  admin.createTopic('secret', 1);
  const conn = await connect(admin.port);
  const created = await conn.request(Api.CreateAcls, { creations: [acl(TOPIC, 'orders', LITERAL, READ), acl(GROUP, 'billing', LITERAL, DESCRIBE)] });
  assert.deepEqual(created.results.map((r) => r.errorCode), [0, 0]);
  conn.close();
  await admin.stop();

  const broker = await startBrook({ dataDir: dir.path, authorizerClassName: STANDARD, autoCreateTopics: false });
  t.after(async () => {
    await broker.stop();
    dir.remove();
  });
  const c = await connect(broker.port);
  t.after(() => c.close());
  const all = await c.request(Api.Metadata, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: true });
  // READ implies DESCRIBE: the topic is listed, its operations READ and DESCRIBE; "secret" is left out.
  assert.deepEqual(all.topics.map((tp) => [tp.name, tp.errorCode, tp.topicAuthorizedOperations]), [['orders', 0, (1 << READ) | (1 << DESCRIBE)]]);
  const named = await c.request(Api.Metadata, { topics: [{ name: 'secret', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }, { name: 'missing', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  assert.deepEqual(named.topics.map((tp) => [tp.name, tp.errorCode]), [['secret', ErrorCode.TOPIC_AUTHORIZATION_FAILED], ['missing', ErrorCode.TOPIC_AUTHORIZATION_FAILED]]);
  const produced = await c.request(Api.Produce, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'orders', partitionData: [{ index: 0, records: null }] }] });
  assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const cluster = await c.request(Api.DescribeCluster, { includeClusterAuthorizedOperations: true, endpointType: 1 });
  assert.equal(cluster.clusterAuthorizedOperations, 0);
  assert.equal((await c.request(Api.DescribeAcls, everything)).errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  assert.deepEqual((await c.request(Api.CreateAcls, { creations: [acl(TOPIC, 'secret', LITERAL, READ)] })).results.map((r) => r.errorCode), [ErrorCode.CLUSTER_AUTHORIZATION_FAILED]);
  const join = await c.request(Api.JoinGroup, { groupId: 'billing', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null });
  assert.equal(join.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const offsets = await c.request(Api.OffsetFetch, { groups: [{ groupId: 'billing', memberId: null, memberEpoch: -1, topics: [{ name: 'orders', partitionIndexes: [0] }, { name: 'secret', partitionIndexes: [0] }] }, { groupId: 'other', memberId: null, memberEpoch: -1, topics: null }], requireStable: false });
  assert.deepEqual(offsets.groups!.map((g) => [g.groupId, g.errorCode, g.topics.map((tp) => [tp.name, tp.partitions.map((p) => p.errorCode)])]), [
    ['billing', 0, [['orders', [0]], ['secret', [ErrorCode.TOPIC_AUTHORIZATION_FAILED]]]],
    ['other', ErrorCode.GROUP_AUTHORIZATION_FAILED, []],
  ]);
  const groups = await c.request(Api.ListGroups, { statesFilter: [], typesFilter: [] });
  assert.deepEqual(groups.groups, []);
});

test('the properties file names of the authorizer settings, read as Kafka reads them', TIMEOUT, () => {
  const config = configFromProperties(new Map([
    ['authorizer.class.name', ` ${STANDARD}`],
    ['super.users', 'User:admin;User:CN=ops,O=Example'],
    // StandardAuthorizer: Boolean.parseBoolean, so only "true" (any case) is true.
    ['allow.everyone.if.no.acl.found', 'TRUE'],
  ]));
  assert.deepEqual([config.authorizerClassName, config.superUsers, config.allowEveryoneIfNoAclFound], [STANDARD, 'User:admin;User:CN=ops,O=Example', true]);
  assert.equal(configFromProperties(new Map([['allow.everyone.if.no.acl.found', 'yes']])).allowEveryoneIfNoAclFound, false);
});
