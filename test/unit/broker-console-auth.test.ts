/**
 * Who may read and write through the console:
 * - a broker with a SASL listener asks every console request for HTTP Basic credentials
 *   (401 with `WWW-Authenticate: Basic realm="brook"`), checked as SASL checks them: a JAAS
 *   PLAIN user with the JAAS password (not the store's), a store SCRAM user with the password
 *   the credential was made from; wrong passwords, unknown users and malformed headers: 401;
 * - with an authorizer, the ACLs decide as for the Kafka APIs: a user sees only the groups
 *   and topics it may DESCRIBE (the others hidden: 404), resets offsets with READ on the group
 *   and topic, and may not delete without DELETE on the group; a super user sees and does
 *   everything; the event stream carries only the timeline entries of the groups the user may
 *   describe.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import type { AclCreation } from '../../src/protocol/messages/create-acls.js';
import { credentialFromSaltedPassword, saltedPassword, SCRAM_SHA_256 } from '../../src/protocol/sasl/scram.js';
import { plainCredential } from '../../src/broker/sasl/plain-password.js';
import { Admin } from '../../src/index.js';
import { startBrook } from '../support/brook.js';

const T = { timeout: 60_000 };
const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
// Kafka's codes: resource TOPIC 2, GROUP 3; pattern LITERAL 3; operation READ 3, DESCRIBE 8; permission ALLOW 3.
const TOPIC = 2, GROUP = 3, LITERAL = 3, READ = 3, DESCRIBE = 8, ALLOW = 3;

const basic = (user: string, password: string): Record<string, string> => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

async function get(port: number, path: string, headers: Record<string, string> = {}, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) as Record<string, unknown> : { text } };
}

test('a SASL broker: Basic credentials of its SASL users (JAAS PLAIN, store SCRAM), 401 otherwise', T, async (t) => {
  const broker = await startBrook({
    consolePort: 0, listeners: 'SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-256',
    listenerSaslJaasConfig: { SASL_PLAINTEXT: { PLAIN: `${PLAIN_MODULE} required user_alice="alice-secret";` } },
  });
  t.after(() => broker.stop());
  const salt = randomBytes(16);
  broker.context.credentials.apply([
    { op: 'setPlain', user: 'alice', credential: await plainCredential('store-password') },
    { op: 'upsertScram', user: 'sam', mechanism: 'SCRAM-SHA-256', credential: credentialFromSaltedPassword(SCRAM_SHA_256, saltedPassword(SCRAM_SHA_256, 'sam-secret', salt, 4096), salt, 4096) },
  ]);
  const port = broker.consolePort!;

  for (const [what, headers] of [
    ['no credentials', {}],
    ['a wrong password', basic('alice', 'nope')],
    ['the store password of a JAAS user (SASL takes the JAAS one)', basic('alice', 'store-password')],
    ['an unknown user', basic('mallory', 'alice-secret')],
    ['a SCRAM user\'s wrong password', basic('sam', 'alice-secret')],
    ['a malformed header', { Authorization: 'Basic !!!' }],
    ['another scheme', { Authorization: 'Bearer abc' }],
  ] as const) {
    const r = await get(port, '/api/overview', headers);
    assert.equal(r.status, 401, what);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Basic realm="brook"/, what);
  }
  assert.equal((await get(port, '/')).status, 401, 'the page too: the browser asks for credentials');
  assert.equal((await get(port, '/api/events')).status, 401);

  const alice = await get(port, '/api/overview', basic('alice', 'alice-secret'));
  assert.equal(alice.status, 200);
  assert.equal(alice.body['principal'], 'User:alice');
  const sam = await get(port, '/api/overview', basic('sam', 'sam-secret'));
  assert.equal(sam.status, 200);
  assert.equal(sam.body['principal'], 'User:sam');
  assert.equal((await get(port, '/', basic('sam', 'sam-secret'))).status, 200);
});

test('with an authorizer: the ACLs filter what a user sees and may do, as for the Kafka APIs', T, async (t) => {
  const broker = await startBrook({ consolePort: 0, consoleWritesEnable: true, authorizerClassName: STANDARD, superUsers: 'User:ANONYMOUS;User:admin' });
  t.after(() => broker.stop());
  broker.context.credentials.apply([
    { op: 'setPlain', user: 'alice', credential: await plainCredential('alice-pw') },
    { op: 'setPlain', user: 'admin', credential: await plainCredential('admin-pw') },
  ]);
  const port = broker.consolePort!;
  broker.createTopic('open', 1);
  broker.createTopic('secret', 1);
  // The set-up over PLAINTEXT is User:ANONYMOUS, a super user.
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  t.after(() => admin.close());
  for (const g of ['visible', 'hidden']) await admin.commitOffsets(g, [{ topic: 'open', partition: 0, offset: 0n }, { topic: 'secret', partition: 0, offset: 0n }]);
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const allow = (resourceType: number, resourceName: string, operation: number): AclCreation =>
    ({ resourceType, resourceName, resourcePatternType: LITERAL, principal: 'User:alice', host: '*', operation, permissionType: ALLOW });
  const created = await conn.request(Api.CreateAcls, {
    creations: [allow(GROUP, 'visible', DESCRIBE), allow(GROUP, 'visible', READ), allow(TOPIC, 'open', DESCRIBE), allow(TOPIC, 'open', READ)],
  });
  assert.deepEqual(created.results.map((r) => r.errorCode), [0, 0, 0, 0]);

  const a = basic('alice', 'alice-pw');
  const overview = await get(port, '/api/overview', a);
  assert.equal(overview.status, 200);
  assert.deepEqual((overview.body['groups'] as { groupId: string }[]).map((g) => g.groupId), ['visible']);
  assert.deepEqual((overview.body['topics'] as { name: string }[]).map((x) => x.name), ['open']);
  const group = await get(port, '/api/groups/visible', a);
  assert.equal(group.status, 200);
  assert.deepEqual((group.body['lag'] as { topic: string }[]).map((l) => l.topic), ['open'], 'the secret topic\'s offsets are not shown');
  assert.equal((await get(port, '/api/groups/hidden', a)).status, 404, 'a group alice may not describe is hidden');
  assert.equal((await get(port, '/api/groups/hidden/lag-history', a)).status, 404);

  const su = basic('admin', 'admin-pw');
  const all = await get(port, '/api/overview', su);
  assert.deepEqual((all.body['groups'] as { groupId: string }[]).map((g) => g.groupId), ['hidden', 'visible']);
  assert.deepEqual((all.body['topics'] as { name: string }[]).map((x) => x.name).filter((n) => !n.startsWith('__')), ['open', 'secret']);

  const json = { 'Content-Type': 'application/json' };
  const reset = (who: Record<string, string>, topic: string): Promise<{ status: number; body: Record<string, unknown> }> =>
    get(port, '/api/groups/visible/reset-offsets', who, { method: 'POST', headers: json, body: JSON.stringify({ topic, to: 'latest' }) });
  assert.equal((await reset(a, 'open')).status, 200, 'READ on the group and the topic');
  assert.equal((await reset(a, 'secret')).status, 404, 'a topic alice may not describe');
  const del = await get(port, '/api/groups/visible', a, { method: 'DELETE' });
  assert.deepEqual([del.status, del.body['error']], [403, 'GROUP_AUTHORIZATION_FAILED']);
  assert.equal((await get(port, '/api/groups/hidden', a, { method: 'DELETE' })).status, 403);
  assert.equal((await get(port, '/api/groups/hidden', su, { method: 'DELETE' })).status, 200, 'a super user may');
  assert.deepEqual((await admin.listGroups()).map((g) => g.group).sort(), ['visible']);
});

test('the event stream sends a user only the timeline entries of groups it may describe', T, async (t) => {
  const broker = await startBrook({ consolePort: 0, authorizerClassName: STANDARD, superUsers: 'User:ANONYMOUS' });
  t.after(() => broker.stop());
  broker.context.credentials.apply([{ op: 'setPlain', user: 'alice', credential: await plainCredential('alice-pw') }]);
  broker.createTopic('jobs', 1);
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const created = await conn.request(Api.CreateAcls, {
    creations: [{ resourceType: GROUP, resourceName: 'mine', resourcePatternType: LITERAL, principal: 'User:alice', host: '*', operation: DESCRIBE, permissionType: ALLOW }],
  });
  assert.equal(created.results[0]!.errorCode, 0);

  const controller = new AbortController();
  t.after(() => controller.abort());
  const stream = await fetch(`http://127.0.0.1:${broker.consolePort}/api/events`, { headers: basic('alice', 'alice-pw'), signal: controller.signal });
  assert.equal(stream.status, 200);
  const reader = stream.body!.getReader();
  let text = '';
  const readUntil = async (needle: string): Promise<void> => {
    while (!text.includes(needle)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before ${needle}`);
      text += Buffer.from(value).toString('utf8');
    }
  };
  await readUntil('brook console events');

  // A KIP-848 member forms each group (as User:ANONYMOUS, a super user): the recorder writes an entry for each, 'theirs' first.
  const groups: string[] = [];
  const unsubscribe = broker.context.timeline.subscribe((e) => groups.push(e.group));
  t.after(unsubscribe);
  for (const groupId of ['theirs', 'mine']) {
    let hb = await conn.request(Api.ConsumerGroupHeartbeat, {
      groupId, memberId: 'CCCCCCCCCCCCCCCCCCCCCC', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['jobs'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    });
    for (let i = 0; i < 50 && !groups.includes(groupId); i++) {
      hb = await conn.request(Api.ConsumerGroupHeartbeat, {
        groupId, memberId: 'CCCCCCCCCCCCCCCCCCCCCC', memberEpoch: hb.memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: hb.assignment?.topicPartitions ?? null,
      });
    }
    assert.ok(groups.includes(groupId), `the recorder wrote an entry for ${groupId}`);
  }
  await readUntil('"group":"mine"');
  const events = text.split('\n\n').filter((e) => e.startsWith('event: timeline')).map((e) => (JSON.parse(e.split('\n')[1]!.slice('data: '.length)) as { group: string }).group);
  assert.ok(events.length > 0 && events.every((g) => g === 'mine'), `alice got ${JSON.stringify(events)}`);
});
