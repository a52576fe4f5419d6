/**
 * How the consumer answers the three "your membership is stale" errors — UNKNOWN_MEMBER_ID,
 * ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS — on each of Heartbeat, SyncGroup and
 * OffsetCommit, against a scripted one-member group, with Kafka's Java consumer as the
 * expectation (AbstractCoordinator's HeartbeatResponseHandler and SyncGroupResponseHandler,
 * ConsumerCoordinator's OffsetCommitResponseHandler and onJoinPrepare):
 *
 * - REBALANCE_IN_PROGRESS: rejoin, keeping member id and generation. Owned partitions are
 *   revoked (eager), not lost. OffsetCommit fails with RebalanceInProgressException.
 * - UNKNOWN_MEMBER_ID: forget member id and generation; the partitions are lost; rejoin as a
 *   new member. OffsetCommit fails with CommitFailedException.
 * - ILLEGAL_GENERATION: as UNKNOWN_MEMBER_ID, except that the member id is kept ("since the
 *   member ID is still valid"): the rejoin carries it, with generation -1.
 * - A SyncGroup that fails with any of the three is followed by a JoinGroup at once (no
 *   retry.backoff.ms) and surfaces nothing from poll().
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Consumer, type ConsumerOptions } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeSubscription } from '../../src/protocol/consumer-protocol.js';
import type { TopicPartition } from '../../src/assignors/types.js';
import { FakeKafka, soloGroup, type Request, type Response, type SentRequest, type SoloGroup } from '../support/fake-kafka.js';
import { testRangeAssignor } from '../support/range-assignor.js';

const HEARTBEAT_INTERVAL_MS = 3_000;
const ALL = '[t-0 t-1 t-2 t-3]';
const TIMEOUT = { timeout: 10_000 };

interface Group {
  readonly scheduler: ManualScheduler;
  readonly fake: FakeKafka;
  readonly group: SoloGroup;
  readonly consumer: Consumer;
  /** Rebalance listener calls, e.g. 'revoked [t-0 t-1]'. */
  readonly listener: string[];
}

function partitions(tps: readonly TopicPartition[]): string {
  return `[${tps.map((tp) => `${tp.topic}-${tp.partition}`).join(' ')}]`;
}

/** A consumer subscribed to t (4 partitions) in a group where it is alone, not joined yet. */
function subscribed(options: Partial<ConsumerOptions> = {}): Group {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 4);
  const group = soloGroup(fake);
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', groupId: 'g', assignors: [testRangeAssignor()], scheduler, connectionFactory: fake.connectionFactory,
    // No auto-commit: the only commits are the ones a test makes.
    enableAutoCommit: false, heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS, sessionTimeoutMs: 45_000, retryBackoffMs: 100, ...options,
  });
  const listener: string[] = [];
  consumer.subscribe(['t'], {
    onPartitionsAssigned: (tps) => { listener.push(`assigned ${partitions(tps)}`); },
    onPartitionsRevoked: (tps) => { listener.push(`revoked ${partitions(tps)}`); },
    onPartitionsLost: (tps) => { listener.push(`lost ${partitions(tps)}`); },
  });
  return { scheduler, fake, group, consumer, listener };
}

/** As `subscribed`, then joined: member m-1 of generation 1, owning every partition. */
async function joined(options: Partial<ConsumerOptions> = {}): Promise<Group> {
  const g = subscribed(options);
  await pollFor(g, 10);
  assert.equal(g.consumer.groupMetadata().memberId, 'm-1');
  assert.equal(g.consumer.groupMetadata().generationId, 1);
  assert.deepEqual(g.listener.splice(0), [`assigned ${ALL}`]);
  return g;
}

async function pollFor(g: Group, ms: number): Promise<void> {
  const p = g.consumer.poll({ timeoutMs: ms });
  await g.scheduler.advance(ms);
  await p;
}

/** What a JoinGroup carried: its member id and the generation in its subscription. */
function joinIdentity(join: SentRequest<'JoinGroup'>): [memberId: string, subscriptionGeneration: number | undefined] {
  return [join.body.memberId, decodeSubscription(join.body.protocols[0]!.metadata).subscription.generationId];
}

/** The JoinGroups sent from request index `from` on. */
function joinsFrom(g: Group, from: number): [string, number | undefined][] {
  return g.fake.requests('JoinGroup').slice(from).map(joinIdentity);
}

/**
 * Stable again: every partition assigned, the identity of the last join and the group's
 * latest generation, and heartbeats go out with that identity.
 */
async function assertStable(g: Group): Promise<void> {
  assert.deepEqual(partitions(g.consumer.assignment()), ALL);
  const { memberId, generationId } = g.consumer.groupMetadata();
  assert.equal(memberId, g.fake.requests('JoinGroup').at(-1)!.body.memberId);
  assert.equal(generationId, g.group.generation);
  const heartbeats = g.fake.requests('Heartbeat').length;
  await g.scheduler.advance(HEARTBEAT_INTERVAL_MS);
  const next = g.fake.requests('Heartbeat').slice(heartbeats);
  assert.deepEqual(next.map((h) => [h.body.memberId, h.body.generationId]), [[memberId, generationId]], 'heartbeats as the new generation');
}

async function closeNow(g: Group): Promise<void> {
  const closing = g.consumer.close();
  await g.scheduler.advance(0);
  await closing;
}

/** The next heartbeat is answered with `errorCode`; returns once it has been. */
async function nextHeartbeatFails(g: Group, errorCode: number): Promise<void> {
  const before = g.fake.requests('Heartbeat').length;
  g.fake.once('Heartbeat', () => ({ errorCode }));
  await g.scheduler.advance(HEARTBEAT_INTERVAL_MS);
  assert.equal(g.fake.requests('Heartbeat').length, before + 1);
}

function syncError(errorCode: number): Response<'SyncGroup'> {
  return { errorCode, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
}

function commitError(errorCode: number): (request: Request<'OffsetCommit'>) => Response<'OffsetCommit'> {
  return (request) => ({
    topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
  });
}

/** commitSync of offset 5 on t-0, answered with `errorCode`: the error it throws. */
async function commitFails(g: Group, errorCode: number): Promise<Error & { code?: string; errorCode?: number }> {
  const commits = g.fake.requests('OffsetCommit').length;
  g.fake.once('OffsetCommit', commitError(errorCode));
  const error = await g.consumer.commitSync([{ topic: 't', partition: 0, offset: 5n }]).then(
    () => assert.fail('commitSync succeeded'),
    (err: unknown) => err as Error & { code?: string; errorCode?: number },
  );
  const sent = g.fake.requests('OffsetCommit').slice(commits);
  assert.deepEqual(sent.map((c) => [c.body.memberId, c.body.generationIdOrMemberEpoch]), [['m-1', 1]], 'one attempt, as member m-1 of generation 1: not retried');
  return error;
}

// ---- Heartbeat ------------------------------------------------------------------------

test('Heartbeat REBALANCE_IN_PROGRESS: the next poll rejoins with the same member id and generation; the partitions are revoked, then assigned again', TIMEOUT, async () => {
  const g = await joined();
  const joins = g.fake.requests('JoinGroup').length;
  await nextHeartbeatFails(g, ErrorCode.REBALANCE_IN_PROGRESS);
  await pollFor(g, 10);
  assert.deepEqual(joinsFrom(g, joins), [['m-1', 1]]);
  assert.deepEqual(g.listener, [`revoked ${ALL}`, `assigned ${ALL}`]);
  await assertStable(g);
  await closeNow(g);
});

test('Heartbeat UNKNOWN_MEMBER_ID: member id and generation are forgotten, the partitions lost, and the next poll joins as a new member', TIMEOUT, async () => {
  const g = await joined();
  const joins = g.fake.requests('JoinGroup').length;
  await nextHeartbeatFails(g, ErrorCode.UNKNOWN_MEMBER_ID);
  await pollFor(g, 10);
  assert.deepEqual(joinsFrom(g, joins), [['', -1], ['m-2', -1]], 'no member id, then the one MEMBER_ID_REQUIRED gave');
  assert.deepEqual(g.listener, [`lost ${ALL}`, `assigned ${ALL}`]);
  await assertStable(g);
  await closeNow(g);
});

test('Heartbeat ILLEGAL_GENERATION: the generation is forgotten, the partitions lost, and the next poll rejoins with generation -1', TIMEOUT, async () => {
  const g = await joined();
  const joins = g.fake.requests('JoinGroup').length;
  await nextHeartbeatFails(g, ErrorCode.ILLEGAL_GENERATION);
  await pollFor(g, 10);
  const rejoins = joinsFrom(g, joins);
  assert.ok(rejoins.length > 0 && rejoins.every(([, generation]) => generation === -1), `rejoined without a generation: ${JSON.stringify(rejoins)}`);
  assert.deepEqual(g.listener, [`lost ${ALL}`, `assigned ${ALL}`]);
  assert.deepEqual(rejoins, [['m-1', -1]], 'the rejoin keeps member id m-1');
  await assertStable(g);
  await closeNow(g);
});

// ---- SyncGroup --------------------------------------------------------------------------
// As Kafka's own tests (testRebalanceInProgressOnSyncGroup and its neighbours): the first
// join's SyncGroup fails.

/** Polls a member whose first SyncGroup fails with `errorCode`, until it is stable; returns the JoinGroups after the failure. */
async function firstSyncFails(g: Group, errorCode: number): Promise<[string, number | undefined][]> {
  g.fake.once('SyncGroup', () => syncError(errorCode));
  await pollFor(g, 1_000); // throws if the error surfaced from poll()
  const joins = g.fake.requests('JoinGroup');
  const failedSync = g.fake.requests('SyncGroup')[0]!;
  assert.deepEqual(joins.slice(0, 2).map(joinIdentity), [['', -1], ['m-1', -1]], 'the first join: MEMBER_ID_REQUIRED, then generation 1');
  assert.equal(failedSync.body.generationId, 1);
  const rejoin = joins[2];
  assert.ok(rejoin, 'rejoined');
  assert.equal(rejoin.atMs, failedSync.atMs, 'rejoined at once, without retry.backoff.ms');
  return joins.slice(2).map(joinIdentity);
}

test('SyncGroup REBALANCE_IN_PROGRESS: rejoins at once with the same member id and generation; poll() sees no error', TIMEOUT, async () => {
  const g = subscribed();
  const rejoins = await firstSyncFails(g, ErrorCode.REBALANCE_IN_PROGRESS);
  assert.deepEqual(rejoins, [['m-1', 1]]);
  assert.deepEqual(g.listener, [`assigned ${ALL}`]);
  await assertStable(g);
  await closeNow(g);
});

test('SyncGroup UNKNOWN_MEMBER_ID: forgets member id and generation and rejoins at once as a new member; poll() sees no error', TIMEOUT, async () => {
  const g = subscribed();
  const rejoins = await firstSyncFails(g, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.deepEqual(rejoins, [['', -1], ['m-2', -1]]);
  assert.deepEqual(g.listener, [`assigned ${ALL}`], 'nothing was owned, so nothing is lost');
  await assertStable(g);
  await closeNow(g);
});

test('SyncGroup ILLEGAL_GENERATION: forgets the generation and rejoins at once with generation -1; poll() sees no error', TIMEOUT, async () => {
  const g = subscribed();
  const rejoins = await firstSyncFails(g, ErrorCode.ILLEGAL_GENERATION);
  assert.ok(rejoins.every(([, generation]) => generation === -1), `rejoined without a generation: ${JSON.stringify(rejoins)}`);
  assert.deepEqual(g.listener, [`assigned ${ALL}`], 'nothing was owned, so nothing is lost');
  assert.deepEqual(rejoins, [['m-1', -1]], 'the rejoin keeps member id m-1');
  await assertStable(g);
  await closeNow(g);
});

// ---- OffsetCommit -----------------------------------------------------------------------

test('OffsetCommit REBALANCE_IN_PROGRESS: commitSync fails without retrying; the next poll rejoins with the same member id and generation, revoking then assigning', TIMEOUT, async () => {
  const g = await joined();
  const joins = g.fake.requests('JoinGroup').length;
  const error = await commitFails(g, ErrorCode.REBALANCE_IN_PROGRESS);
  // Java's RebalanceInProgressException ("poll, then commit again"), not CommitFailedError (the partitions are gone).
  assert.equal(error.code, 'ERR_REBALANCE_IN_PROGRESS');
  assert.equal((error.cause as { errorCode?: number } | undefined)?.errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
  assert.equal(g.consumer.groupMetadata().memberId, 'm-1', 'the membership is kept');
  await pollFor(g, 10);
  assert.deepEqual(joinsFrom(g, joins), [['m-1', 1]]);
  assert.deepEqual(g.listener, [`revoked ${ALL}`, `assigned ${ALL}`]);
  await assertStable(g);
  await closeNow(g);
});

test('OffsetCommit UNKNOWN_MEMBER_ID: commitSync throws CommitFailedError; member id and generation are forgotten, the partitions lost, and the next poll joins as a new member', TIMEOUT, async () => {
  const g = await joined();
  const joins = g.fake.requests('JoinGroup').length;
  const error = await commitFails(g, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(error.code, 'ERR_COMMIT_FAILED');
  await pollFor(g, 10);
  assert.deepEqual(joinsFrom(g, joins), [['', -1], ['m-2', -1]]);
  assert.deepEqual(g.listener, [`lost ${ALL}`, `assigned ${ALL}`]);
  await assertStable(g);
  await closeNow(g);
});

test('OffsetCommit ILLEGAL_GENERATION: commitSync throws CommitFailedError; the generation is forgotten, the partitions lost, and the next poll rejoins with generation -1', TIMEOUT, async () => {
  const g = await joined();
  const joins = g.fake.requests('JoinGroup').length;
  const error = await commitFails(g, ErrorCode.ILLEGAL_GENERATION);
  assert.equal(error.code, 'ERR_COMMIT_FAILED');
  await pollFor(g, 10);
  const rejoins = joinsFrom(g, joins);
  assert.ok(rejoins.length > 0 && rejoins.every(([, generation]) => generation === -1), `rejoined without a generation: ${JSON.stringify(rejoins)}`);
  assert.deepEqual(g.listener, [`lost ${ALL}`, `assigned ${ALL}`]);
  assert.deepEqual(rejoins, [['m-1', -1]], 'the rejoin keeps member id m-1');
  await assertStable(g);
  await closeNow(g);
});

// Beyond the first join: with the cooperative protocol a member keeps its partitions through a
// rebalance, so a SyncGroup error that forgets the membership has partitions to lose. Java's
// resetStateAndRejoin sets needsJoinPrepare, so onJoinPrepare runs again before the rejoin
// and, the generation being reset, calls onPartitionsLost and clears the assignment.
test('SyncGroup UNKNOWN_MEMBER_ID in a cooperative rebalance: the partitions still owned are lost before the rejoin as a new member', TIMEOUT, async () => {
  const g = await joined({ assignors: ['cooperative-sticky'] });
  const joins = g.fake.requests('JoinGroup').length;
  await nextHeartbeatFails(g, ErrorCode.REBALANCE_IN_PROGRESS);
  g.fake.once('SyncGroup', () => syncError(ErrorCode.UNKNOWN_MEMBER_ID));
  await pollFor(g, 1_000);
  const rejoins = g.fake.requests('JoinGroup').slice(joins);
  assert.deepEqual(rejoins.map(joinIdentity), [['m-1', 1], ['', -1], ['m-2', -1]], 'cooperative: rejoined as m-1, then as a new member after the SyncGroup error');
  assert.deepEqual(g.listener, [`lost ${ALL}`, `assigned ${ALL}`], 'onPartitionsLost for every partition, then all assigned anew');
  const owned = rejoins.slice(1).map((j) => decodeSubscription(j.body.protocols[0]!.metadata).subscription.ownedPartitions ?? []);
  assert.deepEqual(owned, [[], []], 'the rejoins offer no partitions as owned');
  await assertStable(g);
  await closeNow(g);
});
