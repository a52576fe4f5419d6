/**
 * The broker's web console, read over HTTP as the page reads it:
 * - the overview lists a topic the test produced to (partitions, end offsets, bytes) and the
 *   group Brook's consumer formed (type, state, members, lag); the group's page its member
 *   (client id, host), its assignment, its lag per partition and the flight recorder's first
 *   generation, as the client and the records the test produced and committed say;
 * - the pages and assets are served from the package, with the security headers;
 * - robustness: unknown paths 404, other methods 405 with Allow, bad percent-encoding 400,
 *   a huge URL 414, group ids with `/` and odd characters, no-store on the API; random paths,
 *   methods and bodies never get a server error;
 * - consumer (KIP-848) and share groups described through their own APIs: members, instance
 *   ids and assignments as the raw heartbeats were answered;
 * - writes: refused unless console.writes.enable; with it, an offset reset only for an Empty
 *   group (to earliest after DeleteRecords moved the log start, to latest), read back
 *   through OffsetFetch, and group deletion, read back through ListGroups; cross-origin and
 *   non-JSON writes refused;
 * - without console.port there is no console; `brook broker --console-port` prints where it is.
 */
import { test } from 'node:test';
import fc from 'fast-check';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot, spawnBrook, startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, until } from '../support/clients/run.js';
import { Admin, Consumer, Producer } from '../../src/index.js';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const T = { timeout: 60_000 };

interface Answer<B = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: B;
}

async function call<B = Record<string, unknown>>(port: number, path: string, init: RequestInit = {}): Promise<Answer<B>> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, init);
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) body = JSON.parse(text) as unknown;
  return { status: res.status, headers: res.headers, body: body as B };
}

interface Overview {
  topics: { name: string; sizeBytes: number; partitions: { partition: number; logStartOffset: number; logEndOffset: number; sizeBytes: number }[] }[];
  groups: { groupId: string; type: string; state: string; members: number; generation: number | null; lag: number }[];
  writesEnabled: boolean;
  principal: string;
}

interface GroupPage {
  groupId: string;
  type: string;
  state: string;
  members: { memberId: string; clientId: string; clientHost: string; instanceId: string | null; assignment: Record<string, number[]> }[];
  lag: { topic: string; partition: number; committed: number | null; logEndOffset: number; lag: number | null }[];
  timeline: unknown[];
  inProgress: unknown;
}

test('overview and group page: a topic and a group formed by Brook\'s consumer, as the clients and records say', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ consolePort: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const port = broker.consolePort!;
  assert.ok(port > 0);
  broker.createTopic('orders', 2);

  const producer = new Producer({ bootstrapServers: broker.bootstrap, clientId: 'console-producer' });
  cleanup.add('close producer', () => producer.close());
  for (let i = 0; i < 7; i++) await producer.send({ topic: 'orders', partition: 0, value: Buffer.from(`zero-${i}`) });
  for (let i = 0; i < 3; i++) await producer.send({ topic: 'orders', partition: 1, value: Buffer.from(`one-${i}`) });
  await producer.close();

  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'billing', clientId: 'billing-app', autoOffsetReset: 'earliest', enableAutoCommit: false, fetchMaxWaitMs: 50 });
  cleanup.add('close consumer', () => consumer.close());
  consumer.subscribe(['orders']);
  await until('the consumer has both partitions', 20_000, async () => {
    await consumer.poll({ timeoutMs: 50 });
    return consumer.assignment().length === 2 ? true : undefined;
  });
  await consumer.commitSync([{ topic: 'orders', partition: 0, offset: 2n }, { topic: 'orders', partition: 1, offset: 3n }]);

  const o = await call<Overview>(port, '/api/overview');
  assert.equal(o.status, 200);
  assert.equal(o.headers.get('cache-control'), 'no-store');
  assert.equal(o.body.principal, 'User:ANONYMOUS');
  assert.equal(o.body.writesEnabled, false);
  const orders = o.body.topics.find((x) => x.name === 'orders');
  assert.ok(orders !== undefined, 'the topic is listed');
  assert.deepEqual(orders.partitions.map((p) => [p.partition, p.logStartOffset, p.logEndOffset]), [[0, 0, 7], [1, 0, 3]]);
  assert.ok(orders.partitions.every((p) => p.sizeBytes > 0));
  assert.equal(orders.sizeBytes, orders.partitions[0]!.sizeBytes + orders.partitions[1]!.sizeBytes);
  const billing = o.body.groups.find((g) => g.groupId === 'billing');
  assert.deepEqual(billing && { type: billing.type, state: billing.state, members: billing.members, lag: billing.lag },
    { type: 'classic', state: 'Stable', members: 1, lag: (7 - 2) + (3 - 3) });

  const g = await call<GroupPage>(port, '/api/groups/billing');
  assert.equal(g.status, 200);
  assert.equal(g.body.state, 'Stable');
  assert.equal(g.body.members.length, 1);
  const m = g.body.members[0]!;
  assert.equal(m.clientId, 'billing-app');
  assert.equal(m.clientHost, '/127.0.0.1');
  assert.deepEqual(m.assignment, { orders: [0, 1] });
  assert.deepEqual(g.body.lag.map((l) => [l.topic, l.partition, l.committed, l.logEndOffset, l.lag]), [['orders', 0, 2, 7, 5], ['orders', 1, 3, 3, 0]]);
  // The flight recorder's first generation: the member the client is, joined, owning both partitions.
  const timeline = g.body.timeline as { kind: string; generation?: number; joined: { memberId: string; clientId: string }[]; outcome?: string }[];
  const first = timeline.find((e) => e.kind === 'rebalance' && e.generation === 1);
  assert.ok(first !== undefined, 'generation 1 is in the timeline');
  assert.deepEqual([first.outcome, first.joined.map((j) => [j.memberId, j.clientId])], ['Stable', [[m.memberId, 'billing-app']]]);

  const page = await call(port, '/');
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.body as unknown as string, /<script type="module" src="\/assets\/app\.js">/);
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  assert.equal((await call(port, '/groups/billing')).status, 200, 'the group page is the same document');
  for (const asset of ['app.js', 'timeline.js', 'charts.js', 'html.js', 'style.css']) {
    const a = await call(port, `/assets/${asset}`);
    assert.equal(a.status, 200, asset);
    assert.match(a.headers.get('content-type') ?? '', asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
  }
  const head = await fetch(`http://127.0.0.1:${port}/api/overview`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), '');
});

test('robustness: 404, 405 with Allow, 400 on bad encoding, 414 on a huge URL, odd group ids, writes refused by default', T, async (t) => {
  const broker = await startBrook({ consolePort: 0 });
  t.after(() => broker.stop());
  const port = broker.consolePort!;

  for (const path of ['/nope', '/api/nope', '/api/groups/', '/api/groups/x/y/z', '/assets/../package.json', '/assets/%2e%2e%2fpackage.json', '/groups/a/b']) {
    assert.equal((await call(port, path)).status, 404, path);
  }
  const post = await call(port, '/api/overview', { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD');
  assert.equal((await call(port, '/api/groups/x/reset-offsets')).status, 405);
  assert.equal((await call(port, '/', { method: 'PUT' })).status, 405);
  assert.equal((await call(port, '/api/groups/%E0%A4%A')).status, 400);
  assert.equal((await call(port, `/api/groups/${'x'.repeat(5000)}`)).status, 414);
  assert.equal((await call(port, `/api/groups/x?${'q'.repeat(20_000)}`)).status, 431, 'beyond the header limit: Node refuses it');

  // Group ids a client may choose: with '/', quotes, spaces, non-ASCII, HTML.
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  t.after(() => admin.close());
  broker.createTopic('t', 1);
  const odd = ['a/b', 'we"ird group', '<script>alert(1)</script>', 'ünïcødé', '%41'];
  for (const id of odd) await admin.commitOffsets(id, [{ topic: 't', partition: 0, offset: 0n }]);
  for (const id of odd) {
    const g = await call<GroupPage>(port, `/api/groups/${encodeURIComponent(id)}`);
    assert.equal(g.status, 200, id);
    assert.equal(g.body.groupId, id);
  }
  const missing = await call(port, '/api/groups/no-such-group');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('cache-control'), 'no-store');
  assert.equal((await call(port, '/api/groups/no-such-group/lag-history')).status, 404);

  // Writes are off by default.
  const reset = await call(port, '/api/groups/a%2Fb/reset-offsets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ topic: 't', to: 'latest' }) });
  assert.deepEqual([reset.status, reset.body['error']], [403, 'WRITES_DISABLED']);
  const del = await call(port, '/api/groups/a%2Fb', { method: 'DELETE' });
  assert.deepEqual([del.status, del.body['error']], [403, 'WRITES_DISABLED']);
  assert.ok((await admin.listGroups()).some((g) => g.group === 'a/b'), 'the group is still there');
});

test('writes with console.writes.enable: reset offsets only while Empty (earliest, latest), delete the group; cross-origin and non-JSON refused', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ consolePort: 0, consoleWritesEnable: true });
  cleanup.add('stop broker', () => broker.stop());
  const port = broker.consolePort!;
  broker.createTopic('events', 2);
  const producer = new Producer({ bootstrapServers: broker.bootstrap });
  cleanup.add('close producer', () => producer.close());
  for (let i = 0; i < 5; i++) await producer.send({ topic: 'events', partition: 0, value: Buffer.from(`a${i}`) });
  for (let i = 0; i < 4; i++) await producer.send({ topic: 'events', partition: 1, value: Buffer.from(`b${i}`) });
  await producer.close();
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  // The log of partition 0 now starts at 2.
  await admin.deleteRecords([{ topic: 'events', partition: 0, offset: 2n }]);

  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'audit', enableAutoCommit: false, autoOffsetReset: 'earliest', fetchMaxWaitMs: 50 });
  cleanup.add('close consumer', () => consumer.close());
  consumer.subscribe(['events']);
  await until('the consumer has both partitions', 20_000, async () => {
    await consumer.poll({ timeoutMs: 50 });
    return consumer.assignment().length === 2 ? true : undefined;
  });
  await consumer.commitSync([{ topic: 'events', partition: 0, offset: 3n }, { topic: 'events', partition: 1, offset: 1n }]);

  const json = { 'Content-Type': 'application/json' };
  const reset = (to: string, extra: Record<string, string> = {}): Promise<Answer> =>
    call(port, '/api/groups/audit/reset-offsets', { method: 'POST', headers: { ...json, ...extra }, body: JSON.stringify({ topic: 'events', to }) });
  const busy = await reset('earliest');
  assert.deepEqual([busy.status, busy.body['error']], [409, 'NON_EMPTY_GROUP'], 'a Stable group keeps its offsets');
  const committed = async (): Promise<string[]> => (await admin.committedOffsets('audit')).map((c) => `${c.topic}-${c.partition}@${c.offset}`).sort();
  assert.deepEqual(await committed(), ['events-0@3', 'events-1@1']);
  const del = await call(port, '/api/groups/audit', { method: 'DELETE' });
  assert.deepEqual([del.status, del.body['error']], [409, 'NON_EMPTY_GROUP'], 'a group with members is not deleted');

  await consumer.close();
  assert.equal((await call<GroupPage>(port, '/api/groups/audit')).body.state, 'Empty');
  assert.equal((await reset('sideways')).status, 400);
  assert.equal((await call(port, '/api/groups/audit/reset-offsets', { method: 'POST', headers: json, body: '{not json' })).status, 400);
  assert.equal((await call(port, '/api/groups/audit/reset-offsets', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' })).status, 415);
  assert.equal((await call(port, '/api/groups/audit/reset-offsets', { method: 'POST', headers: json, body: JSON.stringify({ topic: 'nope', to: 'latest' }) })).status, 404);
  const crossSite = await reset('latest', { Origin: 'http://evil.example' });
  assert.deepEqual([crossSite.status, crossSite.body['error']], [403, 'CROSS_ORIGIN']);
  assert.deepEqual(await committed(), ['events-0@3', 'events-1@1'], 'nothing refused changed the offsets');

  const earliest = await reset('earliest', { Origin: `http://127.0.0.1:${port}` });
  assert.equal(earliest.status, 200, JSON.stringify(earliest.body));
  assert.deepEqual(await committed(), ['events-0@2', 'events-1@0'], 'the log start offsets: 2 after DeleteRecords, 0');
  const latest = await reset('latest');
  assert.equal(latest.status, 200);
  assert.deepEqual(await committed(), ['events-0@5', 'events-1@4'], 'the log end offsets: 5 and 4 records produced');
  assert.equal((await call<Overview>(port, '/api/overview')).body.groups.find((g) => g.groupId === 'audit')?.lag, 0);

  const crossDelete = await call(port, '/api/groups/audit', { method: 'DELETE', headers: { Origin: 'http://evil.example' } });
  assert.equal(crossDelete.status, 403);
  const deleted = await call(port, '/api/groups/audit', { method: 'DELETE' });
  assert.deepEqual([deleted.status, deleted.body], [200, { groupId: 'audit', deleted: true }]);
  assert.ok(!(await admin.listGroups()).some((g) => g.group === 'audit'), 'ListGroups no longer lists it');
  assert.equal((await call(port, '/api/groups/audit')).status, 404);
  const again = await call(port, '/api/groups/audit', { method: 'DELETE' });
  assert.deepEqual([again.status, again.body['error']], [404, 'GROUP_ID_NOT_FOUND']);
});

test('no console.port: no console; a taken console port fails the start', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  assert.equal(broker.consolePort, null);
  const first = await startBrook({ consolePort: 0 });
  t.after(() => first.stop());
  await assert.rejects(startBrook({ consolePort: first.consolePort! }), /EADDRINUSE/);
});

test('bin/brook broker --console-port 0 --console-writes true: the console line on stdout; a bad --console-writes value refuses to start (exit 1, as any bad setting)', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await spawnBrook(['--port', '0', '--data-dir', dir.path, '--console-port', '0', '--console-writes', 'true']);
  cleanup.add('kill broker', () => broker.kill());
  const port = await until('the console line', 10_000, async () => {
    const m = /^brook broker console at http:\/\/127\.0\.0\.1:(\d+)\/$/m.exec(broker.stdout());
    return m === null ? undefined : Number(m[1]);
  });
  const o = await call<Overview>(port, '/api/overview');
  assert.deepEqual([o.status, o.body.writesEnabled], [200, true]);
  assert.equal(await broker.stop(), 0);
  await assert.rejects(fetch(`http://127.0.0.1:${port}/`), 'the console stops with the broker');

  const bad = await runProcess(process.execPath, [join(projectRoot, 'bin', 'brook'), 'broker', '--port', '0', '--data-dir', dir.path, '--console-port', '0', '--console-writes', 'maybe'], { timeoutMs: 20_000 });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /Invalid value maybe for configuration --console-writes: Expected value to be either true or false/);
});

test('consumer and share groups: their members and assignments as their heartbeats were answered', T, async (t) => {
  const broker = await startBrook({ consolePort: 0 });
  t.after(() => broker.stop());
  const port = broker.consolePort!;
  broker.createTopic('jobs', 2);
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'raw-member' });
  t.after(() => conn.close());

  const consumerHb = async (memberEpoch: number) => conn.request(Api.ConsumerGroupHeartbeat, {
    groupId: 'kip848', memberId: 'AAAAAAAAAAAAAAAAAAAAAA', memberEpoch, instanceId: memberEpoch === 0 ? 'worker-1' : null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: memberEpoch === 0 ? ['jobs'] : null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: memberEpoch === 0 ? [] : null,
  });
  let hb = await consumerHb(0);
  for (let i = 0; i < 50 && (hb.assignment?.topicPartitions.length ?? 0) === 0; i++) hb = await consumerHb(hb.memberEpoch);
  assert.equal(hb.errorCode, ErrorCode.NONE);
  const given = Object.fromEntries(hb.assignment!.topicPartitions.map((tp) => ['jobs', [...tp.partitions].sort((a, b) => a - b)]));
  const cg = await call<GroupPage & { generation: number }>(port, '/api/groups/kip848');
  assert.equal(cg.status, 200);
  assert.deepEqual([cg.body.type, cg.body.state, cg.body.generation], ['consumer', 'Stable', hb.memberEpoch]);
  assert.deepEqual(cg.body.members.map((m) => [m.memberId, m.instanceId, m.clientId, m.clientHost, (m as unknown as { protocol: string }).protocol, m.assignment]),
    [['AAAAAAAAAAAAAAAAAAAAAA', 'worker-1', 'raw-member', '/127.0.0.1', 'consumer', given]]);
  assert.deepEqual(given, { jobs: [0, 1] });

  const shareHb = async (memberEpoch: number) => conn.request(Api.ShareGroupHeartbeat, {
    groupId: 'queue', memberId: 'BBBBBBBBBBBBBBBBBBBBBB', memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? ['jobs'] : null,
  });
  let share = await shareHb(0);
  for (let i = 0; i < 100 && (share.assignment?.topicPartitions.length ?? 0) === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    share = await shareHb(share.memberEpoch);
  }
  assert.equal(share.errorCode, ErrorCode.NONE);
  const sg = await call<GroupPage>(port, '/api/groups/queue');
  assert.equal(sg.status, 200);
  assert.deepEqual([sg.body.type, sg.body.members.map((m) => [m.memberId, m.clientId, m.assignment])],
    ['share', [['BBBBBBBBBBBBBBBBBBBBBB', 'raw-member', { jobs: share.assignment!.topicPartitions[0]!.partitions.sort((a, b) => a - b) }]]]);
  const listed = (await call<Overview>(port, '/api/overview')).body.groups.map((g) => [g.groupId, g.type, g.members]);
  assert.deepEqual(listed, [['kip848', 'consumer', 1], ['queue', 'share', 1]]);
});

test('any path, method and body: an answer from the expected set, never a server error, and the console keeps serving', T, async (t) => {
  const broker = await startBrook({ consolePort: 0, consoleWritesEnable: true });
  t.after(() => broker.stop());
  const port = broker.consolePort!;
  broker.createTopic('t', 1);
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  t.after(() => admin.close());
  await admin.commitOffsets('g', [{ topic: 't', partition: 0, offset: 0n }]);
  const segment = fc.oneof(
    fc.constantFrom('api', 'groups', 'assets', 'overview', 'events', 'lag-history', 'reset-offsets', 'g', '', '..', '%2F', '%', '%zz', '%E0%A4%A', 'app.js'),
    fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
  );
  await fc.assert(fc.asyncProperty(
    fc.array(segment, { minLength: 1, maxLength: 5 }),
    fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'),
    fc.oneof(fc.constant(undefined), fc.string({ maxLength: 40 }), fc.json().map((j) => j)),
    async (segments, method, body) => {
      // The events stream stays open: left out (its own tests read it).
      const path = `/${segments.join('/')}`;
      if (path === '/api/events' && method === 'GET') return;
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method, headers: { 'Content-Type': 'application/json' }, body: method === 'GET' || method === 'HEAD' ? undefined : body,
      });
      await res.arrayBuffer();
      assert.ok([200, 400, 403, 404, 405, 409, 413, 415].includes(res.status), `${method} ${path}: ${res.status}`);
    },
  ), { numRuns: 300, seed: 20261205 });
  assert.equal((await call(port, '/api/overview')).status, 200, 'still serving');
});
