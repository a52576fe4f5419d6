/**
 * `__brook_group_timeline` is an ordinary topic to Kafka clients: kcat (librdkafka) finds it
 * in Metadata and reads the flight recorder's entries, keyed by group id, as JSON that tells
 * what the group's members were told (generation, leader, assignments).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { kcatAvailable, kcatConsume } from '../support/clients/kcat.js';
import { runProcess } from '../support/clients/run.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeAssignment, encodeSubscription } from '../../src/protocol/consumer-protocol.js';
import { TIMELINE_TOPIC } from '../../src/broker/flight-recorder/timeline-entry.js';

test('kcat finds __brook_group_timeline in Metadata and reads the entries of a group, keyed by group id', { timeout: 60_000 }, async (t) => {
  assert.ok(kcatAvailable(), 'kcat is needed (apt-get install kcat)');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  broker.createTopic('orders', 3);
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'timeline-kcat' });
  cleanup.add('close', () => conn.close());

  const subscription = encodeSubscription({ topics: ['orders'], userData: null, ownedPartitions: [], generationId: -1, rackId: null }, 0);
  const joined = await conn.request('JoinGroup', 3, {
    groupId: 'kcat-read', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
    protocols: [{ name: 'roundrobin', metadata: subscription }],
  });
  assert.equal(joined.errorCode, ErrorCode.NONE);
  const assignment = encodeAssignment({ assignedPartitions: [{ topic: 'orders', partitions: [0, 1, 2] }], userData: null }, 0);
  const synced = await conn.request('SyncGroup', 3, { groupId: 'kcat-read', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, assignments: [{ memberId: joined.memberId, assignment }] });
  assert.equal(synced.errorCode, ErrorCode.NONE);

  const listing = await runProcess('kcat', ['-b', broker.bootstrap, '-L', '-t', TIMELINE_TOPIC, '-J'], { timeoutMs: 20_000 });
  assert.equal(listing.code, 0, listing.stderr);
  const metadata = JSON.parse(listing.stdout) as { topics: { topic: string; partitions: unknown[] }[] };
  assert.deepEqual(metadata.topics.map((tp) => [tp.topic, tp.partitions.length]), [[TIMELINE_TOPIC, 1]]);

  let records = await kcatConsume(broker.bootstrap, TIMELINE_TOPIC);
  for (let i = 0; i < 50 && !records.some((r) => r.key === 'kcat-read'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    records = await kcatConsume(broker.bootstrap, TIMELINE_TOPIC);
  }
  const entries = records.filter((r) => r.key === 'kcat-read').map((r) => JSON.parse(r.value!) as Record<string, unknown>);
  assert.equal(entries.length, 1);
  const e = entries[0]!;
  assert.equal(e['group'], 'kcat-read');
  assert.equal(e['kind'], 'rebalance');
  assert.equal(e['generation'], joined.generationId);
  assert.equal(e['leader'], joined.leader);
  assert.equal(e['protocol'], 'roundrobin');
  assert.deepEqual((e['members'] as { memberId: string; clientId: string; assignment: unknown }[]).map((m) => [m.memberId, m.clientId, m.assignment]), [
    [joined.memberId, 'timeline-kcat', { orders: [0, 1, 2] }],
  ]);
  assert.ok(!Number.isNaN(Date.parse(String(e['time']))), 'time is ISO 8601');
});
