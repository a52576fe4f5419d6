/**
 * What the console draws over time:
 * - the group API carries the flight recorder's entries and the rebalance in progress as the
 *   recorder gives them (a fake TimelineReader here), and the event stream pushes each new
 *   entry as the recorder publishes it;
 * - the timeline drawing (console/timeline.js, the page's own module): one bar per rebalance
 *   with `data-generation` (the generation, or the epoch), placed along the axis in
 *   proportion to its start time and as wide as its paused time on the same scale; the other
 *   kinds as markers with `data-kind`; the details (joined, left with cause, reason, moved,
 *   duration) in the tooltip and table; client-chosen text escaped;
 * - the lag history: sampled on the broker's clock (a ManualScheduler: nothing is sampled
 *   until the test moves it), the lag the records and commits make, in a bounded ring.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startBrook, projectRoot } from '../support/brook.js';
import { Admin, Producer } from '../../src/index.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/log.js';
import { ConsoleServer } from '../../src/broker/console/console-server.js';
import { ConsoleAuth } from '../../src/broker/console/console-auth.js';
import { LagHistory } from '../../src/broker/console/lag-history.js';
import { PasswordCheckQueue } from '../../src/broker/sasl/password-checks.js';
import type { TimelineEntry, TimelineReader } from '../../src/broker/flight-recorder/timeline-entry.js';

const T = { timeout: 60_000 };

const T0 = Date.parse('2026-01-01T10:00:00.000Z');

function entry(fields: Partial<TimelineEntry> & Pick<TimelineEntry, 'kind' | 'time'>): TimelineEntry {
  return { v: 1, group: 'g', groupType: 'classic', reason: '', joined: [], left: [], members: [], moved: [], durationMs: 0, ...fields };
}

const member = (memberId: string, clientId: string) => ({ memberId, instanceId: null, clientId, clientHost: '/127.0.0.1', protocol: 'classic' as const });

/** A classic group's story: formed, grown, a member expired, converted to a consumer group. */
const ENTRIES: readonly TimelineEntry[] = [
  entry({ kind: 'rebalance', time: new Date(T0).toISOString(), generation: 1, durationMs: 3000, outcome: 'Stable', reason: 'Adding new member a', joined: [member('a', 'app-1')], moved: [{ topic: 't', partition: 0, from: null, to: 'a' }, { topic: 't', partition: 1, from: null, to: 'a' }] }),
  entry({ kind: 'rebalance', time: new Date(T0 + 20_000).toISOString(), generation: 2, durationMs: 1500, outcome: 'Stable', reason: 'Adding new member b', joined: [member('b', '<b>app-2</b>')], moved: [{ topic: 't', partition: 1, from: 'a', to: 'b' }] }),
  entry({ kind: 'member-removed', time: new Date(T0 + 40_000).toISOString(), generation: 2, reason: 'session timeout', left: [{ memberId: 'b', instanceId: null, cause: 'session-timeout', clientReason: null }] }),
  entry({ kind: 'rebalance', time: new Date(T0 + 40_000).toISOString(), generation: 3, durationMs: 6000, outcome: 'Stable', reason: 'removing member b on heartbeat expiration', left: [{ memberId: 'b', instanceId: null, cause: 'session-timeout', clientReason: null }], moved: [{ topic: 't', partition: 1, from: 'b', to: 'a' }] }),
  entry({ kind: 'group-converted', time: new Date(T0 + 60_000).toISOString(), groupType: 'consumer', epoch: 4, from: 'classic', to: 'consumer', reason: 'a consumer member joined' }),
];

class FakeTimeline implements TimelineReader {
  readonly listeners = new Set<(e: TimelineEntry) => void>();
  constructor(private readonly all: TimelineEntry[], private progress: ReturnType<TimelineReader['inProgress']> = null) {}
  entries(groupId: string): readonly TimelineEntry[] {
    return this.all.filter((e) => e.group === groupId);
  }
  subscribe(listener: (e: TimelineEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  inProgress(): ReturnType<TimelineReader['inProgress']> {
    return this.progress;
  }
  publish(e: TimelineEntry): void {
    this.all.push(e);
    for (const l of this.listeners) l(e);
  }
}

interface TimelineModule {
  renderTimeline(entries: readonly TimelineEntry[], inProgress: unknown, nowMs: number): string;
  renderTimelineTable(entries: readonly TimelineEntry[]): string;
  layoutTimeline(entries: readonly TimelineEntry[], inProgress: unknown, nowMs: number): { startMs: number; endMs: number };
  WIDTH: number;
}

const timelineModule = (): Promise<TimelineModule> => import(pathToFileURL(join(projectRoot, 'console', 'timeline.js')).href) as Promise<TimelineModule>;

test('the group API and the event stream carry the recorder\'s entries', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  broker.createTopic('t', 2);
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  t.after(() => admin.close());
  await admin.commitOffsets('g', [{ topic: 't', partition: 0, offset: 0n }]);
  const fake = new FakeTimeline([...ENTRIES], { sinceMs: T0 + 70_000, reason: 'Adding new member c', generation: 5 });
  const context = { ...broker.context, timeline: fake };
  const lagHistory = new LagHistory({ clock: broker.context.clock, groups: context.groups, storage: context.storage, log: silentLogger });
  const server = await ConsoleServer.listen('127.0.0.1', 0, {
    broker: context, lagHistory, writesEnabled: false, log: silentLogger,
    auth: new ConsoleAuth({ required: false, credentials: context.credentials, jaasPlain: new Map(), passwordChecks: new PasswordCheckQueue() }),
  });
  t.after(() => server.close());

  const res = await fetch(`http://127.0.0.1:${server.port}/api/groups/g`);
  const body = await res.json() as { timeline: TimelineEntry[]; inProgress: unknown };
  assert.deepEqual(body.timeline, ENTRIES);
  assert.deepEqual(body.inProgress, { sinceMs: T0 + 70_000, reason: 'Adding new member c', generation: 5 });

  // The stream: a comment first, then each new entry.
  const controller = new AbortController();
  t.after(() => controller.abort());
  const stream = await fetch(`http://127.0.0.1:${server.port}/api/events`, { signal: controller.signal });
  assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const reader = stream.body!.getReader();
  let text = '';
  const readUntil = async (needle: string): Promise<void> => {
    while (!text.includes(needle)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before ${needle}`);
      text += Buffer.from(value).toString('utf8');
    }
  };
  await readUntil('brook console events');
  assert.equal(fake.listeners.size, 1, 'the server subscribed once');
  const next = entry({ kind: 'rebalance', time: new Date(T0 + 70_000).toISOString(), generation: 5, durationMs: 800, outcome: 'Stable', reason: 'Adding new member c' });
  fake.publish(next);
  await readUntil('\n\n');
  await readUntil(`"generation":5`);
  const event = text.slice(text.indexOf('event: timeline'));
  assert.match(event, /^event: timeline\ndata: /);
  assert.deepEqual(JSON.parse(event.split('\n')[1]!.slice('data: '.length)) as unknown, next);
  await reader.cancel();
  await server.close();
  assert.equal(fake.listeners.size, 0, 'closing unsubscribes');
});

test('the timeline drawing: bars by generation placed and sized in proportion to time, markers by kind, details escaped', T, async () => {
  const { renderTimeline, renderTimelineTable, layoutTimeline, WIDTH } = await timelineModule();
  const nowMs = T0 + 90_000;
  const svg = renderTimeline(ENTRIES, null, nowMs);
  const bars = [...svg.matchAll(/<g class="tl-rebalance[^"]*" data-kind="rebalance" data-generation="(\d+)" data-x="([\d.]+)" data-width="([\d.]+)" data-duration-ms="(\d*)" data-moved="(\d+)">/g)]
    .map((m) => ({ generation: Number(m[1]), x: Number(m[2]), width: Number(m[3]), durationMs: Number(m[4]), moved: Number(m[5]) }));
  assert.deepEqual(bars.map((b) => [b.generation, b.durationMs, b.moved]), [[1, 3000, 2], [2, 1500, 1], [3, 6000, 1]]);
  // One scale for positions and widths: pixels per ms from the first two bars' start times.
  const { startMs, endMs } = layoutTimeline(ENTRIES, null, nowMs);
  const scale = WIDTH / (endMs - startMs);
  const starts = [T0, T0 + 20_000, T0 + 40_000];
  bars.forEach((b, i) => {
    assert.ok(Math.abs(b.x - (starts[i]! - startMs) * scale) < 0.01, `bar ${b.generation} starts at its time`);
    assert.ok(Math.abs(b.width - b.durationMs * scale) < 0.01, `bar ${b.generation} is as wide as its paused time`);
  });
  assert.ok(Math.abs((bars[1]!.x - bars[0]!.x) / (bars[2]!.x - bars[1]!.x) - 1) < 1e-3, '20 s apart, twice: equal gaps');
  assert.ok(Math.abs(bars[2]!.width / bars[0]!.width - 2) < 1e-3, '6 s paused is twice 3 s');
  assert.ok(bars.every((b) => b.x >= 0 && b.x + b.width <= WIDTH));

  const markers = [...svg.matchAll(/<g class="tl-marker" data-kind="([a-z-]+)" data-at-generation="(-?\d+)"/g)].map((m) => [m[1], Number(m[2])]);
  assert.deepEqual(markers, [['member-removed', 2], ['group-converted', 4]]);
  assert.match(svg, /<title>[^<]*left: b \(session-timeout\)[^<]*<\/title>/);
  assert.match(svg, /partitions moved: 2/);
  assert.match(svg, /paused 3\.0 s/);
  assert.match(svg, /reason: Adding new member a/);
  assert.ok(!svg.includes('<b>app-2</b>') && svg.includes('&lt;b&gt;app-2&lt;/b&gt;'), 'a client id is text, not markup');

  const table = renderTimelineTable(ENTRIES);
  assert.deepEqual([...table.matchAll(/data-row-generation="(\d+)"/g)].map((m) => Number(m[1])), [4, 3, 2, 2, 1], 'newest first');
  assert.match(renderTimeline([], { sinceMs: nowMs - 5000, reason: 'x', generation: 7 }, nowMs), /data-in-progress-generation="7"/);
});

test('lag history: sampled on the broker\'s clock, the lag records and commits make, bounded', T, async (t) => {
  // The producer stamps records with the real time: the broker's clock starts there too.
  const start = Date.now();
  const clock = new ManualScheduler(start);
  const broker = await startBrook({ clock, consolePort: 0 });
  t.after(() => broker.stop());
  const port = broker.consolePort!;
  broker.createTopic('t', 2);
  const producer = new Producer({ bootstrapServers: broker.bootstrap });
  t.after(() => producer.close());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  t.after(() => admin.close());
  const produce = async (partition: number, n: number): Promise<void> => {
    for (let i = 0; i < n; i++) await producer.send({ topic: 't', partition, value: Buffer.from('x') });
  };
  const history = async (): Promise<{ intervalMs: number; samples: { timeMs: number; lag: Record<string, number> }[] }> =>
    (await fetch(`http://127.0.0.1:${port}/api/groups/lagging/lag-history`)).json() as Promise<{ intervalMs: number; samples: { timeMs: number; lag: Record<string, number> }[] }>;

  await produce(0, 4);
  await produce(1, 2);
  await admin.commitOffsets('lagging', [{ topic: 't', partition: 0, offset: 1n }, { topic: 't', partition: 1, offset: 2n }]);
  const first = await history();
  assert.equal(first.intervalMs, 5000);
  assert.deepEqual(first.samples, [], 'the first sample was taken at start-up, before the commit; none since: the clock stood still');

  await clock.advance(4999);
  assert.deepEqual((await history()).samples, []);
  await clock.advance(1);
  assert.deepEqual((await history()).samples, [{ timeMs: start + 5000, lag: { 't/0': 3, 't/1': 0 } }]);
  await produce(1, 5);
  await clock.advance(5000);
  assert.deepEqual((await history()).samples.map((s) => [s.timeMs - start, s.lag]), [[5000, { 't/0': 3, 't/1': 0 }], [10_000, { 't/0': 3, 't/1': 5 }]]);

  // 30 minutes later: the last 360 samples only.
  await clock.advance(400 * 5000);
  const late = (await history()).samples;
  assert.equal(late.length, 360);
  assert.equal(late[359]!.timeMs, start + 10_000 + 400 * 5000);
  assert.equal(late[0]!.timeMs, late[359]!.timeMs - 359 * 5000);
});
