/**
 * Time limits of the client calls that talk to the cluster, on a manual clock against a
 * scripted broker whose answer to one API never comes (`fake.hold(api)`, never released):
 *
 * - the consumer's commitSync, committed, position, partitionsFor and listTopics end with
 *   TimeoutError (ERR_TIMEOUT) at exactly default.api.timeout.ms (60 s) of manual time, not
 *   a millisecond earlier; a per-call `timeoutMs` replaces it; the caller's signal ends the
 *   call at once with ConsumerAbortedError;
 * - commitAsync gives up after request.timeout.ms and the auto-commit task carries on,
 *   counting its next interval from that failure;
 * - close({ timeoutMs }) never takes longer than its limit (30 s by default), whatever it
 *   waits on (commit, revocation listener, LeaveGroup), and takes no time when the broker
 *   answers at once;
 * - every Admin call, Admin.connect included, ends at default.api.timeout.ms or its own
 *   `timeoutMs`, retrying retriable coordinator errors until then;
 * - a consumer retrying a dead broker for a long time leaves no abort listeners behind on
 *   the client's signal (Node's MaxListenersExceededWarning), over real TCP.
 */
import { freePorts } from '../support/kafka/kafka-jvm.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import {
  Admin, Consumer, ConsumerAbortedError, TimeoutError,
  type CallOptions, type ConsumerOptions, type ConsumerRecord, type Logger, type OffsetToCommit,
} from '../../src/index.js';
import { KafkaConnection } from '../../src/client/connection.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ApiName } from '../../src/protocol/messages/index.js';
import { FakeKafka, soloGroup } from '../support/fake-kafka.js';
import { testRangeAssignor } from '../support/range-assignor.js';

const TIMEOUT = { timeout: 20_000 };
/** Kafka's default.api.timeout.ms, the consumer's and the admin client's default. */
const DEFAULT_API_TIMEOUT_MS = 60_000;
const T0: readonly OffsetToCommit[] = [{ topic: 't', partition: 0, offset: 1n }];

/** A promise's outcome, observed without handling it for the test. */
interface Watched<T> {
  readonly settled: boolean;
  readonly value: T | undefined;
  readonly error: unknown;
}

function watch<T>(promise: Promise<T>): Watched<T> {
  const w = { settled: false, value: undefined as T | undefined, error: undefined as unknown };
  promise.then((v) => { w.settled = true; w.value = v; }, (e: unknown) => { w.settled = true; w.error = e; });
  return w;
}

function assertTimeoutError(err: unknown, what: string): void {
  assert.ok(err instanceof TimeoutError, `${what}: expected TimeoutError, got ${String(err)}`);
  assert.equal(err.code, 'ERR_TIMEOUT');
}

/**
 * `call` (started at the current manual time) is still pending `ms` - 1 ms later and has
 * failed with TimeoutError at `ms`.
 */
async function timesOutAt(scheduler: ManualScheduler, call: Promise<unknown>, ms: number, what: string): Promise<void> {
  const w = watch(call);
  await scheduler.advance(ms - 1);
  assert.equal(w.settled, false, `${what} ended ${ms - 1} ms after the call, before its limit (${String(w.error ?? w.value)})`);
  await scheduler.advance(1);
  assert.equal(w.settled, true, `${what} still pending at its limit (${ms} ms)`);
  assertTimeoutError(w.error, what);
}

/** Closes, moving the clock until close() is done (it is bounded by 30 s). */
async function closeConsumer(scheduler: ManualScheduler, consumer: Consumer): Promise<void> {
  const closed = watch(consumer.close());
  for (let waited = 0; !closed.settled; waited += 1_000) {
    assert.ok(waited <= 30_000, 'close() did not end within 30 s of manual time');
    await scheduler.advance(waited === 0 ? 0 : 1_000);
  }
}

interface Setup {
  readonly scheduler: ManualScheduler;
  readonly fake: FakeKafka;
  readonly consumer: Consumer;
}

/** A consumer on a scripted broker that has topic t (one partition, `records` records); nothing sent yet. */
function consumerOn(options: Partial<ConsumerOptions> = {}, records = 0, scheduler = new ManualScheduler(0)): Setup {
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 1);
  fake.logEnd.set('t:0', records);
  soloGroup(fake);
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', assignors: [testRangeAssignor()], scheduler, connectionFactory: fake.connectionFactory,
    enableAutoCommit: false, autoOffsetReset: 'earliest', ...options,
  });
  return { scheduler, fake, consumer };
}

/** Polls (10 ms of manual time each) until `done()`. */
async function pollUntil(s: Setup, done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    assert.ok(waited < 10_000, `${what}: not within 10 s of manual time`);
    const p = s.consumer.poll({ timeoutMs: 10 });
    await s.scheduler.advance(10);
    await p;
  }
}

/** Polls (10 ms of manual time each) until `n` records came back; returns them. */
async function pollRecords(s: Setup, n: number): Promise<ConsumerRecord[]> {
  const polled: ConsumerRecord[] = [];
  for (let waited = 0; polled.length < n; waited += 10) {
    assert.ok(waited < 10_000, `${n} records not polled within 10 s of manual time`);
    const p = s.consumer.poll({ timeoutMs: 10 });
    await s.scheduler.advance(10);
    polled.push(...await p);
  }
  return polled;
}

/** Member of group g, owning t-0. */
async function joined(options: Partial<ConsumerOptions> = {}, records = 0): Promise<Setup> {
  const s = consumerOn({ groupId: 'g', ...options }, records);
  s.consumer.subscribe(['t']);
  await pollUntil(s, () => s.consumer.assignment().length === 1, 'join');
  return s;
}

// ---- the consumer's calls ---------------------------------------------------------------

interface ConsumerCall {
  /** How the test names it. */
  readonly name: string;
  /** The request that is never answered. */
  readonly unanswered: ApiName;
  /** The consumer, ready for the call (the unanswered API not held yet). */
  readonly setup: () => Promise<Setup>;
  readonly call: (consumer: Consumer, options: CallOptions) => Promise<unknown>;
}

const CONSUMER_CALLS: readonly ConsumerCall[] = [
  {
    name: 'commitSync', unanswered: 'OffsetCommit',
    setup: () => joined(),
    call: (c, o) => c.commitSync(T0, o),
  },
  {
    name: 'committed', unanswered: 'OffsetFetch',
    setup: async () => consumerOn({ groupId: 'g' }),
    call: (c, o) => c.committed([{ topic: 't', partition: 0 }], o),
  },
  {
    // A group consumer looks the committed offset up first.
    name: 'position (OffsetFetch)', unanswered: 'OffsetFetch',
    setup: async () => {
      const s = consumerOn({ groupId: 'g' });
      s.consumer.assign([{ topic: 't', partition: 0 }]);
      return s;
    },
    call: (c, o) => c.position({ topic: 't', partition: 0 }, o),
  },
  {
    // Without a group the position comes from the log (auto.offset.reset).
    name: 'position (ListOffsets)', unanswered: 'ListOffsets',
    setup: async () => {
      const s = consumerOn();
      s.consumer.assign([{ topic: 't', partition: 0 }]);
      return s;
    },
    call: (c, o) => c.position({ topic: 't', partition: 0 }, o),
  },
  {
    name: 'partitionsFor', unanswered: 'Metadata',
    setup: async () => consumerOn(),
    call: (c, o) => c.partitionsFor('t', o),
  },
  {
    name: 'listTopics', unanswered: 'Metadata',
    setup: async () => consumerOn(),
    call: (c, o) => c.listTopics(o),
  },
];

for (const c of CONSUMER_CALLS) {
  test(`${c.name}: when ${c.unanswered} is never answered it fails with TimeoutError at exactly default.api.timeout.ms (60 s), not before`, TIMEOUT, async () => {
    const s = await c.setup();
    s.fake.hold(c.unanswered);
    const before = s.fake.requests(c.unanswered).length;
    const call = c.call(s.consumer, {});
    await timesOutAt(s.scheduler, call, DEFAULT_API_TIMEOUT_MS, c.name);
    // The limit ended a call that was waiting on the broker, not one that never got going.
    assert.ok(s.fake.requests(c.unanswered).length > before, `${c.unanswered} was sent`);
    await closeConsumer(s.scheduler, s.consumer);
  });

  test(`${c.name}: a per-call timeoutMs replaces default.api.timeout.ms`, TIMEOUT, async () => {
    const s = await c.setup();
    s.fake.hold(c.unanswered);
    await timesOutAt(s.scheduler, c.call(s.consumer, { timeoutMs: 1_500 }), 1_500, c.name);
    await closeConsumer(s.scheduler, s.consumer);
  });

  test(`${c.name}: aborting the caller's signal ends it at once with ConsumerAbortedError`, TIMEOUT, async () => {
    const s = await c.setup();
    s.fake.hold(c.unanswered);
    const stop = new AbortController();
    const call = watch(c.call(s.consumer, { signal: stop.signal }));
    await s.scheduler.advance(1_000);
    assert.equal(call.settled, false, 'pending while the broker does not answer');
    const abortedAt = s.scheduler.nowMs();
    stop.abort(new Error('the caller gave up'));
    await s.scheduler.advance(0);
    assert.equal(call.settled, true, 'ended without any time passing');
    assert.equal(s.scheduler.nowMs(), abortedAt);
    assert.ok(call.error instanceof ConsumerAbortedError, `expected ConsumerAbortedError, got ${String(call.error)}`);
    assert.equal(call.error.code, 'ERR_ABORTED');
    await closeConsumer(s.scheduler, s.consumer);
  });
}

test('commitSync: the consumer\'s defaultApiTimeoutMs option sets the limit of calls without their own', TIMEOUT, async () => {
  const s = await joined({ defaultApiTimeoutMs: 7_000 });
  s.fake.hold('OffsetCommit');
  await timesOutAt(s.scheduler, s.consumer.commitSync(T0), 7_000, 'commitSync');
  await closeConsumer(s.scheduler, s.consumer);
});

test('commitSync keeps retrying a coordinator that is loading until its time limit, then fails with TimeoutError', TIMEOUT, async () => {
  const s = await joined({ retryBackoffMs: 100 });
  s.fake.on('OffsetCommit', (request) => ({
    topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS })) })),
  }));
  const start = s.scheduler.nowMs();
  await timesOutAt(s.scheduler, s.consumer.commitSync(T0, { timeoutMs: 1_000 }), 1_000, 'commitSync');
  // One attempt per retry.backoff.ms: at 0, 100, ..., 900 ms; the limit (due at 1000 ms, set first) wins the tie with the last backoff.
  assert.deepEqual(s.fake.requests('OffsetCommit').map((r) => r.atMs - start), Array.from({ length: 10 }, (_, i) => i * 100));
  await closeConsumer(s.scheduler, s.consumer);
});

// ---- commitAsync and the auto-commit task ----------------------------------------------------

test('commitAsync: when the OffsetCommit is never answered the callback gets TimeoutError after request.timeout.ms (30 s), not before', TIMEOUT, async () => {
  const s = await joined();
  s.fake.hold('OffsetCommit');
  const calls: { error: Error | null; offsets: readonly OffsetToCommit[] }[] = [];
  s.consumer.commitAsync(T0, (error, offsets) => { calls.push({ error, offsets }); });
  await s.scheduler.advance(29_999);
  assert.equal(calls.length, 0, 'no answer yet, and the limit is 30 s');
  await s.scheduler.advance(1);
  assert.equal(calls.length, 1, 'the callback ran at request.timeout.ms');
  assertTimeoutError(calls[0]!.error, 'commitAsync');
  assert.deepEqual(calls[0]!.offsets, T0);
  await closeConsumer(s.scheduler, s.consumer);
});

/** A logger that keeps what was logged, with the manual time. */
function recordingLogger(scheduler: ManualScheduler, lines: { atMs: number; message: string; error: unknown }[]): Logger {
  const record = (message: string, fields?: Record<string, unknown>): void => {
    lines.push({ atMs: scheduler.nowMs(), message, error: fields?.['error'] });
  };
  const logger: Logger = { debug: record, info: record, warn: record, error: record, child: () => logger };
  return logger;
}

test('auto-commit: an OffsetCommit never answered fails after request.timeout.ms and the task goes on, its next run due auto.commit.interval.ms after that failure', TIMEOUT, async () => {
  const REQUEST_TIMEOUT_MS = 10_000;
  const INTERVAL_MS = 5_000;
  const lines: { atMs: number; message: string; error: unknown }[] = [];
  const scheduler = new ManualScheduler(0);
  const s = consumerOn({
    groupId: 'g', enableAutoCommit: true, autoCommitIntervalMs: INTERVAL_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS,
    logger: recordingLogger(scheduler, lines),
  }, 3, scheduler);
  s.fake.hold('OffsetCommit');
  s.consumer.subscribe(['t']);
  await pollRecords(s, 3);
  // This poll says the application finished with v0-v2: the task now has something to commit.
  const last = s.consumer.poll({ timeoutMs: 0 });
  await s.scheduler.advance(0);
  await last;
  for (let waited = 0; s.fake.requests('OffsetCommit').length < 2; waited += 100) {
    assert.ok(waited < 60_000, 'no second auto-commit within 60 s of manual time');
    await s.scheduler.advance(100);
  }
  const [first, second] = s.fake.requests('OffsetCommit');
  assert.equal(first!.body.topics[0]!.partitions[0]!.committedOffset, 3n);
  const failed = lines.filter((l) => l.message === 'auto-commit failed');
  assert.equal(failed.length, 1, 'the first auto-commit failed once');
  assert.equal(failed[0]!.atMs, first!.atMs + REQUEST_TIMEOUT_MS, 'it failed request.timeout.ms after it was sent');
  assertTimeoutError(failed[0]!.error, 'auto-commit');
  assert.equal(second!.atMs, first!.atMs + REQUEST_TIMEOUT_MS + INTERVAL_MS, 'the next run: the failure + auto.commit.interval.ms');
  assert.equal(second!.body.topics[0]!.partitions[0]!.committedOffset, 3n, 'the same offsets again: nothing was committed');
  await closeConsumer(s.scheduler, s.consumer);
});

// ---- close() ---------------------------------------------------------------------------------

/** A member of g with auto-commit on (the task itself never due) that polled v0-v2 and finished with them. */
async function withRecordsInHand(options: Partial<ConsumerOptions> = {}): Promise<Setup> {
  const s = consumerOn({ groupId: 'g', enableAutoCommit: true, autoCommitIntervalMs: 600_000, ...options }, 3);
  s.consumer.subscribe(['t']);
  await pollRecords(s, 3);
  return s;
}

test('close({ timeoutMs }) ends at exactly its limit when neither the commit nor LeaveGroup is ever answered', TIMEOUT, async () => {
  const s = await withRecordsInHand();
  s.fake.hold('OffsetCommit');
  s.fake.hold('LeaveGroup');
  const closing = watch(s.consumer.close({ timeoutMs: 4_000 }));
  await s.scheduler.advance(3_999);
  assert.equal(closing.settled, false, 'close() waits for the commit up to its limit');
  assert.equal(s.fake.requests('OffsetCommit').length, 1, 'close() committed what poll() returned');
  await s.scheduler.advance(1);
  assert.equal(closing.settled, true, 'close() ended at its limit');
  assert.equal(closing.error, undefined, 'close() resolves; what did not finish is abandoned');
});

test('close() without a timeout ends 30 s after it started when LeaveGroup is never answered', TIMEOUT, async () => {
  const s = await withRecordsInHand();
  s.fake.hold('LeaveGroup');
  const closing = watch(s.consumer.close());
  await s.scheduler.advance(0);
  assert.equal(s.fake.requests('OffsetCommit').length, 1, 'the commit was answered at once');
  assert.equal(s.fake.requests('LeaveGroup').length, 1, 'LeaveGroup was sent and is waiting');
  await s.scheduler.advance(29_999);
  assert.equal(closing.settled, false, 'the default limit is 30 s');
  await s.scheduler.advance(1);
  assert.equal(closing.settled, true, 'close() ended at 30 s');
  assert.equal(closing.error, undefined);
});

test('close({ timeoutMs }) also bounds a revocation listener that never returns', TIMEOUT, async () => {
  const s = consumerOn({ groupId: 'g', enableAutoCommit: true, autoCommitIntervalMs: 600_000 });
  s.consumer.subscribe(['t'], { onPartitionsRevoked: () => new Promise<void>(() => undefined) });
  await pollUntil(s, () => s.consumer.assignment().length === 1, 'join');
  const closing = watch(s.consumer.close({ timeoutMs: 2_000 }));
  await s.scheduler.advance(1_999);
  assert.equal(closing.settled, false);
  await s.scheduler.advance(1);
  assert.equal(closing.settled, true, 'close() ended at its limit with the listener still running');
  assert.equal(s.fake.requests('LeaveGroup').length, 0, 'LeaveGroup comes after the listener, which never returned');
});

test('close() takes no manual time when the broker answers at once: commit, then LeaveGroup, both at the moment of the call', TIMEOUT, async () => {
  const s = await withRecordsInHand();
  const at = s.scheduler.nowMs();
  const closing = watch(s.consumer.close());
  await s.scheduler.advance(0);
  assert.equal(closing.settled, true, 'close() done without the clock moving');
  assert.equal(closing.error, undefined);
  assert.deepEqual(s.fake.sent.filter((r) => r.api === 'OffsetCommit' || r.api === 'LeaveGroup').map((r) => `${r.api}@${r.atMs - at}`), ['OffsetCommit@0', 'LeaveGroup@0']);
});

// ---- the admin client --------------------------------------------------------------------------

interface AdminSetup {
  readonly scheduler: ManualScheduler;
  readonly fake: FakeKafka;
  readonly admin: Admin;
}

/** Admin.connect on the scripted broker: its options carry the manual scheduler and the fake's connections. */
async function adminOn(options: { retryBackoffMs?: number; defaultApiTimeoutMs?: number } = {}): Promise<AdminSetup> {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  const connecting = Admin.connect({ bootstrapServers: 'fake:9092', scheduler, connectionFactory: fake.connectionFactory, ...options });
  await scheduler.advance(0);
  const admin = await connecting;
  assert.equal(fake.requests('Metadata').length, 1, 'Admin.connect went through the connectionFactory of its options');
  return { scheduler, fake, admin };
}

test('Admin.connect: its scheduler and connectionFactory options are used; a Metadata never answered fails it with TimeoutError at default.api.timeout.ms, or at its own timeoutMs', TIMEOUT, async () => {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  fake.hold('Metadata');
  const options = { bootstrapServers: 'fake:9092', scheduler, connectionFactory: fake.connectionFactory };
  await timesOutAt(scheduler, Admin.connect(options), DEFAULT_API_TIMEOUT_MS, 'Admin.connect');
  await timesOutAt(scheduler, Admin.connect(options, { timeoutMs: 2_500 }), 2_500, 'Admin.connect({ timeoutMs })');
  assert.equal(fake.requests('Metadata').length, 2, 'each connect asked the scripted broker');
});

test('Admin: a FindCoordinator never answered fails describeGroup with TimeoutError at exactly default.api.timeout.ms (60 s)', TIMEOUT, async () => {
  const { scheduler, fake, admin } = await adminOn();
  fake.hold('FindCoordinator');
  await timesOutAt(scheduler, admin.describeGroup('g'), DEFAULT_API_TIMEOUT_MS, 'describeGroup');
  assert.equal(fake.requests('FindCoordinator').length, 1);
  admin.close();
});

test('Admin: a DescribeGroups never answered fails at the call\'s own timeoutMs, or at the client\'s defaultApiTimeoutMs', TIMEOUT, async () => {
  const { scheduler, fake, admin } = await adminOn({ defaultApiTimeoutMs: 9_000 });
  fake.hold('DescribeGroups');
  await timesOutAt(scheduler, admin.describeGroup('g', { timeoutMs: 3_000 }), 3_000, 'describeGroup({ timeoutMs })');
  await timesOutAt(scheduler, admin.describeGroup('g'), 9_000, 'describeGroup with defaultApiTimeoutMs 9000');
  assert.equal(fake.requests('DescribeGroups').length, 2);
  admin.close();
});

test('Admin: the call\'s signal ends a call waiting on the coordinator at once', TIMEOUT, async () => {
  const { scheduler, fake, admin } = await adminOn();
  fake.hold('DescribeGroups');
  const stop = new AbortController();
  const call = watch(admin.describeGroup('g', { signal: stop.signal }));
  await scheduler.advance(1_000);
  assert.equal(call.settled, false);
  const reason = new Error('the caller gave up');
  stop.abort(reason);
  await scheduler.advance(0);
  assert.equal(call.settled, true);
  assert.equal(call.error, reason, 'the signal\'s reason');
  admin.close();
});

/** DescribeGroups answered with `errorCode` for every group asked. */
function describeGroupsAnswer(errorCode: number) {
  return (request: { groups: string[] }) => ({
    groups: request.groups.map((groupId) => ({ errorCode, groupId, groupState: errorCode === ErrorCode.NONE ? 'Empty' : '', protocolType: '', protocolData: '', members: [] })),
  });
}

test('Admin: COORDINATOR_LOAD_IN_PROGRESS is retried every retry.backoff.ms until the time limit, which ends the call with TimeoutError', TIMEOUT, async () => {
  const { scheduler, fake, admin } = await adminOn({ retryBackoffMs: 100 });
  fake.on('DescribeGroups', describeGroupsAnswer(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS));
  const start = scheduler.nowMs();
  await timesOutAt(scheduler, admin.describeGroup('g', { timeoutMs: 1_000 }), 1_000, 'describeGroup');
  // The limit (set first) wins the tie with the backoff due at 1000 ms: attempts at 0, 100, ..., 900.
  assert.deepEqual(fake.requests('DescribeGroups').map((r) => r.atMs - start), Array.from({ length: 10 }, (_, i) => i * 100));
  admin.close();
});

test('Admin: a coordinator that stops loading within the limit answers the retried call', TIMEOUT, async () => {
  const { scheduler, fake, admin } = await adminOn({ retryBackoffMs: 100 });
  for (let i = 0; i < 3; i++) fake.once('DescribeGroups', describeGroupsAnswer(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS));
  fake.on('DescribeGroups', describeGroupsAnswer(ErrorCode.NONE));
  const call = watch(admin.describeGroup('g', { timeoutMs: 1_000 }));
  await scheduler.advance(300);
  assert.equal(call.settled, true, 'answered on the fourth attempt, at 300 ms');
  assert.equal(call.error, undefined);
  assert.equal((call.value as { state: string }).state, 'Empty');
  admin.close();
});

// ---- abort listeners ----------------------------------------------------------------------------

test('a consumer that keeps failing to reach its broker over TCP leaves no abort listeners behind: no MaxListenersExceededWarning after many attempts', { timeout: 30_000 }, async () => {
  const port = (await freePorts(1))[0]!;
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => { warnings.push(w); };
  process.on('warning', onWarning);
  let attempts = 0;
  // Real connections and real time: the listener leak was in KafkaConnection.connect, on the client's own close signal.
  const consumer = new Consumer({
    bootstrapServers: `127.0.0.1:${port}`, groupId: 'g', retryBackoffMs: 10,
    connectionFactory: (o) => {
      attempts++;
      return KafkaConnection.connect(o);
    },
  });
  try {
    consumer.subscribe(['t']);
    const deadline = Date.now() + 20_000;
    // Node warns at the 11th listener on one signal; 40 failed attempts are well past it.
    while (attempts < 40) {
      assert.ok(Date.now() < deadline, `only ${attempts} connection attempts in 20 s`);
      await consumer.poll({ timeoutMs: 100 });
    }
  } finally {
    await consumer.close({ timeoutMs: 1_000 });
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
  }
  const leaks = warnings.filter((w) => w.name === 'MaxListenersExceededWarning');
  assert.deepEqual(leaks.map((w) => w.message), [], `after ${attempts} failed connection attempts`);
});
