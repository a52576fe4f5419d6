/**
 * The admin client against Brook's broker, with a group formed by KafkaJS consumers:
 * describe (members, decoded assignments, committed, log end, lag), reset-offsets in every
 * mode (dry run and execute, clamping, the active-group refusal), OffsetDelete, DeleteGroups,
 * ListGroups with states, unknown groups and unreachable brokers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';
import { BASE_TIMESTAMP_MS, runGroup, seedTopic } from '../support/admin-fixture.js';
import {
  Admin, GroupNotFoundError, GroupNotInactiveError, NoBrokerReachableError, ResetOffsetsError,
  type GroupOffsets, type PlannedOffset,
} from '../../src/client/admin/index.js';
import { ErrorCode, KafkaProtocolError } from '../../src/protocol/errors.js';

const PARTITIONS = 3;
const PER_PARTITION = 10;
const TOTAL = PARTITIONS * PER_PARTITION;

const committedOf = (g: GroupOffsets): (bigint | null)[] => g.rows.map((r) => r.committed);
const offsetsOf = (plan: readonly PlannedOffset[]): bigint[] => plan.map((p) => p.offset);
const all = (n: bigint): bigint[] => Array.from({ length: PARTITIONS }, () => n);

test('admin: describe, lag and every reset mode on a group of KafkaJS consumers', { timeout: 120_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'admin-groups-topic';
  const group = 'admin-groups-group';
  await seedTopic(broker.bootstrap, topic, PARTITIONS, PER_PARTITION);
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());

  const running = await runGroup(broker.bootstrap, group, topic, 2, TOTAL, 'admin-groups-client');
  cleanup.add('stop consumers', () => running.stop());

  // Active: Stable, two members whose decoded assignments cover the topic, lag 0 everywhere.
  const active = await until('a Stable group with everything committed', 20_000, async () => {
    const g = await admin.describeGroupOffsets(group);
    const ok = g.description.state === 'Stable' && g.description.members.length === 2 && g.rows.length === PARTITIONS
      && g.rows.every((r) => r.committed === BigInt(PER_PARTITION));
    return ok ? g : undefined;
  });
  const d = active.description;
  assert.equal(d.protocolType, 'consumer');
  assert.equal(d.protocol, 'RoundRobinAssigner', 'the default assignor of KafkaJS');
  assert.equal(d.generation, null, 'classic DescribeGroups has no generation');
  const assigned = d.members.flatMap((m) => m.assignment.map((a) => `${a.topic}-${a.partition}`)).sort();
  assert.deepEqual(assigned, [0, 1, 2].map((p) => `${topic}-${p}`), 'assignments decoded from the consumer protocol cover the topic once');
  for (const m of d.members) {
    assert.equal(m.clientId, 'admin-groups-client');
    assert.match(m.host, /127\.0\.0\.1/);
    assert.equal(m.groupInstanceId, null);
  }
  for (const r of active.rows) {
    assert.equal(r.logEndOffset, BigInt(PER_PARTITION));
    assert.equal(r.lag, 0n);
    assert.ok(d.members.some((m) => m.memberId === r.memberId && m.host === r.host && m.clientId === r.clientId), 'row names its member');
  }
  assert.equal(active.totalLag, 0n);
  // Kafka's row order: the member with more partitions first.
  const first = d.members.find((m) => m.memberId === active.rows[0]!.memberId)!;
  assert.equal(first.assignment.length, Math.max(...d.members.map((m) => m.assignment.length)));

  // Resetting an active group is refused, with Kafka's message; nothing changes.
  await assert.rejects(
    admin.resetOffsets(group, { scope: { kind: 'topics', topics: [{ topic }] }, spec: { kind: 'earliest' }, execute: true }),
    (err: unknown) => err instanceof GroupNotInactiveError
      && err.message === `Assignments can only be reset if the group '${group}' is inactive, but the current state is Stable.`,
  );
  // So is deleting it, with Kafka's NON_EMPTY_GROUP.
  await assert.rejects(admin.deleteGroup(group), (err: unknown) => err instanceof KafkaProtocolError && err.errorCode === ErrorCode.NON_EMPTY_GROUP);

  await running.stop();
  const empty = await until('the group Empty', 15_000, async () => {
    const g = await admin.describeGroupOffsets(group);
    return g.description.state === 'Empty' ? g : undefined;
  });
  assert.deepEqual(committedOf(empty), all(BigInt(PER_PARTITION)));
  assert.ok(empty.rows.every((r) => r.memberId === null && r.host === null && r.clientId === null), 'no member columns without members');
  assert.deepEqual((await admin.listGroups()).find((g) => g.group === group), { group, state: 'Empty', type: 'classic', protocolType: 'consumer' });

  const scope = { kind: 'topics', topics: [{ topic }] } as const;
  const reset = (spec: Parameters<Admin['resetOffsets']>[1]['spec'], execute = true, s: Parameters<Admin['resetOffsets']>[1]['scope'] = scope) =>
    admin.resetOffsets(group, { scope: s, spec, execute });

  // Dry run: the plan, and nothing committed.
  assert.deepEqual(offsetsOf(await reset({ kind: 'earliest' }, false)), all(0n));
  assert.deepEqual(committedOf(await admin.describeGroupOffsets(group)), all(BigInt(PER_PARTITION)), 'a dry run changes nothing');

  // --to-earliest --execute: lag = the record count.
  assert.deepEqual(offsetsOf(await reset({ kind: 'earliest' })), all(0n));
  const rewound = await admin.describeGroupOffsets(group);
  assert.deepEqual(rewound.rows.map((r) => r.lag), all(BigInt(PER_PARTITION)));
  assert.equal(rewound.totalLag, BigInt(TOTAL));

  assert.deepEqual(offsetsOf(await reset({ kind: 'latest' })), all(BigInt(PER_PARTITION)));
  assert.equal((await admin.describeGroupOffsets(group)).totalLag, 0n);

  assert.deepEqual(offsetsOf(await reset({ kind: 'offset', offset: 4n })), all(4n));
  assert.deepEqual(committedOf(await admin.describeGroupOffsets(group)), all(4n));
  assert.deepEqual(offsetsOf(await reset({ kind: 'offset', offset: 1000n }, false)), all(BigInt(PER_PARTITION)), '--to-offset above the log end: the log end');
  assert.deepEqual(offsetsOf(await reset({ kind: 'offset', offset: -5n }, false)), all(0n), '--to-offset below the log start: the log start');

  assert.deepEqual(offsetsOf(await reset({ kind: 'shift', by: 3n })), all(7n));
  assert.deepEqual(offsetsOf(await reset({ kind: 'shift', by: -2n })), all(5n));
  assert.deepEqual(offsetsOf(await reset({ kind: 'shift', by: -100n }, false)), all(0n), 'shift below the log start: clamped');
  assert.deepEqual(offsetsOf(await reset({ kind: 'shift', by: 100n }, false)), all(BigInt(PER_PARTITION)), 'shift above the log end: clamped');
  assert.deepEqual(committedOf(await admin.describeGroupOffsets(group)), all(5n));

  // By time: record i has timestamp BASE + i s.
  assert.deepEqual(offsetsOf(await reset({ kind: 'datetime', timestampMs: BigInt(BASE_TIMESTAMP_MS + 3_000) })), all(3n));
  assert.deepEqual(offsetsOf(await reset({ kind: 'datetime', timestampMs: BigInt(BASE_TIMESTAMP_MS + 2_500) }, false)), all(3n), 'first record at or after the time');
  assert.deepEqual(offsetsOf(await reset({ kind: 'datetime', timestampMs: BigInt(BASE_TIMESTAMP_MS - 60_000) }, false)), all(0n));
  assert.deepEqual(offsetsOf(await reset({ kind: 'datetime', timestampMs: BigInt(BASE_TIMESTAMP_MS + 3_600_000) }, false)), all(BigInt(PER_PARTITION)), 'no record that late: the log end');

  // Only some partitions; --all-topics = the committed partitions.
  const some = await reset({ kind: 'earliest' }, true, { kind: 'topics', topics: [{ topic, partitions: [0, 2] }] });
  assert.deepEqual(some.map((p) => [p.partition, p.offset]), [[0, 0n], [2, 0n]]);
  assert.deepEqual(committedOf(await admin.describeGroupOffsets(group)), [0n, 3n, 0n]);
  assert.deepEqual(offsetsOf(await reset({ kind: 'latest' }, true, { kind: 'all-topics' })), all(BigInt(PER_PARTITION)));
  await assert.rejects(reset({ kind: 'earliest' }, false, { kind: 'topics', topics: [{ topic, partitions: [7] }] }),
    (err: unknown) => err instanceof ResetOffsetsError && err.message === `The partitions "${topic}-7" do not exist`);
  await assert.rejects(reset({ kind: 'earliest' }, false, { kind: 'topics', topics: [{ topic: 'no-such-topic' }] }),
    (err: unknown) => err instanceof KafkaProtocolError && err.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

  // Log offsets by themselves.
  const tps = [0, 1, 2].map((partition) => ({ topic, partition }));
  assert.deepEqual([...(await admin.logStartOffsets(tps)).values()], all(0n));
  assert.deepEqual([...(await admin.logEndOffsets(tps)).values()], all(BigInt(PER_PARTITION)));

  // OffsetDelete, then DeleteGroups.
  assert.deepEqual(await admin.deleteOffsets(group, [{ topic, partition: 1 }]), [{ topic, partition: 1, error: null }]);
  assert.deepEqual((await admin.committedOffsets(group)).map((c) => c.partition), [0, 2]);
  const afterDelete = await admin.describeGroupOffsets(group);
  assert.deepEqual(afterDelete.rows.map((r) => r.partition), [0, 2], 'rows are committed ∪ assigned partitions');
  await admin.deleteGroup(group);
  // DescribeGroups v6 (KIP-1043): an unknown group is GROUP_ID_NOT_FOUND, no longer a Dead description.
  await assert.rejects(admin.describeGroup(group), GroupNotFoundError);
  await assert.rejects(admin.describeGroupOffsets(group), (err: unknown) => err instanceof GroupNotFoundError && err.message === `Consumer group '${group}' does not exist.`);
  await assert.rejects(admin.deleteGroup(group), GroupNotFoundError);
  assert.equal((await admin.listGroups()).find((g) => g.group === group), undefined);

  // A reset of an unknown group creates its offsets (Kafka resets Dead groups too).
  const fresh = await admin.resetOffsets('admin-groups-fresh', { scope, spec: { kind: 'offset', offset: 2n }, execute: true });
  assert.deepEqual(offsetsOf(fresh), all(2n));
  assert.deepEqual((await admin.committedOffsets('admin-groups-fresh')).map((c) => c.offset), all(2n));
  await assert.rejects(
    admin.resetOffsets('admin-groups-never', { scope, spec: { kind: 'shift', by: 1n }, execute: false }),
    (err: unknown) => err instanceof ResetOffsetsError && /no current committed offset/.test(err.message),
  );
});

test('admin: topics create, describe, list, delete', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  t.after(() => admin.close());
  await admin.createTopic({ name: 'admin-topics-a', partitions: 4, replicationFactor: 1, configs: { 'retention.ms': '60000' } });
  const described = await admin.describeTopic('admin-topics-a');
  assert.deepEqual(described.partitions.map((p) => p.partition), [0, 1, 2, 3]);
  assert.ok((await admin.listTopics()).includes('admin-topics-a'));
  await assert.rejects(admin.createTopic({ name: 'admin-topics-a', partitions: 1 }), (err: unknown) => err instanceof KafkaProtocolError && err.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS);
  await admin.deleteTopic('admin-topics-a');
  assert.ok(!(await admin.listTopics()).includes('admin-topics-a'));
  await assert.rejects(admin.describeTopic('admin-topics-a'), (err: unknown) => err instanceof KafkaProtocolError && err.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
});

test('admin: an unreachable bootstrap server fails fast with NoBrokerReachableError', async () => {
  // Port 1 on loopback: nothing listens there, so the connection is refused at once.
  await assert.rejects(Admin.connect({ bootstrapServers: '127.0.0.1:1' }), NoBrokerReachableError);
});
