/**
 * Reconciliation with the consumer protocol, against a scripted coordinator on a manual
 * clock, in Java's order (AbstractMembershipManager.maybeReconcile / revokeAndAssign):
 * stop fetching what goes → commit consumed offsets (auto-commit on) → onPartitionsRevoked →
 * assign → onPartitionsAssigned → acknowledge with the next heartbeat, sent at once.
 *
 * Kafka's coordinator moves a partition in two steps: the member losing it gets an
 * assignment without it, and the one gaining it gets it only once the loser acknowledged.
 * Topic ids the consumer's metadata does not know yet are waited for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConsumerRecord } from '../../src/index.js';
import { HEARTBEAT_INTERVAL_MS, closeNow, member, pollFor, timeline, type Member } from '../support/consumer-protocol.js';

const TIMEOUT = { timeout: 10_000 };
/** Auto-commit on, but its timer never due within a test: every commit seen is a reconciliation's. */
const AUTO_COMMIT = { enableAutoCommit: true, autoCommitIntervalMs: 600_000, maxPollIntervalMs: 600_000 };

/** Polls (100 ms each) until `n` records came back; the records. */
async function pollRecords(m: Member, n: number): Promise<ConsumerRecord[]> {
  const out: ConsumerRecord[] = [];
  for (let waited = 0; out.length < n; waited += 100) {
    assert.ok(waited < 5_000, `${n} records not polled within 5 s of manual time (got ${out.length})`);
    out.push(...(await pollFor(m, 100)));
  }
  return out;
}

test('a partition moving away, then another arriving (Kafka\'s two steps): commit → onPartitionsRevoked → acknowledge; then onPartitionsAssigned → acknowledge', TIMEOUT, async () => {
  const m = member(AUTO_COMMIT, { t: 4 }, ['t'], 5);
  m.group.defaultTarget = { t: [0, 1] };
  // Joins and reads everything of t-0 and t-1; the next poll() says the application finished with it.
  assert.equal((await pollRecords(m, 10)).length, 10);
  const id = m.group.solo.memberId;
  assert.equal(m.consumer.groupMetadata().generationId, 1);
  const from = m.fake.sent.length;

  // Step 1: t-0 moves to another member; t-2 is still someone else's.
  m.group.assign(id, { t: [1] });
  await pollFor(m, HEARTBEAT_INTERVAL_MS);
  assert.deepEqual(m.consumer.assignment(), [{ topic: 't', partition: 1 }]);
  // Step 2: the other member released t-2.
  m.group.assign(id, { t: [1, 2] });
  await pollFor(m, HEARTBEAT_INTERVAL_MS);
  assert.deepEqual(m.consumer.assignment(), [{ topic: 't', partition: 1 }, { topic: 't', partition: 2 }]);

  assert.deepEqual(timeline(m, from), [
    'heartbeat epoch 1', // answered: epoch 2, assignment [t-1]
    'commit t-0@5 t-1@5 epoch 2', // what the application finished, under the new epoch
    'revoked [t-0]',
    'assigned []', // Java calls it after every reconciliation, with nothing new too
    'heartbeat epoch 2 owns {"t":[1]}', // the acknowledgement, at once
    'heartbeat epoch 2', // the interval later: answered with epoch 3, assignment [t-1 t-2]
    'assigned [t-2]',
    'heartbeat epoch 3 owns {"t":[1,2]}',
  ]);
  const acks = m.fake.requests('ConsumerGroupHeartbeat').filter((h) => h.body.topicPartitions !== null).slice(-2);
  const assigned = m.fake.requests('ConsumerGroupHeartbeat').filter((h) => h.atMs > acks[0]!.atMs);
  assert.equal(assigned[0]!.atMs - acks[0]!.atMs, HEARTBEAT_INTERVAL_MS, 'between the steps, heartbeats keep the coordinator\'s interval');
  assert.deepEqual(m.group.member(id).owned, { t: [1, 2] }, 'the coordinator knows what the member owns');
  await closeNow(m);
});

test('one assignment that takes a partition and gives a free one: commit → onPartitionsRevoked → onPartitionsAssigned → one acknowledgement; the partition going is not fetched while its offsets are committed', TIMEOUT, async () => {
  const m = member(AUTO_COMMIT, { t: 4 }, ['t'], 5);
  m.group.defaultTarget = { t: [0, 1] };
  await pollRecords(m, 10);
  const from = m.fake.sent.length;
  const commit = m.fake.hold('OffsetCommit');
  m.group.assign(m.group.solo.memberId, { t: [1, 2] });
  for (let waited = 0; commit.held.length === 0; waited += 100) {
    assert.ok(waited <= HEARTBEAT_INTERVAL_MS, 'the commit before the revocation began');
    assert.deepEqual(await pollFor(m, 100), []);
  }
  // The revocation began: new records of t-0 are neither fetched nor handed out.
  const fetches = m.fake.requests('Fetch').length;
  m.fake.logEnd.set('t:0', 8);
  for (let i = 0; i < 10; i++) assert.deepEqual(await pollFor(m, 100), [], 'no records while the reconciliation runs');
  const fetched = m.fake.requests('Fetch').slice(fetches).flatMap((f) => f.body.topics.flatMap((t) => t.partitions.map((p) => p.partition)));
  assert.ok(!fetched.includes(0), `t-0 fetched while its revocation's commit was in flight: ${JSON.stringify(fetched)}`);
  commit.open();
  const after = await pollRecords(m, 5);
  assert.deepEqual(timeline(m, from).filter((l) => !/^heartbeat epoch \d+$/.test(l)), [
    'commit t-0@5 t-1@5 epoch 2',
    'revoked [t-0]',
    'assigned [t-2]',
    'heartbeat epoch 2 owns {"t":[1,2]}',
  ]);
  assert.deepEqual(after.map((r) => `${r.partition}:${r.offset}`), ['2:0', '2:1', '2:2', '2:3', '2:4'], 't-2 from its start (no committed offset); nothing of t-0');
  await closeNow(m);
});

test('an assigned topic the consumer\'s metadata does not know yet: the known part is acknowledged, the rest reconciled once metadata names it', TIMEOUT, async () => {
  const m = member({ maxPollIntervalMs: 600_000 }, { t: 2 }, ['t', 'u']);
  await pollFor(m, 10);
  const id = m.group.solo.memberId;
  assert.deepEqual(m.group.member(id).owned, { t: [0, 1] });
  const from = m.fake.sent.length;
  // u is created after the consumer last read metadata; the coordinator assigns it at once.
  m.fake.topics.set('u', 1);
  m.group.assign(id, { t: [0, 1], u: [0] });
  await pollFor(m, HEARTBEAT_INTERVAL_MS + 500);
  assert.deepEqual(m.consumer.assignment().map((tp) => `${tp.topic}-${tp.partition}`), ['t-0', 't-1', 'u-0']);
  const sent = m.fake.sent.slice(from).map((r) => r.api).filter((api) => api === 'ConsumerGroupHeartbeat' || api === 'Metadata');
  assert.deepEqual(sent, ['ConsumerGroupHeartbeat', 'Metadata', 'ConsumerGroupHeartbeat', 'ConsumerGroupHeartbeat'], 'the target, metadata asked for at once, the partial acknowledgement, the full one');
  assert.deepEqual(timeline(m, from), [
    'heartbeat epoch 1', // brings t-0 t-1 u-0 (u unknown here)
    'heartbeat epoch 2 owns {"t":[0,1]}', // what could be resolved, under the new target's local epoch
    'assigned [u-0]',
    'heartbeat epoch 2 owns {"t":[0,1],"u":[0]}',
  ]);
  await closeNow(m);
});
