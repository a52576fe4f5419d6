/**
 * Commits with the consumer protocol (Java's CommitRequestManager), against a scripted
 * coordinator on a manual clock:
 *
 * - OffsetCommit v9-v10 carries the member id and the member epoch (generationIdOrMemberEpoch),
 *   OffsetFetch v9-v10 (requireStable) both too, while the consumer is a member; v10 names
 *   topics by id, v9 (an older broker) by name;
 * - STALE_MEMBER_EPOCH: commitSync fails with CommitFailedError after one attempt; the commit
 *   before a revocation, and OffsetFetch, are retried once the next heartbeat brought the
 *   coordinator's epoch;
 * - what is committed is still only what the application finished with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../src/protocol/errors.js';
import { HEARTBEAT_INTERVAL_MS, closeNow, joined, member, pollFor, timeline } from '../support/consumer-protocol.js';
import type { Request, Response } from '../support/fake-kafka.js';

const TIMEOUT = { timeout: 10_000 };

function commitAnswer(errorCode: number): (request: Request<'OffsetCommit'>) => Response<'OffsetCommit'> {
  return (request) => ({
    topics: request.topics.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
  });
}

test('OffsetCommit and OffsetFetch (v10: topics by id, as Java\'s consumer-protocol consumer) carry the member id and epoch; auto-commit commits what the application finished with, under the current epoch', TIMEOUT, async () => {
  const m = await joined({ enableAutoCommit: true, autoCommitIntervalMs: 1_000, maxPollIntervalMs: 600_000 }, { t: 1 }, 3);
  const memberId = m.consumer.groupMetadata().memberId;
  const [fetch] = m.fake.requests('OffsetFetch');
  assert.deepEqual([fetch!.version, fetch!.body.groups![0]!.memberId, fetch!.body.groups![0]!.memberEpoch, fetch!.body.requireStable], [10, memberId, 1, true]);
  const topicId = fetch!.body.groups![0]!.topics![0]!.topicId;
  assert.equal(m.fake.topicNameOf(topicId), 't', 'the topic named by its id');
  // The joining poll returned v0-v2; they count as finished at the next poll.
  await m.scheduler.advance(1_000);
  await pollFor(m, 10);
  await m.scheduler.advance(1_000);
  const commits = m.fake.requests('OffsetCommit');
  assert.deepEqual(commits.map((c) => [c.version, c.body.memberId, c.body.generationIdOrMemberEpoch, c.body.groupInstanceId, c.body.topics[0]!.topicId]), [[10, memberId, 1, null, topicId], [10, memberId, 1, null, topicId]]);
  assert.deepEqual(commits.map((c) => c.body.topics[0]!.partitions[0]!.committedOffset), [0n, 3n], 'the start while v0-v2 were in hand, then after them');
  await closeNow(m);
});

test('against a broker whose OffsetCommit and OffsetFetch stop at v9, topics go by name', TIMEOUT, async () => {
  const m = member({ maxPollIntervalMs: 600_000 }, { t: 1 }, ['t'], 3);
  m.fake.setVersion('OffsetCommit', 9);
  m.fake.setVersion('OffsetFetch', 9);
  await pollFor(m, 10);
  const [fetch] = m.fake.requests('OffsetFetch');
  assert.deepEqual([fetch!.version, fetch!.body.groups![0]!.topics![0]!.name], [9, 't']);
  await m.consumer.commitSync([{ topic: 't', partition: 0, offset: 2n }]);
  const [commit] = m.fake.requests('OffsetCommit');
  assert.deepEqual([commit!.version, commit!.body.topics[0]!.name, commit!.body.topics[0]!.partitions[0]!.committedOffset], [9, 't', 2n]);
  await closeNow(m);
});

test('STALE_MEMBER_EPOCH on commitSync: CommitFailedError after one attempt, as Java\'s commitSync', TIMEOUT, async () => {
  const m = await joined({ maxPollIntervalMs: 600_000 });
  m.fake.once('OffsetCommit', commitAnswer(ErrorCode.STALE_MEMBER_EPOCH));
  await assert.rejects(m.consumer.commitSync([{ topic: 't', partition: 0, offset: 1n }]), (err: Error & { code?: string; cause?: { errorCode?: number } }) =>
    err.code === 'ERR_COMMIT_FAILED' && err.cause?.errorCode === ErrorCode.STALE_MEMBER_EPOCH);
  assert.equal(m.fake.requests('OffsetCommit').length, 1, 'not retried');
  assert.equal(m.consumer.groupMetadata().generationId, 1, 'the membership is the heartbeat\'s business: unchanged');
  await closeNow(m);
});

test('STALE_MEMBER_EPOCH on the commit before a revocation: retried once the next heartbeat brought the new epoch, then the revocation goes on', TIMEOUT, async () => {
  const m = member({ enableAutoCommit: true, autoCommitIntervalMs: 600_000, maxPollIntervalMs: 600_000 }, { t: 2 }, ['t'], 2);
  for (let i = 0; i < 3; i++) await pollFor(m, 100); // joins, reads t-0 and t-1, finishes them
  const id = m.group.solo.memberId;
  const from = m.fake.sent.length;
  m.group.assign(id, { t: [1] });
  m.fake.once('OffsetCommit', (request) => {
    // The coordinator moved the member's epoch on meanwhile; the next heartbeat answers with it.
    m.group.member(id).sentEpoch = -1;
    return commitAnswer(ErrorCode.STALE_MEMBER_EPOCH)(request);
  });
  for (let i = 0; i < 2 * HEARTBEAT_INTERVAL_MS / 100 + 5; i++) await pollFor(m, 100);
  assert.deepEqual(timeline(m, from), [
    'heartbeat epoch 1', // answered: epoch 2, assignment [t-1]
    'commit t-0@2 t-1@2 epoch 2', // answered STALE_MEMBER_EPOCH
    'heartbeat epoch 2', // the interval later: epoch 3
    'commit t-0@2 t-1@2 epoch 3',
    'revoked [t-0]',
    'assigned []',
    'heartbeat epoch 3 owns {"t":[1]}',
  ]);
  const commits = m.fake.requests('OffsetCommit');
  const nextHeartbeat = m.fake.requests('ConsumerGroupHeartbeat').find((h) => h.atMs > commits[0]!.atMs)!;
  assert.equal(commits[1]!.atMs, nextHeartbeat.atMs, 'retried as the heartbeat\'s answer arrived');
  await closeNow(m);
});

test('STALE_MEMBER_EPOCH on OffsetFetch: retried with the epoch the next heartbeat brings, as Java', TIMEOUT, async () => {
  const m = await joined({ maxPollIntervalMs: 600_000 });
  const before = m.fake.requests('OffsetFetch').length;
  m.fake.once('OffsetFetch', (request) => {
    m.group.solo.sentEpoch = -1; // the coordinator's epoch moved on; the next heartbeat brings it
    return { groups: (request.groups ?? []).map((g) => ({ groupId: g.groupId, errorCode: ErrorCode.STALE_MEMBER_EPOCH, topics: [] })) };
  });
  const committed = m.consumer.committed([{ topic: 't', partition: 0 }]);
  await m.scheduler.advance(HEARTBEAT_INTERVAL_MS);
  assert.deepEqual([...(await committed)], [['t:0', null]]);
  const fetches = m.fake.requests('OffsetFetch').slice(before);
  assert.deepEqual(fetches.map((f) => [f.atMs, f.body.groups![0]!.memberEpoch]), [[10, 1], [HEARTBEAT_INTERVAL_MS, 2]], 'retried as the next heartbeat\'s answer arrived, with its epoch');
  await closeNow(m);
});
