/**
 * `bin/brook groups timeline` end to end against an in-memory broker: entries written to
 * `__brook_group_timeline` with Brook's producer (record timestamps chosen by the test) are
 * read back for one group only, in log order, as text lines or JSON, from a --since point
 * found by timestamp, and with --follow as they are written until SIGINT. The text lines
 * expected here are written out by hand from the entries the test made.
 *
 * And the broker's own recorder: a classic group and a consumer group (KIP-848) of Brook's
 * consumers (member A joins, B joins, B leaves); at each step, once the members agree, each
 * one's generation (member epoch), member id and assignment as the client itself sees them
 * (groupMetadata(), assignment()). The timeline must show those generations with the same
 * members, assignments, joins, leaves and moved partitions (test/support/timeline-check.ts).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot, startBrook } from '../support/brook.js';
import { brookCli } from '../support/admin-fixture.js';
import { Admin } from '../../src/client/admin.js';
import { Producer } from '../../src/client/producer/index.js';
import { Consumer } from '../../src/client/consumer/consumer.js';
import { until } from '../support/clients/run.js';
import { createTopic } from '../support/consumer-helpers.js';
import { assertTimelineMatches, timelineOf, type ObservedAssignment } from '../support/timeline-check.js';
import { TIMELINE_TOPIC, type TimelineEntry } from '../../src/broker/flight-recorder/timeline-entry.js';
import { formatTimelineEntry } from '../../src/cli/timeline-format.js';
import { parseSince } from '../../src/cli/commands/groups-timeline.js';

const T = { timeout: 60_000 };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Whole seconds: the ISO strings below are then exact. */
const NOW = Math.floor(Date.now() / 1000) * 1000;
const iso = (ms: number): string => new Date(ms).toISOString();

function entry(fields: Partial<TimelineEntry> & Pick<TimelineEntry, 'group' | 'kind' | 'time'>): TimelineEntry {
  return { v: 1, groupType: 'classic', reason: '', joined: [], left: [], members: [], moved: [], durationMs: 0, ...fields };
}

const m1 = { memberId: 'm1', instanceId: null, clientId: 'client-1', clientHost: '/127.0.0.1', protocol: 'classic' as const };
const m2 = { memberId: 'm2', instanceId: null, clientId: 'client-2', clientHost: '/127.0.0.2', protocol: 'classic' as const };

/** A classic rebalance with every optional field a classic entry has. */
const ORDERS_GEN1 = entry({
  group: 'orders', kind: 'rebalance', time: iso(NOW - 3 * DAY), generation: 1,
  reason: "Adding new member m1 with group instance id null; client reason: need to re-join with the given member-id: m1",
  joined: [m1], members: [{ ...m1, assignment: { t: [0, 1] } }],
  moved: [{ topic: 't', partition: 0, from: null, to: 'm1' }, { topic: 't', partition: 1, from: null, to: 'm1' }],
  durationMs: 1234, outcome: 'Stable', preparingRebalanceMs: 1000, completingRebalanceMs: 234, leader: 'm1', protocolType: 'consumer', protocol: 'range',
});
/** Written 3 days ago (record timestamp) though its time is recent: only a seek by timestamp skips it. */
const ORDERS_GEN2 = entry({
  group: 'orders', kind: 'rebalance', time: iso(NOW - 10 * MINUTE), generation: 2, reason: 'Leader m1 re-joining group during Stable',
  joined: [m2], left: [], members: [m1, m2], moved: [{ topic: 't', partition: 1, from: 'm1', to: 'm2' }],
  durationMs: 85, outcome: 'superseded', preparingRebalanceMs: 85, completingRebalanceMs: null, leader: 'm1', protocolType: 'consumer', protocol: 'range',
});
/** A rebalance that began 3 h ago and ended 30 min ago: written recently, but --since 2h leaves it out by its time. */
const ORDERS_GEN3 = entry({
  group: 'orders', kind: 'rebalance', time: iso(NOW - 3 * HOUR), generation: 3, reason: 'removing member m2 on heartbeat expiration',
  left: [{ memberId: 'm2', instanceId: null, cause: 'session-timeout', clientReason: null }], members: [m1],
  moved: [{ topic: 't', partition: 1, from: 'm2', to: 'm1' }], durationMs: null, outcome: 'Empty',
});
const ORDERS_REMOVED = entry({
  group: 'orders', kind: 'member-removed', time: iso(NOW - 10 * MINUTE), generation: 3, reason: 'the consumer left\nthe group',
  left: [{ memberId: 'm1', instanceId: null, cause: 'left', clientReason: 'the consumer is being closed' }],
});
const ORDERS_CONVERTED = entry({ group: 'orders', kind: 'group-converted', groupType: 'consumer', time: iso(NOW - 5 * MINUTE), epoch: 4, reason: 'a consumer-protocol member joined', from: 'classic', to: 'consumer', members: [m1] });
const OTHER = entry({ group: 'other', kind: 'group-deleted', time: iso(NOW - 3 * DAY), generation: 9 });

/** Text lines of the entries above, written out by hand. */
const LINES = new Map<TimelineEntry, string>([
  [ORDERS_GEN1, `${iso(NOW - 3 * DAY)}  generation 1  rebalance  Stable after 1.2 s (preparing 1.0 s, completing 234 ms)  reason: Adding new member m1 with group instance id null; client reason: need to re-join with the given member-id: m1  joined: m1 (client-1 /127.0.0.1)  members: 1  moved: 2  leader: m1  protocol: range`],
  [ORDERS_GEN2, `${iso(NOW - 10 * MINUTE)}  generation 2  rebalance  superseded after 85 ms (preparing 85 ms)  reason: Leader m1 re-joining group during Stable  joined: m2 (client-2 /127.0.0.2)  members: 2  moved: 1  leader: m1  protocol: range`],
  [ORDERS_GEN3, `${iso(NOW - 3 * HOUR)}  generation 3  rebalance  Empty (duration unknown: began before a restart)  reason: removing member m2 on heartbeat expiration  left: m2 (session-timeout)  members: 1  moved: 1`],
  [ORDERS_REMOVED, `${iso(NOW - 10 * MINUTE)}  generation 3  member removed  reason: the consumer left\\nthe group  left: m1 (left: the consumer is being closed)  members: 0`],
  [ORDERS_CONVERTED, `${iso(NOW - 5 * MINUTE)}  epoch 4  group converted from classic to consumer  reason: a consumer-protocol member joined  members: 1`],
]);

let broker: Awaited<ReturnType<typeof startBrook>>;
let producer: Producer;

async function write(group: string, value: TimelineEntry | string | null, timestamp: number): Promise<void> {
  await producer.send({ topic: TIMELINE_TOPIC, key: group, value: value === null || typeof value === 'string' ? value : JSON.stringify(value), timestamp });
}

before(async () => {
  broker = await startBrook();
  producer = new Producer({ bootstrapServers: broker.bootstrap, lingerMs: 0 });
});

after(async () => {
  await producer.close();
  await broker.stop();
});

const cli = (...args: string[]): ReturnType<typeof brookCli> => brookCli(['groups', 'timeline', ...args, '-b', broker.bootstrap]);
const lines = (stdout: string): string[] => stdout.split('\n').filter((l) => l !== '');

test('formatTimelineEntry: one line per kind, client strings escaped', () => {
  for (const [e, line] of LINES) assert.equal(formatTimelineEntry(e), line);
  const replaced = entry({
    group: 'g', kind: 'static-member-replaced', groupType: 'consumer', time: iso(NOW), epoch: 7, reason: 'static member i1 rejoined',
    joined: [{ ...m2, instanceId: 'i1', protocol: 'consumer' }], left: [{ memberId: 'm1', instanceId: 'i1', cause: 'replaced', clientReason: null }], members: [m2],
  });
  assert.equal(formatTimelineEntry(replaced), `${iso(NOW)}  epoch 7  static member i1 replaced  reason: static member i1 rejoined  joined: m2 [instance i1] (client-2 /127.0.0.2)  left: m1 (replaced)  members: 1`);
  assert.equal(formatTimelineEntry(OTHER), `${iso(NOW - 3 * DAY)}  generation 9  group deleted  members: 0`);
});

test('parseSince: durations back from now, ISO 8601 times, refusals', () => {
  assert.equal(parseSince('30s', NOW), NOW - 30_000);
  assert.equal(parseSince('15m', NOW), NOW - 15 * MINUTE);
  assert.equal(parseSince('2h', NOW), NOW - 2 * HOUR);
  assert.equal(parseSince('7d', NOW), NOW - 7 * DAY);
  assert.equal(parseSince('1h30m', NOW), NOW - 90 * MINUTE);
  assert.equal(parseSince('500ms', NOW), NOW - 500);
  assert.equal(parseSince('2026-12-05T05:01:02.123Z', NOW), Date.UTC(2026, 11, 5, 5, 1, 2, 123));
  assert.equal(parseSince('2026-12-05T05:01:02', NOW), Date.UTC(2026, 11, 5, 5, 1, 2));
  assert.equal(parseSince('2026-12-05T07:01:02+02:00', NOW), Date.UTC(2026, 11, 5, 5, 1, 2));
  for (const bad of ['', 'yesterday', '5', '-2h', '2026-13-45T00:00:00Z']) assert.throws(() => parseSince(bad, NOW), /--since expects/, bad);
});

test('brook groups timeline: no topic yet prints no entries and exits 0', T, async () => {
  const r = await cli('orders');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^brook groups: no timeline yet: topic __brook_group_timeline does not exist/);
  // --follow waits for the topic; an interrupt ends the wait with exit 0.
  const follower = follow(broker.bootstrap, 'orders');
  try {
    await until('--follow waits for the topic', 20_000, async () => (/; waiting for it\n$/.test(follower.stderr()) ? true : undefined), 20);
    const stopped = await follower.interrupt();
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.deepEqual(follower.seen, []);
  } finally {
    follower.kill();
  }
});

test('brook groups timeline: the group\'s entries in order, as text and JSON, from --since', T, async () => {
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  try {
    await admin.createTopic({ name: TIMELINE_TOPIC, partitions: 1, replicationFactor: 1, configs: { 'cleanup.policy': 'delete' } });
  } finally {
    admin.close();
  }
  await write('orders', ORDERS_GEN1, NOW - 3 * DAY);
  await write('other', OTHER, NOW - 3 * DAY);
  await write('orders', ORDERS_GEN2, NOW - 3 * DAY);
  await write('orders', ORDERS_GEN3, NOW - 30 * MINUTE);
  await write('orders', null, NOW - 20 * MINUTE);
  await write('orders', 'not an entry', NOW - 20 * MINUTE);
  await write('orders', JSON.stringify({ ...ORDERS_GEN1, v: 99 }), NOW - 20 * MINUTE);
  // Another group's entry under this key would be a recorder bug; the key decides.
  await write('orders-2', { ...ORDERS_GEN1, group: 'orders-2' }, NOW - 15 * MINUTE);
  await write('orders', ORDERS_REMOVED, NOW - 10 * MINUTE);
  await write('orders', ORDERS_CONVERTED, NOW - 5 * MINUTE);

  const all = await cli('orders');
  assert.equal(all.code, 0, all.stderr);
  assert.equal(all.stderr, '');
  assert.deepEqual(lines(all.stdout), [ORDERS_GEN1, ORDERS_GEN2, ORDERS_GEN3, ORDERS_REMOVED, ORDERS_CONVERTED].map((e) => LINES.get(e)));

  const json = await cli('orders', '--json');
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(lines(json.stdout).map((l) => JSON.parse(l) as unknown), [ORDERS_GEN1, ORDERS_GEN2, ORDERS_GEN3, ORDERS_REMOVED, ORDERS_CONVERTED]);

  // Seeking to the first record written at or after now-2h skips GEN2 (written 3 days ago);
  // GEN3 (written 30 min ago) is left out by its time.
  const since = await cli('orders', '--since', '2h', '--json');
  assert.equal(since.code, 0, since.stderr);
  assert.deepEqual(lines(since.stdout).map((l) => JSON.parse(l) as unknown), [ORDERS_REMOVED, ORDERS_CONVERTED]);
  const sinceIso = await cli('orders', '--since', iso(NOW - 2 * HOUR));
  assert.deepEqual(lines(sinceIso.stdout), [ORDERS_REMOVED, ORDERS_CONVERTED].map((e) => LINES.get(e)));
  const none = await cli('orders', '--since', '1m');
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, '');

  const unknown = await cli('nobody');
  assert.equal(unknown.code, 0, unknown.stderr);
  assert.equal(unknown.stdout, '');
  assert.deepEqual(lines((await cli('other', '--json')).stdout).map((l) => JSON.parse(l) as unknown), [OTHER]);

  // --follow: what is there, then each new entry of the group as it is written, until SIGINT (exit 0).
  const follower = follow(broker.bootstrap, 'orders');
  try {
    await follower.linesReached(5);
    const gen5 = entry({ group: 'orders', kind: 'rebalance', groupType: 'consumer', time: iso(Date.now()), epoch: 5, reason: 'member m3 joined', joined: [m1], members: [m1], durationMs: 12, outcome: 'Stable' });
    await write('other', OTHER, Date.now());
    await write('orders', gen5, Date.now());
    await follower.linesReached(6);
    const r = await follower.interrupt();
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(follower.seen, [ORDERS_GEN1, ORDERS_GEN2, ORDERS_GEN3, ORDERS_REMOVED, ORDERS_CONVERTED, gen5]);
  } finally {
    follower.kill();
  }
});

/** `groups timeline GROUP --follow --json` as a child process: its entries as they come. */
function follow(bootstrap: string, group: string): {
  readonly seen: unknown[];
  linesReached(n: number): Promise<void>;
  stderr(): string;
  /** SIGINT; its exit code and stderr. */
  interrupt(): Promise<{ code: number | null; stderr: string }>;
  kill(): void;
} {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'brook'), 'groups', 'timeline', group, '--follow', '--json', '-b', bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const seen: unknown[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (l) => {
    seen.push(JSON.parse(l));
    for (const w of waiters.splice(0)) w();
  });
  return {
    seen,
    stderr: () => stderr,
    async linesReached(n) {
      while (seen.length < n) {
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited.then(() => { throw new Error(`exited early: ${stderr}`); })]);
      }
    },
    async interrupt() {
      child.kill('SIGINT');
      return { code: await exited, stderr };
    },
    kill: () => child.kill('SIGKILL'),
  };
}

test('brook groups timeline: usage errors exit 2 with one line', T, async () => {
  for (const args of [[], ['orders', '--since', 'yesterday'], ['orders', 'extra']]) {
    const r = await brookCli(['groups', 'timeline', ...args, '-b', broker.bootstrap]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(lines(r.stderr).length, 1, r.stderr);
    assert.match(r.stderr, /^brook groups: /);
  }
});

/** A Brook consumer polling in the background; `observe()` is what it says of itself now. */
class Member {
  readonly consumer: Consumer;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(bootstrap: string, group: string, private readonly topic: string, groupProtocol: 'classic' | 'consumer') {
    this.consumer = new Consumer({
      bootstrapServers: bootstrap, groupId: group, groupProtocol, clientId: `timeline-${groupProtocol}`,
      ...(groupProtocol === 'classic' ? { assignors: ['range'], sessionTimeoutMs: 10_000, heartbeatIntervalMs: 200 } : {}),
    });
    const consumer = this.consumer;
    consumer.subscribe([topic]);
    this.loop = (async () => {
      while (this.running) await consumer.poll({ timeoutMs: 100 });
    })();
  }

  observe(): ObservedAssignment {
    const meta = this.consumer.groupMetadata();
    return { gen: meta.generationId, member: meta.memberId, partitions: this.consumer.assignment().filter((tp) => tp.topic === this.topic).map((tp) => tp.partition).sort((a, b) => a - b) };
  }

  async close(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.consumer.close();
  }
}

/**
 * Once the broker says the group is Stable with these members (a consumer group: at the
 * epoch of its target assignment) and the members agree with it (that epoch; one
 * generation; every partition owned once), what each member says of itself.
 */
async function settled(admin: Admin, group: string, members: readonly Member[], partitions: number): Promise<ObservedAssignment[]> {
  return until(`${group}: ${members.length} member(s) settled`, 20_000, async () => {
    const d = await admin.describeGroup(group);
    if (d.state !== 'Stable' || d.members.length !== members.length || d.groupEpoch !== d.assignmentEpoch) return undefined;
    const seen = members.map((m) => m.observe());
    const owned = seen.flatMap((o) => o.partitions).sort((a, b) => a - b);
    const gen = d.groupEpoch ?? seen[0]!.gen;
    const agree = seen.every((o) => o.gen > 0 && o.gen === gen) && owned.length === partitions && owned.every((p, i) => p === i);
    return agree ? seen : undefined;
  }, 20);
}

for (const groupProtocol of ['classic', 'consumer'] as const) {
  test(`brook groups timeline: a ${groupProtocol} group of Brook consumers, as its members saw their generations`, T, async () => {
    // A short consumer-group heartbeat, so members learn of new epochs quickly.
    const own = await startBrook({ groupConsumerHeartbeatIntervalMs: 200, groupConsumerMinHeartbeatIntervalMs: 200 });
    const topic = `timeline-${groupProtocol}`;
    const group = `timeline-${groupProtocol}-group`;
    const members: Member[] = [];
    const admin = await Admin.connect({ bootstrapServers: own.bootstrap });
    // Started before the recorder wrote anything: it waits for the topic, then follows it.
    const follower = follow(own.bootstrap, group);
    try {
      await until('--follow waits for the topic', 20_000, async () => (/no timeline yet: .*; waiting for it/.test(follower.stderr()) ? true : undefined), 20);
      await createTopic(own.bootstrap, topic, 4);
      const observed: ObservedAssignment[] = [];
      const a = new Member(own.bootstrap, group, topic, groupProtocol);
      members.push(a);
      observed.push(...await settled(admin, group, [a], 4));
      const b = new Member(own.bootstrap, group, topic, groupProtocol);
      members.push(b);
      observed.push(...await settled(admin, group, [a, b], 4));
      members.pop();
      await b.close();
      observed.push(...await settled(admin, group, [a], 4));
      assert.equal(new Set(observed.map((o) => o.gen)).size, 3, `three generations: ${JSON.stringify(observed)}`);
      assert.equal(new Set(observed.map((o) => o.member)).size, 2, 'two members');

      const entries = await timelineOf(own.bootstrap, group);
      assertTimelineMatches(entries, observed, topic, groupProtocol);
      // What --follow printed as it happened: the same entries (A stays in the group, Stable: nothing more is written).
      await follower.linesReached(entries.length);
      const followed = await follower.interrupt();
      assert.equal(followed.code, 0, followed.stderr);
      assert.deepEqual(follower.seen, entries);
      for (const e of entries) {
        assert.equal(e.groupType, groupProtocol, 'the group type');
        if (groupProtocol === 'classic') assert.ok(e.generation !== undefined && e.epoch === undefined, 'classic entries carry a generation');
        else assert.ok(e.epoch !== undefined && e.generation === undefined, 'consumer-group entries carry an epoch');
      }
      // The text form: one line per entry, each with its generation or epoch.
      const text = await brookCli(['groups', 'timeline', group, '-b', own.bootstrap]);
      assert.equal(text.code, 0, text.stderr);
      assert.deepEqual(lines(text.stdout).map((l) => / {2}(generation|epoch) (\d+) {2}/.exec(l)?.slice(1)), entries.map((e) => [groupProtocol === 'classic' ? 'generation' : 'epoch', String(e.generation ?? e.epoch)]));
    } finally {
      follower.kill();
      for (const m of members) await m.close();
      admin.close();
      await own.stop();
    }
  });
}
