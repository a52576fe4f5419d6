/**
 * The group coordinator with librdkafka: `kcat -G` (the balanced consumer: FindCoordinator,
 * JoinGroup, SyncGroup, Heartbeat, OffsetFetch, OffsetCommit, LeaveGroup) reads a topic as a
 * group member and commits; a second run of the same group starts at the committed offsets.
 *
 * Needs: kcat (librdkafka; `apt-get install kcat`). Required, as in the rest of the interop suite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kafkaJs, createTopicWithKafkaJs } from '../support/clients/kafkajs.js';
import { kcatAvailable, kcatProduce } from '../support/clients/kcat.js';
import { runProcess } from '../support/clients/run.js';

const NEED_KCAT = 'kcat is required (apt-get install kcat)';

async function kcatGroupConsume(bootstrap: string, group: string, topic: string): Promise<{ partition: number; offset: number; payload: string }[]> {
  const result = await runProcess('kcat', [
    '-b', bootstrap, '-G', group, topic, '-e', '-J', '-q',
    '-X', 'auto.offset.reset=earliest', '-X', 'session.timeout.ms=6000', '-X', 'heartbeat.interval.ms=500',
  ], { timeoutMs: 30_000 });
  if (result.code !== 0) throw new Error(`kcat -G exited ${result.code}${result.timedOut ? ' (timed out)' : ''}: ${result.stderr.slice(-2000)}`);
  return result.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { partition: number; offset: number; payload: string });
}

test('kcat -G: librdkafka\'s balanced consumer reads every record as a group member and commits; the next run resumes there', { timeout: 90_000 }, async (t) => {
  assert.ok(kcatAvailable(), NEED_KCAT);
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const topic = 'kcat-group';
  const group = 'kcat-group-1';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 3);
  await kcatProduce(broker.bootstrap, topic, Array.from({ length: 300 }, (_, i) => `k${i}:v${i}`));

  const first = await kcatGroupConsume(broker.bootstrap, group, topic);
  assert.equal(first.length, 300, 'every record once');
  assert.equal(new Set(first.map((r) => r.payload)).size, 300);

  const admin = kafkaJs(broker.bootstrap).admin();
  await admin.connect();
  cleanup.add('admin disconnect', () => admin.disconnect());
  const [fetched] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  const committed = fetched!.partitions.sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
  const produced = [0, 1, 2].map((p) => first.filter((r) => r.partition === p).length);
  assert.deepEqual(committed, produced, 'committed offsets are the partitions\' ends');

  await kcatProduce(broker.bootstrap, topic, Array.from({ length: 30 }, (_, i) => `n${i}:new${i}`));
  const second = await kcatGroupConsume(broker.bootstrap, group, topic);
  assert.deepEqual(second.map((r) => r.payload).sort(), Array.from({ length: 30 }, (_, i) => `new${i}`).sort(), 'only the new records');
  const { groups } = await admin.describeGroups([group]);
  assert.equal(groups[0]!.state, 'Empty', 'kcat left the group');
});
