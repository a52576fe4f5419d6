/**
 * `brook groups list` and `brook groups describe` with a streams group (KIP-1071) on a Brook
 * broker, the member driven with raw StreamsGroupHeartbeat requests (the word-count topology:
 * subtopology 0 reads `input`, subtopology 1 the repartition topic). The tables are Kafka
 * 4.4's `kafka-streams-groups --describe` tables: their headers, column widths and task
 * notation are those Kafka's tool printed for a Kafka Streams word count on Kafka 4.4 (see
 * test/interop/streams-groups-kafka-tools.test.ts), e.g.
 *   GROUP           MEMBER                 PROCESS   CLIENT-ID   ASSIGNMENTS
 *   sgt-app         n96ZYcNISACqI1HRdHjU_g ef03cf9c-…  sgt-app-…  ACTIVE: 0:[0,1]; 1:[0,1];
 * Offsets: the lag of a committed partition is its log end minus the committed offset; of an
 * uncommitted one, its log end minus its log start (Kafka's tool).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot, startBrook } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { produce } from '../support/consumer-helpers.js';
import { RawConnection, type RequestBody } from '../support/kafka/raw-client.js';
import { wordCountTopology } from '../support/coordinator/streams.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { tasksString } from '../../src/cli/streams-group-views.js';

const BIN = join(projectRoot, 'bin', 'brook');
const MEMBER = 'streams-member-one';
const PROCESS = '1da21d90-b6b3-4571-a86b-2fc8d1faee4b';
const CLIENT = 'app-1da21d90-StreamThread-1-consumer';

let broker: Awaited<ReturnType<typeof startBrook>>;
let conn: RawConnection;

before(async () => {
  broker = await startBrook({ groupStreamsInitialRebalanceDelayMs: 0, groupStreamsAssignmentIntervalMs: 0 });
  conn = await RawConnection.connect(broker.host, broker.port, { clientId: CLIENT });
  broker.createTopic('input', 2);
  await produce(broker.bootstrap, 'input', 0, ['a', 'b', 'c', 'd', 'e']);
  await produce(broker.bootstrap, 'input', 1, ['f', 'g', 'h']);
});

after(async () => {
  conn.close();
  await broker.stop();
});

function brook(args: readonly string[]) {
  return runProcess(process.execPath, [BIN, ...args, '-b', broker.bootstrap], { timeoutMs: 30_000 });
}

function beat(group: string, memberEpoch: number, topology = wordCountTopology()): RequestBody<'StreamsGroupHeartbeat'> {
  const joining = memberEpoch === 0;
  return {
    groupId: group, memberId: MEMBER, memberEpoch, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: joining ? 30_000 : -1,
    topology: joining ? topology : null, activeTasks: joining ? [] : null, standbyTasks: joining ? [] : null, warmupTasks: joining ? [] : null,
    processId: joining ? PROCESS : null, userEndpoint: null, clientTags: joining ? [] : null, taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
  };
}

/** Joins `app` and heartbeats until the member owns the four tasks; its epoch. */
async function joinApp(): Promise<number> {
  let r = await conn.request('StreamsGroupHeartbeat', 1, beat('app', 0));
  assert.equal(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
  for (let i = 0; (r.activeTasks ?? []).reduce((n, t) => n + t.partitions.length, 0) < 4; i++) {
    assert.ok(i < 50, 'the member gets its tasks');
    const epoch = r.memberEpoch;
    r = await conn.request('StreamsGroupHeartbeat', 1, beat('app', epoch));
    assert.equal(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
  }
  return r.memberEpoch;
}

const lines = (stdout: string): string[] => stdout.split('\n');

test('groups list and describe of a streams group', { timeout: 120_000 }, async () => {
  const epoch = await joinApp();
  // The member commits input-0 at 3 (lag 2) and input-1 at 3 (lag 0), as a consumer would.
  const commit = await conn.request('OffsetCommit', 9, {
    groupId: 'app', generationIdOrMemberEpoch: epoch, memberId: MEMBER, groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: 'input', partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' })) }],
  });
  assert.deepEqual(commit.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)), [0, 0]);

  const listed = await brook(['groups', 'list', '--type', 'streams']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(lines(listed.stdout), [`${'GROUP'.padEnd(25)} ${'TYPE'.padEnd(20)} STATE`, `${'app'.padEnd(25)} ${'streams'.padEnd(20)} Stable`, '']);
  const json = await brook(['groups', 'list', '--json']);
  assert.deepEqual(JSON.parse(json.stdout), [{ group: 'app', state: 'Stable', type: 'streams', protocolType: 'streams' }]);

  const described = await brook(['groups', 'describe', 'app']);
  assert.equal(described.code, 0, described.stderr);
  assert.deepEqual(lines(described.stdout), [
    `Streams group 'app' is Stable (assignor sticky, group epoch ${epoch}, assignment epoch ${epoch}, topology epoch 0, 1 member, total lag 2).`,
    'Topology: ready (2 subtopologies).',
    '',
    'GROUP           TOPIC           PARTITION  OFFSET-LAG',
    'app             app-repartition 0          0',
    'app             app-repartition 1          0',
    'app             input           0          2',
    'app             input           1          0',
    '',
    `${'GROUP'.padEnd(15)} ${'MEMBER'.padEnd(MEMBER.length)} ${'PROCESS'.padEnd(PROCESS.length)} ${'CLIENT-ID'.padEnd(CLIENT.length)} ASSIGNMENTS`,
    `app             ${MEMBER} ${PROCESS} ${CLIENT} ACTIVE: 0:[0,1]; 1:[0,1]; `,
    '',
  ]);

  const verbose = await brook(['groups', 'describe', 'app', '--verbose']);
  assert.deepEqual(lines(verbose.stdout).slice(3, 8), [
    'GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LEADER-EPOCH    LOG-END-OFFSET  OFFSET-LAG',
    'app             app-repartition 0          -               -               0               0',
    'app             app-repartition 1          -               -               0               0',
    'app             input           0          3               -               5               2',
    'app             input           1          3               -               3               0',
  ]);

  const members = await brook(['groups', 'describe', 'app', '--members', '--verbose']);
  assert.equal(members.code, 0, members.stderr);
  assert.deepEqual(lines(members.stdout), [
    '',
    // Kafka's format: '%-15s%-Ns' for TOPOLOGY-EPOCH and MEMBER, without a blank between.
    `${'GROUP'.padEnd(15)} ${'TARGET-ASSIGNMENT-EPOCH'.padEnd(25)} ${'TOPOLOGY-EPOCH'.padEnd(15)}${'MEMBER'.padEnd(MEMBER.length)} ${'MEMBER-PROTOCOL'.padEnd(15)} `
      + `${'MEMBER-EPOCH'.padEnd(15)} ${'PROCESS'.padEnd(PROCESS.length)} ${'CLIENT-ID'.padEnd(CLIENT.length)} ASSIGNMENTS`,
    `app             ${String(epoch).padEnd(25)} ${'0'.padEnd(15)}${MEMBER} streams         ${String(epoch).padEnd(15)} ${PROCESS} ${CLIENT} `
      + 'ACTIVE: 0:[0,1]; 1:[0,1]; TARGET-ACTIVE: 0:[0,1]; 1:[0,1]; ',
    '',
  ]);

  const state = await brook(['groups', 'describe', 'app', '--state', '--verbose']);
  const coordinator = lines(state.stdout)[2]!.split(/\s+/).slice(1, 3).join(' ');
  assert.match(coordinator, new RegExp(`^127\\.0\\.0\\.1:${broker.port} \\(\\d+\\)$`));
  assert.deepEqual(lines(state.stdout), [
    '',
    'GROUP           COORDINATOR (ID)          ASSIGNOR        STATE                     GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS',
    `app             ${coordinator.padEnd(25)} sticky          Stable                    ${String(epoch).padEnd(15)} ${String(epoch).padEnd(25)} 1`,
    '',
  ]);

  const full = JSON.parse((await brook(['groups', 'describe', 'app', '--json'])).stdout) as Record<string, unknown>;
  assert.deepEqual([full.group, full.state, full.protocolType, full.protocol, full.generation, full.type, full.topologyEpoch], ['app', 'Stable', 'streams', 'sticky', epoch, 'streams', 0]);
  assert.deepEqual(full.offsets, [
    { topic: 'app-repartition', partition: 0, committed: null, logEndOffset: 0, lag: 0, leaderEpoch: null },
    { topic: 'app-repartition', partition: 1, committed: null, logEndOffset: 0, lag: 0, leaderEpoch: null },
    { topic: 'input', partition: 0, committed: 3, logEndOffset: 5, lag: 2, leaderEpoch: null },
    { topic: 'input', partition: 1, committed: 3, logEndOffset: 3, lag: 0, leaderEpoch: null },
  ]);
  const [member] = full.members as Record<string, unknown>[];
  assert.deepEqual([member!.memberId, member!.processId, member!.clientId, member!.memberEpoch, member!.memberProtocol], [MEMBER, PROCESS, CLIENT, epoch, 'streams']);
  assert.deepEqual(member!.tasks, { activeTasks: [{ subtopologyId: '0', partitions: [0, 1] }, { subtopologyId: '1', partitions: [0, 1] }], standbyTasks: [], warmupTasks: [] });
  assert.deepEqual(full.topology, { ready: true, missingSourceTopics: [], missingInternalTopics: [] });

  // groups lag: the same partitions and lags, with the member whose active task reads each.
  const lag = await brook(['groups', 'lag', 'app']);
  assert.equal(lag.code, 0, lag.stderr);
  assert.deepEqual(lines(lag.stdout), [
    'GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID',
    `app             app-repartition 0          -               0               0               ${MEMBER}`,
    `app             app-repartition 1          -               0               0               ${MEMBER}`,
    `app             input           0          3               5               2               ${MEMBER}`,
    `app             input           1          3               3               0               ${MEMBER}`,
    '',
  ]);
  const lagAll = await brook(['groups', 'lag']);
  assert.deepEqual(lines(lagAll.stdout), [
    'GROUP           TOPIC           PARTITIONS LAG',
    'app             app-repartition 2          0',
    'app             input           2          2',
    '',
  ]);

  // Offsets are reset only when no member runs, with Kafka's sentence.
  const busy = await brook(['groups', 'reset-offsets', 'app', '--topic', 'input', '--to-earliest', '--execute']);
  assert.equal(busy.code, 1);
  assert.equal(busy.stderr, "brook groups: Assignments can only be reset if the group 'app' is inactive, but the current state is Stable.\n");

  // The member leaves: the group is Empty, its committed offsets stay.
  const left = await conn.request('StreamsGroupHeartbeat', 1, beat('app', -1));
  assert.equal(left.errorCode, ErrorCode.NONE);
  const empty = await brook(['groups', 'describe', 'app']);
  assert.equal(empty.stderr, "Streams group 'app' has no active members.\n");
  assert.deepEqual(lines(empty.stdout).slice(3), [
    'GROUP           TOPIC           PARTITION  OFFSET-LAG',
    'app             input           0          2',
    'app             input           1          0',
    '',
  ]);
  const reset = await brook(['groups', 'reset-offsets', 'app', '--topic', 'input:0', '--to-earliest', '--execute']);
  assert.equal(reset.code, 0, reset.stderr);
  const afterReset = await brook(['groups', 'describe', 'app', '--verbose']);
  assert.equal(lines(afterReset.stdout)[4], 'app             input           0          0               -               5               5');
  const emptyState = await brook(['groups', 'describe', 'app', '--state']);
  assert.deepEqual(lines(emptyState.stdout)[2]!.split(/\s+/).slice(3), ['sticky', 'Empty', '0']);
});

test('a streams group waiting for its source topic is NotReady, and says which topic is missing', { timeout: 60_000 }, async () => {
  const topology = wordCountTopology();
  topology.subtopologies[0]!.sourceTopics = ['absent'];
  const r = await conn.request('StreamsGroupHeartbeat', 1, beat('waiting', 0, topology));
  assert.equal(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
  const described = await brook(['groups', 'describe', 'waiting']);
  assert.equal(described.code, 0, described.stderr);
  assert.match(lines(described.stdout)[0]!, /^Streams group 'waiting' is NotReady \(/);
  assert.equal(lines(described.stdout)[1], 'Topology: not ready (2 subtopologies; missing source topics absent).');
  const json = JSON.parse((await brook(['groups', 'describe', 'waiting', '--json'])).stdout) as { topology: unknown; offsets: unknown[] };
  assert.deepEqual(json.topology, { ready: false, missingSourceTopics: ['absent'], missingInternalTopics: [] });
  assert.deepEqual(json.offsets, []);
  const listed = await brook(['groups', 'list', '--type', 'streams', '--state', 'NotReady']);
  assert.deepEqual(lines(listed.stdout).slice(1), [`${'waiting'.padEnd(25)} ${'streams'.padEnd(20)} NotReady`, '']);
  // Empty once the member left, and its topology still cannot run.
  assert.equal((await conn.request('StreamsGroupHeartbeat', 1, beat('waiting', -1))).errorCode, ErrorCode.NONE);
  const empty = await brook(['groups', 'describe', 'waiting']);
  assert.deepEqual(lines(empty.stdout).slice(0, 2).map((l) => l.replace(/ \(.*/, '')), ["Streams group 'waiting' is Empty", 'Topology: not ready']);
  assert.equal(lines(empty.stdout)[1], 'Topology: not ready (2 subtopologies; missing source topics absent).');
});

test('describe of a group that does not exist still says so', { timeout: 60_000 }, async () => {
  const r = await brook(['groups', 'describe', 'nobody']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Consumer group 'nobody' does not exist\./);
});

test('tasks in Kafka\'s notation: per kind, then the target\'s with TARGET-', { timeout: 5_000 }, () => {
  // StreamsGroupCommand.prepareTaskType (Kafka 4.4 bytecode): "<KIND>: " then "<subtopology>:[<p>,<p>]; " per subtopology, '' for no tasks.
  const current = { activeTasks: [{ subtopologyId: '0', partitions: [0, 2] }], standbyTasks: [{ subtopologyId: '1', partitions: [1] }], warmupTasks: [{ subtopologyId: '1', partitions: [3] }] };
  const target = { activeTasks: [{ subtopologyId: '0', partitions: [0] }, { subtopologyId: '1', partitions: [3] }], standbyTasks: [], warmupTasks: [] };
  assert.equal(tasksString(current, null), 'ACTIVE: 0:[0,2]; STANDBY: 1:[1]; WARMUP: 1:[3]; ');
  assert.equal(tasksString(current, target), 'ACTIVE: 0:[0,2]; STANDBY: 1:[1]; WARMUP: 1:[3]; TARGET-ACTIVE: 0:[0]; 1:[3]; ');
  assert.equal(tasksString({ activeTasks: [], standbyTasks: [], warmupTasks: [] }, null), '');
});
