/**
 * Every API the broker serves is authorized. Each handler in src/broker/handlers/index.ts
 * declares what it asks the authorizer (`ApiHandler.authorization`), and authorization.ts
 * answers nothing else for its requests; this file checks that:
 *  - every handler declares at least one question, except those Kafka serves to anyone
 *    (ApiVersions and the SASL APIs), which, and only which, are exempt;
 *  - a question a handler did not declare is refused, and so is any from an exempt one;
 *  - with ACLs on, each API refuses a principal that has no ACLs (User:ANONYMOUS once it is no
 *    longer a super user), shown as Kafka 4.4 shows it: the same requests as the
 *    configuration "none" of test/interop/acls-differential.test.ts, where Kafka's
 *    StandardAuthorizer gives these answers (an authorization error per resource, or the
 *    resource left out of a listing). A new handler needs an entry here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaConnection, type RequestOf, type ResponseOf } from '../../src/client/connection.js';
import { Api, type ApiCodecs } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';
import { ALL_HANDLERS } from '../../src/broker/handlers/index.js';
import { AclStore } from '../../src/broker/authorizer/acl-store.js';
import {
  AclOperation, ResourceType, UndeclaredAuthorizationError, authorize, authorizedOperations, authorizes, declaredRules, exemptFromAuthorization, filterAuthorized,
} from '../../src/broker/authorization.js';
import type { RequestContext } from '../../src/broker/handler.js';
import { nodeFileSystem } from '../../src/storage/index.js';
import { startBrook, tempDir } from '../support/brook.js';

const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
/** The APIs Kafka answers without authorization: asked before or while a client authenticates. */
const EXEMPT = new Set(['ApiVersions', 'SaslHandshake', 'SaslAuthenticate']);

test('every handler declares what it authorizes; only ApiVersions and the SASL APIs are exempt, as in Kafka', () => {
  const exempt: string[] = [];
  for (const h of ALL_HANDLERS) {
    const { exempt: reason } = h.authorization;
    if (reason !== null) {
      exempt.push(h.api.name);
      assert.deepEqual(declaredRules(h.authorization), [], `${h.api.name} is exempt and declares rules`);
    } else {
      assert.notDeepEqual(declaredRules(h.authorization), [], `${h.api.name} declares no authorization rule`);
    }
  }
  assert.deepEqual(exempt.sort(), [...EXEMPT].sort(), 'the exempt APIs');
  assert.throws(() => authorizes({}), /needs at least one operation/);
});

test('with an authorizer, a question the handler did not declare is refused; without one nothing is asked', () => {
  const acls = AclStore.open({ superUsers: new Set(), allowEveryoneIfNoAclFound: false }, null, nodeFileSystem);
  const ctx = (authorization: RequestContext['authorization'], withAcls = true): RequestContext => ({
    broker: { acls: withAcls ? acls : null }, principal: 'User:alice', clientHost: '/127.0.0.1', header: { requestApiKey: 9 }, authorization,
  }) as unknown as RequestContext;
  const readTopics = ctx(authorizes({ TOPIC: ['READ'] }));
  assert.equal(authorize(readTopics, AclOperation.READ, ResourceType.TOPIC, 't'), false);
  assert.deepEqual([...filterAuthorized(readTopics, AclOperation.READ, ResourceType.TOPIC, ['t'])], []);
  assert.equal(authorizedOperations(readTopics, ResourceType.TOPIC, 't'), 0);
  assert.throws(() => authorize(readTopics, AclOperation.WRITE, ResourceType.TOPIC, 't'), (err: unknown) =>
    err instanceof UndeclaredAuthorizationError && /API key 9 asked about WRITE on TOPIC, which its authorization does not declare \(declared: READ TOPIC\)/.test(err.message));
  assert.throws(() => authorize(readTopics, AclOperation.READ, ResourceType.GROUP, 'g'), UndeclaredAuthorizationError);
  assert.throws(() => authorizedOperations(readTopics, ResourceType.GROUP, 'g'), UndeclaredAuthorizationError);
  const exempt = ctx(exemptFromAuthorization('asked before authentication'));
  assert.throws(() => authorize(exempt, AclOperation.DESCRIBE, ResourceType.CLUSTER, 'kafka-cluster'), /declared: asked before authentication/);
  // No authorizer: every answer is yes, at the cost of one branch.
  assert.equal(authorize(ctx(exemptFromAuthorization('none'), false), AclOperation.WRITE, ResourceType.TOPIC, 't'), true);
});

/** One request per API and what shows it was refused. */
interface Probe<A extends ApiCodecs = ApiCodecs> {
  readonly api: A;
  readonly version?: number;
  readonly body: RequestOf<A>;
  refusal(r: ResponseOf<A>): unknown;
  readonly expected: unknown;
}
const probe = <A extends ApiCodecs>(p: Probe<A>): Probe => p as unknown as Probe;

const T = 't', G = 'g', TX = 'tx';
const TOPIC_DENIED = ErrorCode.TOPIC_AUTHORIZATION_FAILED, GROUP_DENIED = ErrorCode.GROUP_AUTHORIZATION_FAILED;
const CLUSTER_DENIED = ErrorCode.CLUSTER_AUTHORIZATION_FAILED, TXN_DENIED = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
const NOT_REQUESTED = -2147483648;
const records = encodeRecordBatch({ records: [{ key: null, value: Buffer.from('v'), headers: [], timestamp: 1_700_000_000_000 }] });
const allAcls = { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 };
const offsets = { partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' };
const producer = { producerId: 1000n, producerEpoch: 0 };

function probes(): Probe[] {
  return [
    probe({ api: Api.Produce, version: 12, body: { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: T, partitionData: [{ index: 0, records }] }] },
      refusal: (r) => r.responses.map((t) => [t.name, t.partitionResponses[0]!.errorCode]), expected: [[T, TOPIC_DENIED]] }),
    probe({ api: Api.Fetch, version: 12, body: {
      replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: T, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }], forgottenTopicsData: [], rackId: '',
    }, refusal: (r) => [r.errorCode, r.responses.map((t) => [t.topic, t.partitions[0]!.errorCode])], expected: [0, [[T, TOPIC_DENIED]]] }),
    probe({ api: Api.ListOffsets, body: { replicaId: -1, isolationLevel: 0, topics: [{ name: T, partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1 }] }] },
      refusal: (r) => r.topics.map((t) => [t.name, t.partitions[0]!.errorCode]), expected: [[T, TOPIC_DENIED]] }),
    probe({ api: Api.Metadata, body: { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false },
      refusal: (r) => r.topics.map((t) => t.name), expected: [] }),
    probe({ api: Api.CreateTopics, body: { topics: [{ name: 'new', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false },
      refusal: (r) => r.topics.map((t) => [t.name, t.errorCode]), expected: [['new', TOPIC_DENIED]] }),
    probe({ api: Api.DeleteTopics, body: { topics: [{ name: T, topicId: ZERO_UUID }], timeoutMs: 5000 },
      refusal: (r) => r.responses.map((t) => [t.name, t.errorCode]), expected: [[T, TOPIC_DENIED]] }),
    probe({ api: Api.InitProducerId, body: { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 },
      refusal: (r) => r.errorCode, expected: CLUSTER_DENIED }),
    probe({ api: Api.DescribeConfigs, body: { resources: [{ resourceType: 2, resourceName: T, configurationKeys: null }, { resourceType: 4, resourceName: '1', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false },
      refusal: (r) => r.results.map((x) => x.errorCode), expected: [TOPIC_DENIED, CLUSTER_DENIED] }),
    probe({ api: Api.DescribeCluster, body: { includeClusterAuthorizedOperations: true, endpointType: 1 },
      refusal: (r) => [r.errorCode, r.clusterAuthorizedOperations], expected: [0, 0] }),
    probe({ api: Api.FindCoordinator, body: { keyType: 0, coordinatorKeys: [G] }, refusal: (r) => r.coordinators!.map((c) => c.errorCode), expected: [GROUP_DENIED] }),
    probe({ api: Api.JoinGroup, body: { groupId: G, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null },
      refusal: (r) => r.errorCode, expected: GROUP_DENIED }),
    probe({ api: Api.SyncGroup, body: { groupId: G, generationId: 1, memberId: 'm', groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] },
      refusal: (r) => r.errorCode, expected: GROUP_DENIED }),
    probe({ api: Api.Heartbeat, body: { groupId: G, generationId: 1, memberId: 'm', groupInstanceId: null }, refusal: (r) => r.errorCode, expected: GROUP_DENIED }),
    probe({ api: Api.LeaveGroup, body: { groupId: G, members: [{ memberId: 'm', groupInstanceId: null, reason: null }] }, refusal: (r) => r.errorCode, expected: GROUP_DENIED }),
    probe({ api: Api.OffsetCommit, version: 9, body: { groupId: G, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: T, partitions: [offsets] }] },
      refusal: (r) => r.topics.map((t) => [t.name, t.partitions[0]!.errorCode]), expected: [[T, GROUP_DENIED]] }),
    probe({ api: Api.OffsetFetch, version: 9, body: { groups: [{ groupId: G, memberId: null, memberEpoch: -1, topics: null }], requireStable: false },
      refusal: (r) => r.groups!.map((g) => [g.groupId, g.errorCode, g.topics.length]), expected: [[G, GROUP_DENIED, 0]] }),
    probe({ api: Api.TxnOffsetCommit, body: { transactionalId: TX, groupId: G, ...producer, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: T, partitions: [offsets] }] },
      refusal: (r) => r.topics.map((t) => [t.name, t.partitions[0]!.errorCode]), expected: [[T, TXN_DENIED]] }),
    probe({ api: Api.DescribeGroups, body: { groups: [G], includeAuthorizedOperations: true },
      refusal: (r) => r.groups.map((g) => [g.groupId, g.errorCode, g.authorizedOperations]), expected: [[G, GROUP_DENIED, NOT_REQUESTED]] }),
    probe({ api: Api.ListGroups, body: { statesFilter: [], typesFilter: [] }, refusal: (r) => [r.errorCode, r.groups.map((g) => g.groupId)], expected: [0, []] }),
    probe({ api: Api.DeleteGroups, body: { groupsNames: [G] }, refusal: (r) => r.results.map((x) => [x.groupId, x.errorCode]), expected: [[G, GROUP_DENIED]] }),
    probe({ api: Api.OffsetDelete, body: { groupId: G, topics: [{ name: T, partitions: [{ partitionIndex: 0 }] }] }, refusal: (r) => [r.errorCode, r.topics.length], expected: [GROUP_DENIED, 0] }),
    probe({ api: Api.ConsumerGroupHeartbeat, body: {
      groupId: 'g848', memberId: 'member-0000000000000000001', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: [T], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    }, refusal: (r) => r.errorCode, expected: GROUP_DENIED }),
    probe({ api: Api.ConsumerGroupDescribe, body: { groupIds: [G], includeAuthorizedOperations: true },
      refusal: (r) => r.groups.map((g) => [g.groupId, g.errorCode]), expected: [[G, GROUP_DENIED]] }),
    probe({ api: Api.ShareGroupHeartbeat, body: { groupId: 'g932', memberId: 'member-0000000000000000001', memberEpoch: 0, rackId: null, subscribedTopicNames: [T] },
      refusal: (r) => r.errorCode, expected: GROUP_DENIED }),
    probe({ api: Api.ShareGroupDescribe, body: { groupIds: [G], includeAuthorizedOperations: true },
      refusal: (r) => r.groups.map((g) => [g.groupId, g.errorCode]), expected: [[G, GROUP_DENIED]] }),
    probe({ api: Api.StreamsGroupHeartbeat, body: {
      groupId: 'g1071', memberId: 'member-0000000000000000001', memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      topology: { epoch: 0, subtopologies: [] }, activeTasks: [], standbyTasks: [], warmupTasks: [], processId: 'p', userEndpoint: null, clientTags: [],
      taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
    }, refusal: (r) => r.errorCode, expected: GROUP_DENIED }),
    probe({ api: Api.StreamsGroupDescribe, body: { groupIds: [G], includeAuthorizedOperations: true },
      refusal: (r) => r.groups.map((g) => [g.groupId, g.errorCode]), expected: [[G, GROUP_DENIED]] }),
    // Kafka's KafkaApis checks READ on the group first, for the whole request.
    probe({ api: Api.ShareFetch, body: {
      groupId: G, memberId: 'member-0000000000000000001', shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 1024, maxRecords: 10, batchSize: 10, topics: [], forgottenTopicsData: [],
    }, refusal: (r) => r.errorCode, expected: GROUP_DENIED }),
    probe({ api: Api.ShareAcknowledge, body: { groupId: G, memberId: 'member-0000000000000000001', shareSessionEpoch: 1, topics: [] },
      refusal: (r) => r.errorCode, expected: GROUP_DENIED }),
    probe({ api: Api.DescribeShareGroupOffsets, body: { groups: [{ groupId: G, topics: [{ topicName: T, partitions: [0] }] }] },
      refusal: (r) => r.groups.map((g) => [g.groupId, g.errorCode]), expected: [[G, GROUP_DENIED]] }),
    probe({ api: Api.AlterShareGroupOffsets, body: { groupId: G, topics: [{ topicName: T, partitions: [{ partitionIndex: 0, startOffset: 0n }] }] },
      refusal: (r) => [r.errorCode, r.responses.length], expected: [GROUP_DENIED, 0] }),
    probe({ api: Api.DeleteShareGroupOffsets, body: { groupId: G, topics: [{ topicName: T }] }, refusal: (r) => [r.errorCode, r.responses.length], expected: [GROUP_DENIED, 0] }),
    probe({ api: Api.CreatePartitions, body: { topics: [{ name: T, count: 2, assignments: null }], timeoutMs: 5000, validateOnly: true },
      refusal: (r) => r.results.map((x) => [x.name, x.errorCode]), expected: [[T, TOPIC_DENIED]] }),
    probe({ api: Api.AlterConfigs, body: { resources: [{ resourceType: 2, resourceName: T, configs: [{ name: 'retention.ms', value: '1000' }] }, { resourceType: 4, resourceName: '1', configs: [] }], validateOnly: true },
      refusal: (r) => r.responses.map((x) => x.errorCode), expected: [TOPIC_DENIED, CLUSTER_DENIED] }),
    probe({ api: Api.IncrementalAlterConfigs, body: {
      resources: [{ resourceType: 2, resourceName: T, configs: [{ name: 'retention.ms', configOperation: 0, value: '1000' }] }, { resourceType: 8, resourceName: '1', configs: [] }], validateOnly: true,
    }, refusal: (r) => r.responses.map((x) => x.errorCode), expected: [TOPIC_DENIED, CLUSTER_DENIED] }),
    probe({ api: Api.DeleteRecords, body: { topics: [{ name: T, partitions: [{ partitionIndex: 0, offset: 0n }] }], timeoutMs: 5000 },
      refusal: (r) => r.topics.map((t) => [t.name, t.partitions[0]!.errorCode]), expected: [[T, TOPIC_DENIED]] }),
    probe({ api: Api.DescribeLogDirs, body: { topics: null }, refusal: (r) => [r.errorCode, r.results.length], expected: [CLUSTER_DENIED, 0] }),
    probe({ api: Api.DescribeProducers, body: { topics: [{ name: T, partitionIndexes: [0] }] },
      refusal: (r) => r.topics.map((t) => [t.name, t.partitions[0]!.errorCode]), expected: [[T, TOPIC_DENIED]] }),
    probe({ api: Api.DescribeTopicPartitions, body: { topics: [{ name: T }], responsePartitionLimit: 100, cursor: null },
      refusal: (r) => r.topics.map((t) => [t.name, t.errorCode]), expected: [[T, TOPIC_DENIED]] }),
    probe({ api: Api.DescribeClientQuotas, body: { components: [], strict: false }, refusal: (r) => r.errorCode, expected: CLUSTER_DENIED }),
    probe({ api: Api.AlterClientQuotas, body: { entries: [{ entity: [{ entityType: 'user', entityName: 'alice' }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] }], validateOnly: true },
      refusal: (r) => r.entries.map((e) => e.errorCode), expected: [CLUSTER_DENIED] }),
    probe({ api: Api.DescribeUserScramCredentials, body: { users: [{ name: 'alice' }] }, refusal: (r) => r.errorCode, expected: CLUSTER_DENIED }),
    probe({ api: Api.AlterUserScramCredentials, body: { deletions: [{ name: 'alice', mechanism: 1 }], upsertions: [] }, refusal: (r) => r.results.map((u) => u.errorCode), expected: [CLUSTER_DENIED] }),
    probe({ api: Api.AlterPartitionReassignments, body: { timeoutMs: 5000, topics: [{ name: T, partitions: [{ partitionIndex: 0, replicas: [1] }] }] },
      refusal: (r) => [r.errorCode, r.responses.map((t) => [t.name, t.partitions[0]!.errorCode])], expected: [CLUSTER_DENIED, [[T, CLUSTER_DENIED]]] }),
    probe({ api: Api.ListPartitionReassignments, body: { timeoutMs: 5000, topics: null }, refusal: (r) => r.errorCode, expected: CLUSTER_DENIED }),
    probe({ api: Api.DescribeAcls, body: allAcls, refusal: (r) => r.errorCode, expected: CLUSTER_DENIED }),
    probe({ api: Api.CreateAcls, body: { creations: [{ resourceType: 2, resourceName: T, resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 3 }] },
      refusal: (r) => r.results.map((x) => x.errorCode), expected: [CLUSTER_DENIED] }),
    probe({ api: Api.DeleteAcls, body: { filters: [allAcls] }, refusal: (r) => r.filterResults.map((f) => f.errorCode), expected: [CLUSTER_DENIED] }),
    probe({ api: Api.AddPartitionsToTxn, body: {
      v3AndBelowTransactionalId: TX, v3AndBelowProducerId: producer.producerId, v3AndBelowProducerEpoch: producer.producerEpoch, v3AndBelowTopics: [{ name: T, partitions: [0] }],
    }, refusal: (r) => r.resultsByTopicV3AndBelow!.map((t) => [t.name, t.resultsByPartition[0]!.partitionErrorCode]), expected: [[T, TXN_DENIED]] }),
    probe({ api: Api.AddOffsetsToTxn, body: { transactionalId: TX, ...producer, groupId: G }, refusal: (r) => r.errorCode, expected: TXN_DENIED }),
    probe({ api: Api.EndTxn, body: { transactionalId: TX, ...producer, committed: true }, refusal: (r) => r.errorCode, expected: TXN_DENIED }),
    probe({ api: Api.WriteTxnMarkers, body: { markers: [{ ...producer, transactionResult: true, coordinatorEpoch: 0, topics: [{ name: T, partitionIndexes: [0] }] }] },
      refusal: (r) => r.markers.flatMap((m) => m.topics.map((t) => [t.name, t.partitions[0]!.errorCode])), expected: [[T, CLUSTER_DENIED]] }),
    probe({ api: Api.DescribeTransactions, body: { transactionalIds: [TX] }, refusal: (r) => r.transactionStates.map((s) => [s.transactionalId, s.errorCode]), expected: [[TX, TXN_DENIED]] }),
    probe({ api: Api.ListTransactions, body: { stateFilters: [], producerIdFilters: [], durationFilter: -1n },
      refusal: (r) => [r.errorCode, r.transactionStates.map((s) => s.transactionalId)], expected: [0, []] }),
    // The share coordinator's inter-broker APIs: CLUSTER_ACTION, else every partition refused.
    probe({ api: Api.InitializeShareGroupState, body: { groupId: G, topics: [{ topicId: SHARE_TOPIC_ID, partitions: [{ partition: 0, stateEpoch: 0, startOffset: 0n }] }] },
      refusal: shareRefusal, expected: [[0, CLUSTER_DENIED]] }),
    probe({ api: Api.ReadShareGroupState, body: { groupId: G, topics: [{ topicId: SHARE_TOPIC_ID, partitions: [{ partition: 0, leaderEpoch: 0 }] }] },
      refusal: shareRefusal, expected: [[0, CLUSTER_DENIED]] }),
    probe({ api: Api.WriteShareGroupState, body: {
      groupId: G, topics: [{ topicId: SHARE_TOPIC_ID, partitions: [{ partition: 0, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: -1, stateBatches: [] }] }],
    }, refusal: shareRefusal, expected: [[0, CLUSTER_DENIED]] }),
    probe({ api: Api.DeleteShareGroupState, body: { groupId: G, topics: [{ topicId: SHARE_TOPIC_ID, partitions: [{ partition: 0 }] }] },
      refusal: shareRefusal, expected: [[0, CLUSTER_DENIED]] }),
    probe({ api: Api.ReadShareGroupStateSummary, body: { groupId: G, topics: [{ topicId: SHARE_TOPIC_ID, partitions: [{ partition: 0, leaderEpoch: 0 }] }] },
      refusal: shareRefusal, expected: [[0, CLUSTER_DENIED]] }),
  ];
}

const SHARE_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

function shareRefusal(r: { results: { partitions: { partition: number; errorCode: number }[] }[] }): [number, number][] {
  return r.results.flatMap((t) => t.partitions.map((p): [number, number] => [p.partition, p.errorCode]));
}

test('with ACLs on, every API refuses a principal without ACLs as Kafka does', { timeout: 60_000 }, async (t) => {
  const covered = probes().map((p) => p.api.name).sort();
  assert.deepEqual(covered, ALL_HANDLERS.map((h) => h.api.name).filter((name) => !EXEMPT.has(name)).sort(), 'one probe per API that is not exempt');

  // As a super user: the topic, the group (a committed offset) and the transactional id exist, so what hides them is authorization.
  const dir = tempDir('brook-handlers-authorization-');
  const options = { dataDir: dir.path, authorizerClassName: STANDARD, autoCreateTopics: false };
  const admin = await startBrook({ ...options, superUsers: 'User:ANONYMOUS' });
  admin.createTopic(T, 1);
  let conn = await KafkaConnection.connect({ host: '127.0.0.1', port: admin.port, clientId: 'handlers-authorization' });
  const committed = await conn.request(Api.OffsetCommit, { groupId: G, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: T, partitions: [offsets] }] }, { version: 9 });
  assert.equal(committed.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  assert.equal((await conn.request(Api.InitProducerId, { transactionalId: TX, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 })).errorCode, ErrorCode.NONE);
  const listed = await conn.request(Api.ListTransactions, { stateFilters: [], producerIdFilters: [], durationFilter: -1n });
  assert.deepEqual(listed.transactionStates.map((s) => s.transactionalId), [TX]);
  conn.close();
  await admin.stop();

  // The same principal, no super users, no ACLs.
  const broker = await startBrook(options);
  t.after(async () => {
    conn.close();
    await broker.stop();
    dir.remove();
  });
  conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'handlers-authorization' });
  const wrong: string[] = [];
  for (const p of probes()) {
    if (conn.closed) conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'handlers-authorization' });
    let answer: unknown;
    try {
      answer = p.refusal(await conn.request(p.api, p.body, p.version === undefined ? {} : { version: p.version }));
    } catch (err) {
      answer = `failed: ${(err as Error).message}`;
    }
    if (JSON.stringify(answer) !== JSON.stringify(p.expected)) wrong.push(`${p.api.name}: ${JSON.stringify(answer)}, expected ${JSON.stringify(p.expected)}`);
  }
  assert.deepEqual(wrong, []);
});
