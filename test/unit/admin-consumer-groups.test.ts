/**
 * The admin client and `brook groups` on consumer groups (KIP-848), against FakeKafka:
 * - describeGroup asks ConsumerGroupDescribe first and reads type, epochs, assignor and per
 *   member epoch, current and target assignment, subscription; it falls back to
 *   DescribeGroups for a classic group (GROUP_ID_NOT_FOUND), a broker with the consumer
 *   protocol off (UNSUPPORTED_VERSION) and a broker without ConsumerGroupDescribe, as
 *   Kafka's Admin.describeConsumerGroups does; other errors fail the call;
 * - listGroups sends its type and state filters, and refuses them (as Kafka's admin client)
 *   on a broker whose ListGroups version cannot carry them;
 * - on Brook's broker, a group of Brook's consumer with groupProtocol 'consumer': described
 *   as a consumer group with epochs and assignments, listed by type and state, and its offsets
 *   reset only once it is Empty;
 * - the CLI's views: the state line, the members table in the layout of
 *   `kafka-consumer-groups --describe --members --verbose`, Kafka's assignment strings, and
 *   the describe JSON (classic groups exactly the documented keys, consumer groups more).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Admin, GroupNotInactiveError, UnsupportedApiVersionError, type GroupDescription, type GroupOffsets } from '../../src/client/admin/index.js';
import { Consumer } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';
import { brookCli, seedTopic } from '../support/admin-fixture.js';
import { ErrorCode, KafkaProtocolError } from '../../src/protocol/errors.js';
import { encodeAssignment } from '../../src/protocol/consumer-protocol.js';
import type { ConsumerGroupDescribeResponseDescribedGroup } from '../../src/protocol/messages/consumer-group-describe.js';
import { FakeKafka } from '../support/fake-kafka.js';
import { assignmentString, describeJson, membersTable, stateLine } from '../../src/cli/commands/groups-describe.js';

const TIMEOUT = { timeout: 30_000 };
const OPS_NOT_REQUESTED = -2147483648;
const TOPIC_A = 'AAAAAAAAAAAAAAAAAAAAAA';
const TOPIC_B = 'BBBBBBBBBBBBBBBBBBBBBA';

async function adminOn(setup?: (fake: FakeKafka) => void): Promise<{ fake: FakeKafka; admin: Admin; scheduler: ManualScheduler }> {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  setup?.(fake);
  const connecting = Admin.connect({ bootstrapServers: 'fake:9092', scheduler, connectionFactory: fake.connectionFactory });
  await scheduler.advance(0);
  return { fake, admin: await connecting, scheduler };
}

/** Lets the scripted broker answer, then settles the call (its rejection is handled from the start). */
async function settle<T>(scheduler: ManualScheduler, call: Promise<T>): Promise<T> {
  const outcome = call.then((value) => ({ value }), (error: unknown) => ({ error }));
  await scheduler.advance(0);
  const o = await outcome;
  if ('error' in o) throw o.error;
  return o.value;
}

function consumerGroup(groupId: string): ConsumerGroupDescribeResponseDescribedGroup {
  return {
    errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: 'Reconciling', groupEpoch: 7, assignmentEpoch: 6, assignorName: 'uniform',
    authorizedOperations: OPS_NOT_REQUESTED,
    members: [
      {
        memberId: 'm-1', instanceId: null, rackId: null, memberEpoch: 6, clientId: 'c1', clientHost: '/10.0.0.1',
        subscribedTopicNames: ['orders', 'audit'], subscribedTopicRegex: '',
        assignment: { topicPartitions: [{ topicId: TOPIC_A, topicName: 'orders', partitions: [3, 0] }, { topicId: TOPIC_B, topicName: 'audit', partitions: [1] }] },
        targetAssignment: { topicPartitions: [{ topicId: TOPIC_A, topicName: 'orders', partitions: [0] }] },
      },
      {
        memberId: 'm-2', instanceId: 'static-2', rackId: 'rack-b', memberEpoch: 5, clientId: 'c2', clientHost: '/10.0.0.2',
        subscribedTopicNames: [], subscribedTopicRegex: 'ord.*',
        assignment: { topicPartitions: [] },
        targetAssignment: { topicPartitions: [{ topicId: TOPIC_A, topicName: 'orders', partitions: [3] }] },
      },
    ],
  };
}

function classicAnswer(groupId: string): { throttleTimeMs: number; groups: { errorCode: number; groupId: string; groupState: string; protocolType: string; protocolData: string; members: { memberId: string; groupInstanceId: string | null; clientId: string; clientHost: string; memberMetadata: Buffer; memberAssignment: Buffer }[]; authorizedOperations: number }[] } {
  const assignment = encodeAssignment({ assignedPartitions: [{ topic: 'orders', partitions: [1, 0] }], userData: null }, 0);
  return {
    throttleTimeMs: 0,
    groups: [{
      errorCode: ErrorCode.NONE, groupId, groupState: 'Stable', protocolType: 'consumer', protocolData: 'range', authorizedOperations: OPS_NOT_REQUESTED,
      members: [{ memberId: 'classic-1', groupInstanceId: null, clientId: 'cc', clientHost: '/10.0.0.9', memberMetadata: Buffer.alloc(0), memberAssignment: assignment }],
    }],
  };
}

test('describeGroup: a consumer group through ConsumerGroupDescribe, with epochs, assignor, and per member epoch, current and target assignment', TIMEOUT, async () => {
  const { fake, admin, scheduler } = await adminOn();
  fake.on('ConsumerGroupDescribe', (request) => ({ throttleTimeMs: 0, groups: request.groupIds.map(consumerGroup) }));
  const d = await settle(scheduler, admin.describeGroup('cg'));
  assert.equal(fake.requests('DescribeGroups').length, 0, 'no classic describe for a consumer group');
  assert.deepEqual(fake.requests('ConsumerGroupDescribe').map((r) => r.body.groupIds), [['cg']]);
  const { coordinator, ...rest } = d;
  assert.equal(coordinator.nodeId, 0);
  assert.deepEqual(rest, {
    group: 'cg', type: 'consumer', state: 'Reconciling', protocolType: 'consumer', protocol: 'uniform',
    generation: 7, groupEpoch: 7, assignmentEpoch: 6,
    members: [
      {
        memberId: 'm-1', groupInstanceId: null, clientId: 'c1', host: '/10.0.0.1',
        assignment: [{ topic: 'audit', partition: 1 }, { topic: 'orders', partition: 0 }, { topic: 'orders', partition: 3 }],
        memberEpoch: 6, targetAssignment: [{ topic: 'orders', partition: 0 }],
        subscribedTopics: ['audit', 'orders'], subscribedTopicRegex: null, rackId: null,
      },
      {
        memberId: 'm-2', groupInstanceId: 'static-2', clientId: 'c2', host: '/10.0.0.2',
        assignment: [], memberEpoch: 5, targetAssignment: [{ topic: 'orders', partition: 3 }],
        subscribedTopics: [], subscribedTopicRegex: 'ord.*', rackId: 'rack-b',
      },
    ],
  } satisfies Omit<GroupDescription, 'coordinator'>);
  admin.close();
});

test('describeGroup falls back to DescribeGroups as Kafka\'s admin client: classic group, consumer protocol off, broker without ConsumerGroupDescribe', TIMEOUT, async () => {
  for (const [what, setup] of [
    ['GROUP_ID_NOT_FOUND (a classic group)', (fake: FakeKafka) => fake.on('ConsumerGroupDescribe', (request) => ({
      throttleTimeMs: 0,
      groups: request.groupIds.map((groupId) => ({ ...consumerGroup(groupId), members: [], errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} is not a consumer group.` })),
    }))],
    ['UNSUPPORTED_VERSION (consumer protocol off)', (fake: FakeKafka) => fake.on('ConsumerGroupDescribe', (request) => ({
      throttleTimeMs: 0, groups: request.groupIds.map((groupId) => ({ ...consumerGroup(groupId), members: [], errorCode: ErrorCode.UNSUPPORTED_VERSION })),
    }))],
    ['no ConsumerGroupDescribe at all', (fake: FakeKafka) => fake.withoutApi('ConsumerGroupDescribe')],
  ] as const) {
    const { fake, admin, scheduler } = await adminOn(setup);
    fake.on('DescribeGroups', (request) => classicAnswer(request.groups[0]!));
    const d = await settle(scheduler, admin.describeGroup('classic-g'));
    assert.equal(fake.requests('DescribeGroups').length, 1, what);
    assert.equal(d.type, 'classic', what);
    assert.equal(d.protocol, 'range');
    assert.deepEqual([d.generation, d.groupEpoch, d.assignmentEpoch], [null, null, null], what);
    assert.deepEqual(d.members.map((m) => [m.memberId, m.assignment, m.memberEpoch, m.targetAssignment, m.subscribedTopics]),
      [['classic-1', [{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 1 }], null, null, null]], what);
    admin.close();
  }
});

test('describeGroup: other ConsumerGroupDescribe errors fail the call (no fallback)', TIMEOUT, async () => {
  const { fake, admin, scheduler } = await adminOn();
  fake.on('ConsumerGroupDescribe', (request) => ({
    throttleTimeMs: 0, groups: request.groupIds.map((groupId) => ({ ...consumerGroup(groupId), members: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED })),
  }));
  await assert.rejects(settle(scheduler, admin.describeGroup('cg')), (err: unknown) => err instanceof KafkaProtocolError && err.errorCode === ErrorCode.GROUP_AUTHORIZATION_FAILED);
  assert.equal(fake.requests('DescribeGroups').length, 0);
  admin.close();
});

test('listGroups: type and state filters go to the broker; groups carry their type; a ListGroups version without the filter refuses it', TIMEOUT, async () => {
  const { fake, admin, scheduler } = await adminOn();
  fake.on('ListGroups', () => ({
    throttleTimeMs: 0, errorCode: ErrorCode.NONE,
    groups: [
      { groupId: 'b-classic', protocolType: 'consumer', groupState: 'Empty', groupType: 'classic' },
      { groupId: 'a-consumer', protocolType: 'consumer', groupState: 'Assigning', groupType: 'consumer' },
    ],
  }));
  const listed = await settle(scheduler, admin.listGroups({ types: ['consumer'], states: ['Assigning', 'stable'] }));
  assert.deepEqual(listed, [
    { group: 'a-consumer', state: 'Assigning', type: 'consumer', protocolType: 'consumer' },
    { group: 'b-classic', state: 'Empty', type: 'classic', protocolType: 'consumer' },
  ]);
  const sent = fake.requests('ListGroups')[0]!;
  assert.equal(sent.version, 5);
  assert.deepEqual([sent.body.typesFilter, sent.body.statesFilter], [['consumer'], ['Assigning', 'stable']]);
  await settle(scheduler, admin.listGroups());
  assert.deepEqual([fake.requests('ListGroups')[1]!.body.typesFilter, fake.requests('ListGroups')[1]!.body.statesFilter], [[], []]);
  admin.close();

  const old = await adminOn((f) => f.setVersion('ListGroups', 4));
  old.fake.on('ListGroups', () => ({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups: [{ groupId: 'g', protocolType: 'consumer', groupState: 'Stable' }] }));
  await assert.rejects(settle(old.scheduler, old.admin.listGroups({ types: ['classic'] })),
    (err: unknown) => err instanceof UnsupportedApiVersionError && /only supports ListGroups v4, but we need v5 or newer to request groups by type/.test((err as Error).message));
  assert.deepEqual(await settle(old.scheduler, old.admin.listGroups({ states: ['stable'] })), [{ group: 'g', state: 'Stable', type: '', protocolType: 'consumer' }], 'v4 has states, no type');
  old.admin.close();
});

const coordinator = { nodeId: 0, host: '127.0.0.1', port: 9092 };

function consumerOffsets(): GroupOffsets {
  const description: GroupDescription = {
    group: 'g2', type: 'consumer', state: 'Stable', protocolType: 'consumer', protocol: 'uniform', generation: 3, groupEpoch: 3, assignmentEpoch: 3, coordinator,
    members: [
      {
        memberId: 'short', groupInstanceId: null, clientId: 'c1', host: '/127.0.0.1', assignment: [{ topic: 'demo', partition: 2 }],
        memberEpoch: 2, targetAssignment: [{ topic: 'demo', partition: 2 }, { topic: 'demo', partition: 10 }], subscribedTopics: ['demo'], subscribedTopicRegex: null, rackId: null,
      },
      {
        memberId: 'a-much-longer-member-id', groupInstanceId: 'inst-1', clientId: 'client-two', host: '/127.0.0.1',
        assignment: [{ topic: 'demo', partition: 0 }, { topic: 'demo', partition: 1 }, { topic: 'audit', partition: 0 }],
        memberEpoch: 3, targetAssignment: [{ topic: 'demo', partition: 0 }, { topic: 'demo', partition: 1 }], subscribedTopics: ['audit', 'demo'], subscribedTopicRegex: null, rackId: 'r1',
      },
      {
        memberId: 'idle', groupInstanceId: null, clientId: 'c3', host: '/127.0.0.1', assignment: [],
        memberEpoch: 3, targetAssignment: [], subscribedTopics: [], subscribedTopicRegex: 'x.*', rackId: null,
      },
    ],
  };
  return { description, rows: [], totalLag: 5n };
}

test('brook groups describe, consumer group: the state line, Kafka\'s --members --verbose table and assignment strings', () => {
  const result = consumerOffsets();
  assert.equal(stateLine(result), "Consumer group 'g2' is Stable (type consumer, assignor uniform, group epoch 3, assignment epoch 3, 3 members, total lag 5).");
  assert.equal(assignmentString([]), '-');
  // Topics sorted; partitions sorted as Kafka sorts them, as strings.
  assert.equal(assignmentString([{ topic: 'demo', partition: 10 }, { topic: 'demo', partition: 2 }, { topic: 'audit', partition: 0 }]), 'audit:0;demo:10,2');
  assert.deepEqual(membersTable({ ...result, description: { ...result.description, members: result.description.members.filter((m) => m.groupInstanceId === null) } }).split('\n'), [
    'GROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT',
    'g2              short           /127.0.0.1      c1              1               2               demo:2               3               demo:10,2',
    'g2              idle            /127.0.0.1      c3              0               3               -                    3               -',
  ], 'no GROUP-INSTANCE-ID column when no member has an instance id, as Kafka');
  // With one, the column is there, blank for the others (Kafka's tool prints them so).
  const lines = membersTable(result).split('\n');
  assert.deepEqual(lines, [
    'GROUP           CONSUMER-ID             GROUP-INSTANCE-ID HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT',
    'g2              a-much-longer-member-id inst-1            /127.0.0.1      client-two      3               3               audit:0;demo:0,1     3               demo:0,1',
    'g2              short                                     /127.0.0.1      c1              1               2               demo:2               3               demo:10,2',
    'g2              idle                                      /127.0.0.1      c3              0               3               -                    3               -',
  ]);
});

test('brook groups describe --json: a consumer group adds type, epochs and per-member fields after the documented keys; a classic group keeps exactly them', () => {
  const consumer = describeJson(consumerOffsets()) as Record<string, unknown> & { members: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(consumer), ['group', 'state', 'protocolType', 'protocol', 'generation', 'members', 'offsets', 'type', 'groupEpoch', 'assignmentEpoch']);
  assert.deepEqual([consumer['type'], consumer['generation'], consumer['groupEpoch'], consumer['assignmentEpoch']], ['consumer', 3, 3, 3]);
  assert.deepEqual(consumer.members[0], {
    memberId: 'short', groupInstanceId: null, clientId: 'c1', host: '/127.0.0.1', assignment: [{ topic: 'demo', partition: 2 }],
    memberEpoch: 2, targetAssignment: [{ topic: 'demo', partition: 2 }, { topic: 'demo', partition: 10 }], subscribedTopics: ['demo'], subscribedTopicRegex: null, rackId: null,
  });

  const classic = consumerOffsets();
  const d = classic.description;
  const classicDescription: GroupDescription = {
    ...d, type: 'classic', protocol: 'range', generation: null, groupEpoch: null, assignmentEpoch: null,
    members: d.members.map((m) => ({ ...m, memberEpoch: null, targetAssignment: null, subscribedTopics: null, subscribedTopicRegex: null, rackId: null })),
  };
  const json = describeJson({ ...classic, description: classicDescription }) as Record<string, unknown> & { members: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(json), ['group', 'state', 'protocolType', 'protocol', 'generation', 'members', 'offsets']);
  for (const m of json.members) assert.deepEqual(Object.keys(m), ['memberId', 'groupInstanceId', 'clientId', 'host', 'assignment']);
  assert.equal(stateLine({ ...classic, description: classicDescription }), "Consumer group 'g2' is Stable (protocol range, 3 members, total lag 5).", 'the classic line as before');
});

test('admin on Brook\'s broker: a consumer-protocol group is described, listed by type, and reset only once Empty', { timeout: 120_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupConsumerHeartbeatIntervalMs: 500, groupConsumerMinHeartbeatIntervalMs: 500 });
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'admin-cg-unit';
  const group = 'admin-cg-unit-group';
  await seedTopic(broker.bootstrap, topic, 2, 4);
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, groupId: group, groupProtocol: 'consumer', clientId: 'unit-cg', autoOffsetReset: 'earliest', fetchMaxWaitMs: 50 });
  consumer.subscribe([topic]);
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      await consumer.poll({ timeoutMs: 50 });
      await consumer.commitSync();
    }
  })();
  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => (closed ??= (async () => {
    stop = true;
    await loop;
    await consumer.close();
  })());
  cleanup.add('close consumer', close);

  const d = await until('the consumer group Stable, everything committed', 30_000, async () => {
    const g = await admin.describeGroupOffsets(group);
    return g.description.state === 'Stable' && g.rows.length === 2 && g.rows.every((r) => r.lag === 0n) ? g : undefined;
  });
  assert.equal(d.description.type, 'consumer');
  assert.equal(d.description.protocol, 'uniform');
  const [member] = d.description.members;
  assert.equal(member!.clientId, 'unit-cg');
  assert.equal(member!.memberEpoch, d.description.assignmentEpoch);
  assert.deepEqual(member!.assignment, [{ topic, partition: 0 }, { topic, partition: 1 }]);
  assert.deepEqual(member!.targetAssignment, member!.assignment);
  assert.deepEqual(d.rows.map((r) => [r.partition, r.memberId]), [[0, member!.memberId], [1, member!.memberId]], 'the offsets rows name the member');
  assert.deepEqual((await admin.listGroups({ types: ['consumer'] })).map((g) => [g.group, g.type, g.state]), [[group, 'consumer', 'Stable']]);
  assert.deepEqual(await admin.listGroups({ types: ['classic'] }), []);
  assert.deepEqual((await admin.listGroups({ states: ['STABLE'] })).map((g) => g.group), [group]);

  // The CLI: list by type (a type Kafka does not know is a usage error), describe's tables.
  const b = ['-b', broker.bootstrap];
  const listed = await brookCli(['groups', 'list', '--type', 'Consumer', '--state', 'stable,empty', ...b]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(listed.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/)), [['GROUP', 'TYPE', 'STATE'], [group, 'consumer', 'Stable']]);
  assert.equal((await brookCli(['groups', 'list', '--type', 'classic', ...b])).stdout.trim(), 'GROUP                     TYPE                 STATE');
  const bogus = await brookCli(['groups', 'list', '--type', 'bogus', ...b]);
  assert.equal(bogus.code, 2);
  assert.match(bogus.stderr, /Invalid types list 'bogus'\. Valid types are: classic, consumer, share, streams/);
  const described = await brookCli(['groups', 'describe', group, ...b]);
  assert.equal(described.code, 0, described.stderr);
  const text = described.stdout.split('\n');
  assert.equal(text[0], `Consumer group '${group}' is Stable (type consumer, assignor uniform, group epoch ${d.description.groupEpoch}, assignment epoch ${d.description.assignmentEpoch}, 1 member, total lag 0).`);
  const membersAt = text.findIndex((l) => l.includes('CURRENT-EPOCH'));
  assert.ok(membersAt > 0, described.stdout);
  assert.deepEqual(text[membersAt + 1]!.trim().split(/\s+/),
    [group, member!.memberId, member!.host, 'unit-cg', '2', String(member!.memberEpoch), `${topic}:0,1`, String(d.description.assignmentEpoch), `${topic}:0,1`]);

  // A consumer group with a member is active: no reset (DescribeGroups alone would call it Dead).
  const reset = { scope: { kind: 'topics', topics: [{ topic }] }, spec: { kind: 'earliest' }, execute: true } as const;
  await assert.rejects(admin.resetOffsets(group, reset), (err: unknown) => err instanceof GroupNotInactiveError && err.state === 'Stable');

  await close();
  const empty = await until('Empty after the member left', 15_000, async () => {
    const g = await admin.describeGroup(group);
    return g.state === 'Empty' ? g : undefined;
  });
  assert.deepEqual([empty.type, empty.members.length], ['consumer', 0]);
  assert.deepEqual((await admin.resetOffsets(group, reset)).map((p) => p.offset), [0n, 0n]);
  assert.deepEqual((await admin.describeGroupOffsets(group)).rows.map((r) => r.lag), [4n, 4n], 'the reset took');
});
