/**
 * Admin.describeStreamsGroup and listGroups of type streams against a Brook broker, with a
 * streams group (KIP-1071) of two members of two processes made by raw StreamsGroupHeartbeat
 * requests (the word-count topology; one standby replica): what each member sent (instance
 * id, rack, process, user endpoint, client tags) comes back, the four tasks are each active on
 * one member, each stateful task has its standby on the other process, and the topology is
 * the configured one (internal topics with their partition counts). As Kafka's Admin: an
 * unknown group or a group of another type is GroupNotFoundError.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { RawConnection, type RequestBody } from '../support/kafka/raw-client.js';
import { wordCountTopology } from '../support/coordinator/streams.js';
import { Admin, GroupNotFoundError, type StreamsTaskIds } from '../../src/client/admin/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';

interface Sent {
  readonly memberId: string;
  readonly processId: string;
  readonly instanceId: string;
  readonly rackId: string;
  readonly port: number;
  readonly zone: string;
}

const MEMBERS: readonly Sent[] = [
  { memberId: 'member-a', processId: 'process-a', instanceId: 'instance-a', rackId: 'rack-a', port: 7001, zone: 'z1' },
  { memberId: 'member-b', processId: 'process-b', instanceId: 'instance-b', rackId: 'rack-b', port: 7002, zone: 'z2' },
];

function beat(m: Sent, memberEpoch: number): RequestBody<'StreamsGroupHeartbeat'> {
  const joining = memberEpoch === 0;
  return {
    groupId: 'app', memberId: m.memberId, memberEpoch, endpointInformationEpoch: 0, instanceId: m.instanceId, rackId: joining ? m.rackId : null,
    rebalanceTimeoutMs: joining ? 30_000 : -1, topology: joining ? wordCountTopology() : null,
    activeTasks: joining ? [] : null, standbyTasks: joining ? [] : null, warmupTasks: joining ? [] : null,
    processId: joining ? m.processId : null, userEndpoint: joining ? { host: 'localhost', port: m.port } : null,
    clientTags: joining ? [{ key: 'zone', value: m.zone }] : null, taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
  };
}

const taskKeys = (list: readonly StreamsTaskIds[]): string[] => list.flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}_${p}`));

test('admin: describeStreamsGroup and listGroups of streams groups', { timeout: 60_000 }, async (t) => {
  const broker = await startBrook({ groupStreamsInitialRebalanceDelayMs: 0, groupStreamsAssignmentIntervalMs: 0, groupStreamsNumStandbyReplicas: 1 });
  t.after(() => broker.stop());
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'streams-admin-test' });
  t.after(() => conn.close());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  t.after(() => admin.close());
  broker.createTopic('input', 2);

  // Both join, then heartbeat (reporting what they own) until the group is Stable.
  const epochs = new Map<string, number>(MEMBERS.map((m) => [m.memberId, 0]));
  type Tasks = Pick<RequestBody<'StreamsGroupHeartbeat'>, 'activeTasks' | 'standbyTasks' | 'warmupTasks'>;
  const owned = new Map<string, Tasks>();
  for (let round = 0; ; round++) {
    assert.ok(round < 50, 'the group becomes Stable');
    for (const m of MEMBERS) {
      const body = beat(m, epochs.get(m.memberId)!);
      const r = await conn.request('StreamsGroupHeartbeat', 1, round === 0 ? body : { ...body, ...owned.get(m.memberId) });
      assert.equal(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
      epochs.set(m.memberId, r.memberEpoch);
      // The tasks it owns from now on, reported on its next heartbeat (all three kinds, as Kafka Streams does).
      if (r.activeTasks !== null) owned.set(m.memberId, { activeTasks: r.activeTasks, standbyTasks: r.standbyTasks ?? [], warmupTasks: r.warmupTasks ?? [] });
    }
    const d = await admin.describeStreamsGroup('app');
    if (d.state === 'Stable' && d.members.every((m) => m.memberEpoch === d.assignmentEpoch)) break;
  }

  const d = await admin.describeStreamsGroup('app');
  assert.equal(d.group, 'app');
  assert.equal(d.state, 'Stable');
  assert.equal(d.groupEpoch, d.assignmentEpoch);
  assert.equal(d.topologyEpoch, 0);
  assert.equal(d.assignor, 'sticky');
  assert.equal(d.coordinator.port, broker.port);
  assert.deepEqual(d.subtopologies?.map((s) => [s.subtopologyId, s.sourceTopics, s.repartitionSinkTopics, s.repartitionSourceTopics.map((x) => [x.name, x.partitions]), s.stateChangelogTopics.map((x) => x.name)]), [
    ['0', ['input'], ['app-repartition'], [], []],
    ['1', [], [], [['app-repartition', 2]], ['app-store-changelog']],
  ]);
  assert.deepEqual(d.members.map((m) => m.memberId).sort(), ['member-a', 'member-b']);
  for (const sent of MEMBERS) {
    const m = d.members.find((x) => x.memberId === sent.memberId)!;
    assert.deepEqual(
      [m.processId, m.instanceId, m.rackId, m.userEndpoint, m.clientTags, m.clientId, m.topologyEpoch, m.memberEpoch, m.isClassic],
      [sent.processId, sent.instanceId, sent.rackId, { host: 'localhost', port: sent.port }, { zone: sent.zone }, 'streams-admin-test', 0, d.assignmentEpoch, false],
    );
    assert.match(m.host, /127\.0\.0\.1/);
    // Stable: each member owns its target.
    assert.deepEqual(m.assignment, m.targetAssignment);
  }
  // Every task active exactly once; the stateful subtopology's tasks each with one standby on the other process.
  const active = d.members.flatMap((m) => taskKeys(m.assignment.activeTasks)).sort();
  assert.deepEqual(active, ['0_0', '0_1', '1_0', '1_1']);
  const standby = d.members.flatMap((m) => taskKeys(m.assignment.standbyTasks).map((task) => ({ task, process: m.processId })));
  assert.deepEqual(standby.map((s) => s.task).sort(), ['1_0', '1_1']);
  for (const s of standby) {
    const activeOn = d.members.find((m) => taskKeys(m.assignment.activeTasks).includes(s.task))!;
    assert.notEqual(activeOn.processId, s.process, `standby ${s.task} is not on the process of its active task`);
  }

  const listed = await admin.listGroups({ types: ['streams'] });
  assert.deepEqual(listed, [{ group: 'app', state: 'Stable', type: 'streams', protocolType: 'streams' }]);
  assert.deepEqual(await admin.listGroups({ types: ['consumer'] }), []);

  // Unknown, and a group of another type (a classic group made by committing offsets).
  await assert.rejects(admin.describeStreamsGroup('nobody'), GroupNotFoundError);
  await admin.commitOffsets('classic-group', [{ topic: 'input', partition: 0, offset: 0n }]);
  await assert.rejects(admin.describeStreamsGroup('classic-group'), GroupNotFoundError);
});
