/**
 * The share-group offset APIs with Kafka's StandardAuthorizer, over the wire as a principal
 * (User:ANONYMOUS) with only some ACLs, checked as Kafka 4.4's KafkaApis checks them:
 * DescribeShareGroupOffsets (DESCRIBE on the group; named topics without DESCRIBE last with
 * TOPIC_AUTHORIZATION_FAILED per partition; left out of "all topics"), AlterShareGroupOffsets
 * (READ on the group, READ per topic, refused topics first), DeleteShareGroupOffsets (DELETE on
 * the group, READ per topic, refused topics first). The share state is set up first while the
 * principal is a super user.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { AclCreation } from '../../src/protocol/messages/create-acls.js';
import { startBrook, tempDir } from '../support/brook.js';

const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
// Kafka's codes: resource TOPIC 2, GROUP 3; pattern LITERAL 3; operation READ 3, DELETE 6, DESCRIBE 8; ALLOW 3.
const TOPIC = 2, GROUP = 3, LITERAL = 3, READ = 3, DELETE = 6, DESCRIBE = 8, ALLOW = 3;
const allow = (resourceType: number, resourceName: string, operation: number): AclCreation =>
  ({ resourceType, resourceName, resourcePatternType: LITERAL, principal: 'User:ANONYMOUS', host: '*', operation, permissionType: ALLOW });
const TOPIC_DENIED = { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Topic authorization failed.' };

const connect = (port: number): Promise<KafkaConnection> => KafkaConnection.connect({ host: '127.0.0.1', port, clientId: 'share-acls-test' });

test('the share-group offset APIs authorize as Kafka\'s KafkaApis', { timeout: 60_000 }, async (t) => {
  const dir = tempDir('brook-share-acls-');
  const options = { dataDir: dir.path, authorizerClassName: STANDARD, autoCreateTopics: false };
  const admin = await startBrook({ ...options, superUsers: 'User:ANONYMOUS' });
  admin.createTopic('open', 1);
  admin.createTopic('secret', 1);
  let conn = await connect(admin.port);
  const altered = await conn.request(Api.AlterShareGroupOffsets, { groupId: 'g', topics: [{ topicName: 'secret', partitions: [{ partitionIndex: 0, startOffset: 0n }] }] });
  assert.equal(altered.responses[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  const created = await conn.request(Api.CreateAcls, {
    creations: [allow(GROUP, 'g', READ), allow(GROUP, 'g', DESCRIBE), allow(GROUP, 'g', DELETE), allow(TOPIC, 'open', READ), allow(TOPIC, 'open', DESCRIBE)],
  });
  assert.deepEqual(created.results.map((r) => r.errorCode), [0, 0, 0, 0, 0]);
  const secretId = admin.context.storage.topic('secret')!.topicId;
  conn.close();
  await admin.stop();

  const broker = await startBrook(options);
  conn = await connect(broker.port);
  t.after(async () => {
    conn.close();
    await broker.stop();
    dir.remove();
  });

  // DescribeShareGroupOffsets
  const denied = await conn.request(Api.DescribeShareGroupOffsets, { groups: [{ groupId: 'other', topics: null }] }, { version: 1 });
  assert.deepEqual(denied.groups.map((g) => [g.groupId, g.errorCode, g.topics]), [['other', ErrorCode.GROUP_AUTHORIZATION_FAILED, []]]);
  const all = await conn.request(Api.DescribeShareGroupOffsets, { groups: [{ groupId: 'g', topics: null }] }, { version: 1 });
  assert.deepEqual(all.groups[0]!.topics, [], 'the secret topic is left out');
  const named = await conn.request(Api.DescribeShareGroupOffsets, { groups: [{ groupId: 'g', topics: [{ topicName: 'secret', partitions: [0] }, { topicName: 'open', partitions: [0] }] }] }, { version: 1 });
  assert.deepEqual(named.groups[0]!.topics.map((x) => [x.topicName, x.partitions.map((p) => [p.startOffset, p.errorCode, p.errorMessage])]), [
    ['open', [[-1n, ErrorCode.NONE, null]]],
    ['secret', [[-1n, TOPIC_DENIED.errorCode, TOPIC_DENIED.errorMessage]]],
  ]);

  // AlterShareGroupOffsets: refused topics first (an existing one with its id), then the coordinator's.
  const alter = await conn.request(Api.AlterShareGroupOffsets, {
    groupId: 'g',
    topics: [{ topicName: 'open', partitions: [{ partitionIndex: 0, startOffset: 0n }] }, { topicName: 'secret', partitions: [{ partitionIndex: 0, startOffset: 0n }] }],
  });
  assert.deepEqual(alter.responses.map((x) => [x.topicName, x.topicId === secretId, x.partitions.map((p) => ({ errorCode: p.errorCode, errorMessage: p.errorMessage }))]), [
    ['secret', true, [TOPIC_DENIED]],
    ['open', false, [{ errorCode: ErrorCode.NONE, errorMessage: null }]],
  ]);
  const alterOther = await conn.request(Api.AlterShareGroupOffsets, { groupId: 'other', topics: [] });
  assert.deepEqual([alterOther.errorCode, alterOther.errorMessage], [ErrorCode.GROUP_AUTHORIZATION_FAILED, 'Group authorization failed.']);

  // DeleteShareGroupOffsets
  const deleted = await conn.request(Api.DeleteShareGroupOffsets, { groupId: 'g', topics: [{ topicName: 'open' }, { topicName: 'secret' }] });
  assert.deepEqual(deleted.responses.map((x) => [x.topicName, x.errorCode, x.errorMessage]), [
    ['secret', TOPIC_DENIED.errorCode, TOPIC_DENIED.errorMessage],
    ['open', ErrorCode.NONE, null],
  ]);
  const deleteOther = await conn.request(Api.DeleteShareGroupOffsets, { groupId: 'other', topics: [{ topicName: 'open' }] });
  assert.deepEqual([deleteOther.errorCode, deleteOther.responses], [ErrorCode.GROUP_AUTHORIZATION_FAILED, []]);
});
