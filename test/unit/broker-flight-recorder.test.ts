/**
 * The flight recorder through Brook's broker: groups driven by raw requests, whose answers
 * (generations, epochs, assignments the test itself handed out as leader or received from
 * the coordinator) are what the timeline in `__brook_group_timeline` must tell, and the
 * history surviving a restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook, tempDir } from '../support/brook.js';
import { RawConnection, type RequestBody } from '../support/kafka/raw-client.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeAssignment, encodeAssignment, encodeSubscription } from '../../src/protocol/consumer-protocol.js';
import { decodeRecords } from '../../src/protocol/records/index.js';
import { parseTimelineEntry, TIMELINE_TOPIC, type TimelineEntry } from '../../src/broker/flight-recorder/timeline-entry.js';
import type { Broker } from '../../src/broker/broker.js';
import { wordCountTopology } from '../support/coordinator/streams.js';

const TIMEOUT = { timeout: 30_000 };

/** Every entry of the topic, read from the log as a fetch would. */
function timeline(broker: Broker, group?: string): TimelineEntry[] {
  const log = broker.storage.partition(TIMELINE_TOPIC, 0);
  if (log === undefined) return [];
  const out: TimelineEntry[] = [];
  let next = log.logStartOffset;
  while (next < log.highWatermark) {
    const read = log.read(next, 1024 * 1024, { minOneBatch: true });
    for (const buf of read.records) {
      for (const r of decodeRecords(buf)) {
        next = r.offset + 1n;
        const e = parseTimelineEntry(r.value);
        assert.ok(e !== null, 'every record is an entry');
        assert.equal(Buffer.from(r.key!).toString('utf8'), e.group, 'keyed by the group id');
        if (group === undefined || e.group === group) out.push(e);
      }
    }
  }
  return out;
}

const subscription = encodeSubscription({ topics: ['t'], userData: null, ownedPartitions: [], generationId: -1, rackId: null }, 0);

function joinReq(group: string, memberId: string): RequestBody<'JoinGroup'> {
  return {
    groupId: group, sessionTimeoutMs: 3_000, rebalanceTimeoutMs: 10_000, memberId, groupInstanceId: null, protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription }],
  };
}

function assignment(partitions: number[]): Buffer {
  return encodeAssignment({ assignedPartitions: partitions.length === 0 ? [] : [{ topic: 't', partitions }], userData: null }, 0);
}

test('classic group: each generation with joined and left members, leader, protocol, assignments and moved partitions; kept across a restart', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir('brook-recorder');
  cleanup.add('remove dir', () => dir.remove());
  let broker = await startBrook({ dataDir: dir.path, groupMinSessionTimeoutMs: 1_000 });
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('t', 2);
  const a = await RawConnection.connect(broker.host, broker.port, { clientId: 'client-a' });
  const b = await RawConnection.connect(broker.host, broker.port, { clientId: 'client-b' });
  cleanup.add('close', () => { a.close(); b.close(); });
  const g = 'recorded';

  // Generation 1: m1 alone, the leader; it gives itself both partitions.
  const j1 = await a.request('JoinGroup', 3, joinReq(g, ''));
  assert.equal(j1.errorCode, ErrorCode.NONE);
  const m1 = j1.memberId;
  assert.equal((await a.request('SyncGroup', 3, { groupId: g, generationId: j1.generationId, memberId: m1, groupInstanceId: null, assignments: [{ memberId: m1, assignment: assignment([0, 1]) }] })).errorCode, ErrorCode.NONE);

  // Generation 2: m2 joins; m1 rejoins (its heartbeat says REBALANCE_IN_PROGRESS); m1 hands partition 1 to m2.
  const j2b = b.request('JoinGroup', 3, joinReq(g, ''));
  await until('the rebalance', 5_000, async () => (timeline(broker, g).length >= 1 ? true : undefined));
  const beat = await a.request('Heartbeat', 3, { groupId: g, generationId: j1.generationId, memberId: m1, groupInstanceId: null });
  assert.equal(beat.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
  const [j2a, j2bDone] = await Promise.all([a.request('JoinGroup', 3, joinReq(g, m1)), j2b]);
  const m2 = j2bDone.memberId;
  assert.equal(j2a.leader, m1);
  const gen2 = j2a.generationId;
  const syncB = b.request('SyncGroup', 3, { groupId: g, generationId: gen2, memberId: m2, groupInstanceId: null, assignments: [] });
  await a.request('SyncGroup', 3, { groupId: g, generationId: gen2, memberId: m1, groupInstanceId: null, assignments: [{ memberId: m1, assignment: assignment([0]) }, { memberId: m2, assignment: assignment([1]) }] });
  assert.equal((await syncB).errorCode, ErrorCode.NONE);

  // Generation 3: m2 leaves; m1 takes both partitions again.
  assert.equal((await b.request('LeaveGroup', 3, { groupId: g, memberId: '', members: [{ memberId: m2, groupInstanceId: null }] })).errorCode, ErrorCode.NONE);
  const j3 = await a.request('JoinGroup', 3, joinReq(g, m1));
  await a.request('SyncGroup', 3, { groupId: g, generationId: j3.generationId, memberId: m1, groupInstanceId: null, assignments: [{ memberId: m1, assignment: assignment([0, 1]) }] });

  const entries = await until('three generations', 5_000, async () => {
    const es = timeline(broker, g);
    return es.length >= 3 ? es : undefined;
  });
  assert.deepEqual(entries.map((e) => [e.kind, e.generation, e.outcome, e.groupType]), [
    ['rebalance', j1.generationId, 'Stable', 'classic'],
    ['rebalance', gen2, 'Stable', 'classic'],
    ['rebalance', j3.generationId, 'Stable', 'classic'],
  ]);
  const [e1, e2, e3] = entries as [TimelineEntry, TimelineEntry, TimelineEntry];
  assert.deepEqual(e1.joined.map((m) => [m.memberId, m.clientId]), [[m1, 'client-a']]);
  assert.deepEqual(e1.members.map((m) => [m.memberId, m.assignment]), [[m1, { t: [0, 1] }]]);
  assert.deepEqual(e1.moved, [{ topic: 't', partition: 0, from: null, to: m1 }, { topic: 't', partition: 1, from: null, to: m1 }]);
  assert.equal(e1.leader, m1);
  assert.equal(e1.protocol, 'range');
  assert.equal(e1.protocolType, 'consumer');

  assert.deepEqual(e2.joined.map((m) => [m.memberId, m.clientId]), [[m2, 'client-b']]);
  assert.deepEqual(e2.left, []);
  assert.match(e2.reason, new RegExp(`adding new member ${m2}`));
  assert.deepEqual(e2.members.map((m) => [m.memberId, m.assignment]).sort(), [[m1, { t: [0] }], [m2, { t: [1] }]].sort());
  assert.deepEqual(e2.moved, [{ topic: 't', partition: 1, from: m1, to: m2 }]);
  assert.ok(e2.durationMs !== null && e2.durationMs >= 0);
  assert.ok(e2.preparingRebalanceMs !== null && e2.completingRebalanceMs !== null);
  assert.equal(e2.preparingRebalanceMs! + e2.completingRebalanceMs!, e2.durationMs, 'the two phases make the paused time');

  assert.deepEqual(e3.left.map((m) => [m.memberId, m.cause]), [[m2, 'left']]);
  assert.deepEqual(e3.moved, [{ topic: 't', partition: 1, from: m2, to: m1 }]);
  assert.deepEqual(e3.members.map((m) => m.memberId), [m1]);

  // The history survives a restart, and the next generation's moves are measured from the last one.
  a.close();
  b.close();
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path, groupMinSessionTimeoutMs: 1_000 });
  cleanup.add('stop restarted broker', () => broker.stop());
  assert.deepEqual(timeline(broker, g).map((e) => e.generation), [j1.generationId, gen2, j3.generationId]);
  const c = await RawConnection.connect(broker.host, broker.port, { clientId: 'client-c' });
  cleanup.add('close c', () => c.close());
  // m1 is gone with its connection: a new member joins, and the rebalance waits for m1 until its session expires.
  const j4 = await c.request('JoinGroup', 3, joinReq(g, ''));
  const m3 = j4.memberId;
  assert.equal(j4.errorCode, ErrorCode.NONE);
  await c.request('SyncGroup', 3, { groupId: g, generationId: j4.generationId, memberId: m3, groupInstanceId: null, assignments: [{ memberId: m3, assignment: assignment([0, 1]) }] });
  const after = await until('the generation after the restart', 5_000, async () => {
    const es = timeline(broker, g).filter((e) => e.kind === 'rebalance' && e.generation === j4.generationId);
    return es.length > 0 ? es[0] : undefined;
  });
  assert.deepEqual(after.moved, [{ topic: 't', partition: 0, from: m1, to: m3 }, { topic: 't', partition: 1, from: m1, to: m3 }]);
  assert.deepEqual(after.left.map((m) => [m.memberId, m.cause]), [[m1, 'session-timeout']]);
  assert.deepEqual(after.joined.map((m) => m.memberId), [m3]);
  // The expiry of m1 is a moment of its own too, before the generation it led to.
  const kinds = timeline(broker, g).slice(3).map((e) => [e.kind, e.left[0]?.memberId ?? null, e.left[0]?.cause ?? null]);
  assert.deepEqual(kinds, [['member-removed', m1, 'session-timeout'], ['rebalance', m1, 'session-timeout']]);
});

test('consumer group: each epoch with the revocations and every member\'s reconciliation steps', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupConsumerAssignmentIntervalMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('t', 2);
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'kip848' });
  cleanup.add('close', () => conn.close());
  const g = 'recorded-848';
  const join = (memberId: string): RequestBody<'ConsumerGroupHeartbeat'> => ({
    groupId: g, memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: 'range', topicPartitions: [],
  });
  const beat = (memberId: string, memberEpoch: number, owned: number[] | null): RequestBody<'ConsumerGroupHeartbeat'> => ({
    ...join(memberId), memberEpoch, rebalanceTimeoutMs: -1, subscribedTopicNames: null, serverAssignor: null,
    topicPartitions: owned === null ? null : [{ topicId: broker.storage.topic('t')!.topicId, partitions: owned }],
  });
  const parts = (r: { assignment: { topicPartitions: { partitions: number[] }[] } | null }): number[] => (r.assignment?.topicPartitions.flatMap((tp) => tp.partitions) ?? []).sort();

  const r1 = await conn.request('ConsumerGroupHeartbeat', 1, join('m1'));
  assert.deepEqual(parts(r1), [0, 1]);
  const r2 = await conn.request('ConsumerGroupHeartbeat', 1, join('m2'));
  assert.deepEqual(parts(r2), [], 'm2 waits for m1 to revoke');
  const epoch = r2.memberEpoch;
  const r1b = await conn.request('ConsumerGroupHeartbeat', 1, beat('m1', r1.memberEpoch, [0, 1]));
  const kept = parts(r1b);
  assert.equal(kept.length, 1, 'm1 is told to give up one partition');
  const r1c = await conn.request('ConsumerGroupHeartbeat', 1, beat('m1', r1b.memberEpoch, kept));
  assert.equal(r1c.memberEpoch, epoch);
  const r2b = await conn.request('ConsumerGroupHeartbeat', 1, beat('m2', r2.memberEpoch, []));
  const given = parts(r2b);
  assert.equal(r2b.memberEpoch, epoch);
  assert.deepEqual([...kept, ...given].sort(), [0, 1]);

  const entries = await until('two epochs', 5_000, async () => {
    const es = timeline(broker, g).filter((e) => e.kind === 'rebalance');
    return es.length >= 2 && es.at(-1)!.epoch === epoch ? es : undefined;
  });
  const last = entries.at(-1)!;
  assert.equal(last.groupType, 'consumer');
  assert.equal(last.generation, undefined);
  assert.equal(last.outcome, 'Stable');
  assert.deepEqual(last.joined.map((m) => m.memberId), ['m2']);
  assert.deepEqual(last.members.map((m) => [m.memberId, m.assignment]).sort(), [['m1', { t: kept }], ['m2', { t: given }]].sort());
  assert.deepEqual(last.moved, [{ topic: 't', partition: given[0]!, from: 'm1', to: 'm2' }]);
  assert.deepEqual(last.revoked, [{ memberId: 'm1', partitions: { t: given } }]);
  const steps = new Map(last.reconciliation!.map((r) => [r.memberId, r]));
  assert.deepEqual(steps.get('m1')!.steps.map((s) => [s.memberEpoch, s.state, s.assigned, s.revoking]), [
    [r1.memberEpoch, 'UNREVOKED_PARTITIONS', 1, 1],
    [epoch, 'STABLE', 1, 0],
  ]);
  assert.ok(steps.get('m1')!.convergedMs !== null);
  assert.deepEqual(steps.get('m2')!.steps.map((s) => [s.memberEpoch, s.state, s.assigned]).at(-1), [epoch, 'STABLE', 1]);
});

test('a classic group converted to a consumer group by a KIP-848 member: the conversion, then epochs with both kinds of members', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupConsumerAssignmentIntervalMs: 0, groupMinSessionTimeoutMs: 1_000 });
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('t', 2);
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'migrating' });
  cleanup.add('close', () => conn.close());
  const g = 'recorded-migration';

  const j1 = await conn.request('JoinGroup', 3, joinReq(g, ''));
  assert.equal(j1.errorCode, ErrorCode.NONE);
  const classicMember = j1.memberId;
  await conn.request('SyncGroup', 3, { groupId: g, generationId: j1.generationId, memberId: classicMember, groupInstanceId: null, assignments: [{ memberId: classicMember, assignment: assignment([0, 1]) }] });
  const r = await conn.request('ConsumerGroupHeartbeat', 1, {
    groupId: g, memberId: 'new-848', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: 'range', topicPartitions: [],
  });
  assert.equal(r.errorCode, ErrorCode.NONE);
  // The classic member learns of the rebalance, rejoins the (now consumer) group and syncs; the new member then gets the rest.
  const hb = await conn.request('Heartbeat', 3, { groupId: g, generationId: j1.generationId, memberId: classicMember, groupInstanceId: null });
  assert.equal(hb.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
  const j2 = await conn.request('JoinGroup', 3, joinReq(g, classicMember));
  assert.equal(j2.errorCode, ErrorCode.NONE);
  const s2 = await conn.request('SyncGroup', 3, { groupId: g, generationId: j2.generationId, memberId: classicMember, groupInstanceId: null, assignments: [] });
  assert.equal(s2.errorCode, ErrorCode.NONE);
  const kept = decodeAssignment(Buffer.from(s2.assignment)).assignment.assignedPartitions.flatMap((tp) => tp.partitions).sort();
  const r2 = await conn.request('ConsumerGroupHeartbeat', 1, {
    groupId: g, memberId: 'new-848', memberEpoch: r.memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: -1,
    subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  const given = (r2.assignment?.topicPartitions.flatMap((tp) => tp.partitions) ?? []).sort();
  assert.deepEqual([...kept, ...given].sort(), [0, 1]);
  assert.equal(given.length, 1);

  const entries = await until('the conversion and the first stable epoch', 5_000, async () => {
    const es = timeline(broker, g);
    return es.some((e) => e.kind === 'group-converted') && es.some((e) => e.kind === 'rebalance' && e.groupType === 'consumer' && e.outcome === 'Stable') ? es : undefined;
  });
  const converted = entries.find((e) => e.kind === 'group-converted')!;
  assert.deepEqual([converted.from, converted.to, converted.groupType, converted.generation], ['classic', 'consumer', 'classic', j1.generationId]);
  const epoch = entries.find((e) => e.kind === 'rebalance' && e.groupType === 'consumer' && e.outcome === 'Stable')!;
  assert.ok(entries.indexOf(epoch) > entries.indexOf(converted));
  assert.equal(epoch.epoch, r2.memberEpoch);
  assert.equal(epoch.epoch, j2.generationId, 'a classic member in a consumer group gets the group epoch as its generation');
  assert.deepEqual(epoch.joined.map((m) => [m.memberId, m.protocol]), [['new-848', 'consumer']]);
  assert.deepEqual(epoch.members.map((m) => [m.memberId, m.protocol, m.assignment]).sort(), [[classicMember, 'classic', { t: kept }], ['new-848', 'consumer', { t: given }]].sort());
  assert.deepEqual(epoch.moved, [{ topic: 't', partition: given[0]!, from: classicMember, to: 'new-848' }]);
});

test('a static member restarting under a new member id: a replacement entry, and no partition moves', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupMinSessionTimeoutMs: 1_000 });
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('t', 2);
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'static' });
  cleanup.add('close', () => conn.close());
  const g = 'recorded-static';
  const j1 = await conn.request('JoinGroup', 5, { ...joinReq(g, ''), groupInstanceId: 'instance-1' });
  assert.equal(j1.errorCode, ErrorCode.NONE);
  await conn.request('SyncGroup', 5, { groupId: g, generationId: j1.generationId, memberId: j1.memberId, groupInstanceId: 'instance-1', protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: j1.memberId, assignment: assignment([0, 1]) }] });
  // The restart: the same instance id, no member id. A Stable group with the same protocol hands it its old assignment, without a rebalance.
  const j2 = await conn.request('JoinGroup', 5, { ...joinReq(g, ''), groupInstanceId: 'instance-1' });
  assert.equal(j2.errorCode, ErrorCode.NONE);
  assert.notEqual(j2.memberId, j1.memberId);
  assert.equal(j2.generationId, j1.generationId, 'no new generation');
  const entries = await until('the replacement', 5_000, async () => {
    const es = timeline(broker, g);
    return es.some((e) => e.kind === 'static-member-replaced') ? es : undefined;
  });
  const replaced = entries.find((e) => e.kind === 'static-member-replaced')!;
  assert.deepEqual(replaced.left.map((m) => [m.memberId, m.instanceId, m.cause]), [[j1.memberId, 'instance-1', 'replaced']]);
  assert.deepEqual(replaced.joined.map((m) => [m.memberId, m.instanceId]), [[j2.memberId, 'instance-1']]);
  assert.deepEqual(replaced.members.map((m) => m.memberId), [j2.memberId]);
  assert.equal(replaced.generation, j1.generationId);
  // The next generation measures moves from the new id owning what the old one did.
  const hb = await conn.request('LeaveGroup', 3, { groupId: g, memberId: '', members: [{ memberId: j2.memberId, groupInstanceId: null }] });
  assert.equal(hb.errorCode, ErrorCode.NONE);
  const empty = await until('the group Empty', 5_000, async () => timeline(broker, g).find((e) => e.kind === 'rebalance' && e.outcome === 'Empty'));
  assert.deepEqual(empty.moved, [{ topic: 't', partition: 0, from: j2.memberId, to: null }, { topic: 't', partition: 1, from: j2.memberId, to: null }]);
});

test('consumer group: epochs that follow one another before the group is Stable again make one entry, with the epochs passed', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupConsumerAssignmentIntervalMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('t', 3);
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'merging' });
  cleanup.add('close', () => conn.close());
  const g = 'recorded-merge';
  const topicId = broker.storage.topic('t')!.topicId;
  const owned = new Map<string, number[]>();
  const epochs = new Map<string, number>();
  const heartbeat = async (memberId: string): Promise<number> => {
    const first = !epochs.has(memberId);
    const r = await conn.request('ConsumerGroupHeartbeat', 1, {
      groupId: g, memberId, memberEpoch: epochs.get(memberId) ?? 0, instanceId: null, rackId: null, rebalanceTimeoutMs: first ? 30_000 : -1,
      subscribedTopicNames: first ? ['t'] : null, subscribedTopicRegex: null, serverAssignor: first ? 'range' : null,
      topicPartitions: first ? [] : [{ topicId, partitions: owned.get(memberId) ?? [] }],
    });
    assert.equal(r.errorCode, ErrorCode.NONE);
    epochs.set(memberId, r.memberEpoch);
    if (r.assignment !== null) owned.set(memberId, r.assignment.topicPartitions.flatMap((tp) => tp.partitions).sort());
    return r.memberEpoch;
  };
  const stableEpoch = await heartbeat('m1');
  await heartbeat('m2');
  const last = await heartbeat('m3');
  assert.equal(last, stableEpoch + 2, 'each join bumps the group epoch');
  // Everybody heartbeats until all are at the last epoch and every partition is owned once.
  for (let i = 0; i < 20; i++) {
    for (const m of ['m1', 'm2', 'm3']) await heartbeat(m);
    const all = [...owned.values()].flat().sort();
    if ([...epochs.values()].every((e) => e === last) && all.join() === '0,1,2') break;
  }
  assert.deepEqual([...epochs.values()], [last, last, last]);
  const entries = await until('the merged entry', 5_000, async () => {
    const es = timeline(broker, g).filter((e) => e.kind === 'rebalance');
    return es.at(-1)?.epoch === last && es.at(-1)?.outcome === 'Stable' ? es : undefined;
  });
  assert.deepEqual(entries.map((e) => [e.epoch, e.passedEpochs ?? []]), [[stableEpoch, []], [last, [stableEpoch + 1]]]);
  const merged = entries[1]!;
  assert.deepEqual(merged.joined.map((m) => m.memberId), ['m2', 'm3']);
  assert.deepEqual(merged.members.map((m) => [m.memberId, m.assignment]).sort(), [...owned].map(([id, ps]) => [id, { t: ps }]).sort());
});

test('share group: each epoch with its members\' assignments as the heartbeats gave them', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupShareAssignmentIntervalMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('t', 2);
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'share-recorded' });
  cleanup.add('close', () => conn.close());
  const g = 'recorded-share';
  const topicId = broker.storage.topic('t')!.topicId;
  const beat = (memberId: string, memberEpoch: number) => conn.request('ShareGroupHeartbeat', 1, {
    groupId: g, memberId, memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? ['t'] : null,
  });
  const partitions = (r: { assignment: { topicPartitions: { topicId: string; partitions: number[] }[] } | null }): number[] =>
    (r.assignment?.topicPartitions.filter((tp) => tp.topicId === topicId).flatMap((tp) => tp.partitions) ?? []).sort();
  const a = await beat('share-member-a-aaaaaa', 0);
  assert.equal(a.errorCode, ErrorCode.NONE);
  const entries = await until('the share group\'s epoch', 5_000, async () => {
    const es = timeline(broker, g).filter((e) => e.kind === 'rebalance');
    return es.length > 0 ? es : undefined;
  });
  const first = entries[0]!;
  assert.deepEqual([first.groupType, first.epoch, first.outcome], ['share', a.memberEpoch, 'Stable']);
  assert.deepEqual(first.joined.map((m) => [m.memberId, m.protocol, m.clientId]), [['share-member-a-aaaaaa', 'share', 'share-recorded']]);
  const given = partitions(a);
  assert.deepEqual(first.members.map((m) => [m.memberId, m.assignment]), [['share-member-a-aaaaaa', given.length === 0 ? {} : { t: given }]]);
});

test('streams group: an epoch with the members\' active tasks by subtopology', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupStreamsInitialRebalanceDelayMs: 0, groupStreamsAssignmentIntervalMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('input', 2);
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'streams-recorded' });
  cleanup.add('close', () => conn.close());
  const join: RequestBody<'StreamsGroupHeartbeat'> = {
    groupId: 'app', memberId: 'm1', memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    topology: wordCountTopology(), activeTasks: [], standbyTasks: [], warmupTasks: [], processId: 'process-m1', userEndpoint: null, clientTags: [],
    taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
  };
  const first = await conn.request('StreamsGroupHeartbeat', 1, join);
  assert.equal(first.errorCode, ErrorCode.NONE);
  const second = await conn.request('StreamsGroupHeartbeat', 1, { ...join, memberEpoch: first.memberEpoch, topology: null, processId: null, clientTags: null });
  assert.equal(second.errorCode, ErrorCode.NONE);
  const tasks: Record<string, number[]> = {};
  for (const t of second.activeTasks ?? []) tasks[t.subtopologyId] = [...t.partitions].sort();
  assert.equal(Object.values(tasks).flat().length, 4, 'two subtopologies x two partitions');
  const entry = await until('the streams group\'s Stable epoch', 5_000, async () => timeline(broker, 'app').find((e) => e.kind === 'rebalance' && e.outcome === 'Stable' && e.epoch === second.memberEpoch));
  assert.equal(entry.groupType, 'streams');
  assert.deepEqual(entry.members.map((m) => [m.memberId, m.protocol, m.assignment]), [['m1', 'streams', tasks]]);
  assert.deepEqual(entry.moved.map((m) => [m.topic, m.partition, m.from, m.to]).sort(),
    Object.entries(tasks).flatMap(([sub, ps]) => ps.map((p) => [sub, p, null, 'm1'])).sort());
});
