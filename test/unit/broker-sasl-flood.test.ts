/**
 * Unauthenticated clients cost bounded memory, and password checks are bounded: while a
 * connection's PLAIN check runs or waits its turn, the broker reads nothing more from it (the
 * client's flood stays in the sockets' buffers); checks beyond the queue fail at once with the
 * connection closed unanswered (Kafka's answer when it cannot authenticate now, which clients
 * retry); unknown users wait and are answered like known ones; a client that does not read
 * its answers is throttled at 64 KiB of them; a connection whose reading did not stop is
 * closed once it holds more than a frame and a read. Logged-in clients still pipeline their
 * requests.
 *
 * The password checks are held by the test itself, occupying the running slots through the
 * broker's own queue, as a flood of other checks would: what is measured is then the state
 * while the connections are open and waiting, not after they closed. Bytes read are the
 * connections' own counters (the socket's bytesRead); nothing here asserts a duration.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import type { Broker } from '../../src/broker/broker.js';
import { Connection, MAX_READ_AHEAD_BEFORE_AUTHENTICATION, MAX_UNWRITTEN_BYTES_BEFORE_AUTHENTICATION } from '../../src/broker/connection.js';
import { ConnectionMonitor, type ConnectionInfo } from '../../src/broker/connection-stats.js';
import { MAX_RUNNING_PASSWORD_CHECKS, MAX_WAITING_PASSWORD_CHECKS } from '../../src/broker/sasl/password-checks.js';
import { SaslAuthenticator } from '../../src/broker/sasl/sasl-authenticator.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Api } from '../../src/protocol/messages/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import { encodePlain } from '../../src/protocol/sasl/plain.js';
import { createLogger } from '../../src/util/log.js';
import { RawClient } from '../support/clients/raw-client.js';
import { loggedIn, saslBroker, saslPort, stillServes } from '../support/sasl-broker.js';

const MiB = 1024 * 1024;
const SASL_MAX_RECEIVE = 524_288;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds; fails with `what` after `ms` (a bound for a hang, not a timing assertion). */
async function until(what: string, condition: () => boolean, state: () => unknown = () => '', ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting for: ${what} ${JSON.stringify(state())}`);
    await sleep(5);
  }
}

/** Occupies every running slot of the broker's password-check queue until `release`. */
function holdPasswordChecks(broker: Broker): { release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  for (let i = 0; i < MAX_RUNNING_PASSWORD_CHECKS; i++) broker.context.passwordChecks.run(() => gate).catch(() => undefined);
  assert.equal(broker.context.passwordChecks.running, MAX_RUNNING_PASSWORD_CHECKS);
  return { release };
}

/** SaslHandshake v1 (PLAIN) and SaslAuthenticate v2, written together without waiting. */
function login(c: RawClient, user: string, password: string): void {
  c.send(Api.SaslHandshake, 1, { mechanism: 'PLAIN' });
  c.send(Api.SaslAuthenticate, 2, { authBytes: encodePlain(user, password) });
}

const saslConnections = (broker: Broker): ConnectionInfo[] => broker.connectionInfo().filter((i) => i.listener === 'SASL_PLAINTEXT');
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

test('64 connections that send a wrong password and then 16 MiB each, without waiting: while their checks wait the broker reads and holds little, serves others, then answers them; a correct login works after', { timeout: 120_000 }, async (t) => {
  const broker = await saslBroker();
  const gate = holdPasswordChecks(broker);
  const clients: RawClient[] = [];
  t.after(async () => {
    gate.release();
    for (const c of clients) c.socket.destroy();
    await broker.stop();
  });
  const idleRss = process.memoryUsage().rss;
  // One buffer for all: the clients' sockets queue it by reference.
  const flood = Buffer.alloc(16 * MiB, 0x2a);
  for (let i = 0; i < 64; i++) {
    const c = new RawClient(saslPort(broker));
    login(c, 'bob', 'wrong');
    c.socket.write(flood);
    clients.push(c);
  }
  const checks = broker.context.passwordChecks;
  await until('every connection waits for its password check, not reading',
    () => checks.waiting === 64 && saslConnections(broker).length === 64 && saslConnections(broker).every((i) => i.readingPaused),
    () => ({ waiting: checks.waiting, read: sum(saslConnections(broker).map((i) => i.bytesRead)) }));

  // The connections are open and their clients still have megabytes to send.
  const infos = saslConnections(broker);
  const maxRead = Math.max(...infos.map((i) => i.bytesRead));
  // The login, the read that brought it and what the socket read ahead before stopping: a few 64 KiB reads, not 16 MiB.
  assert.ok(maxRead <= 1 * MiB, `one connection read ${maxRead} bytes`);
  assert.ok(sum(infos.map((i) => i.bufferedRequestBytes)) <= 64 * 256 * 1024, `held ${sum(infos.map((i) => i.bufferedRequestBytes))} bytes`);
  assert.ok(process.memoryUsage().rss - idleRss < 256 * MiB, `RSS grew by ${process.memoryUsage().rss - idleRss} bytes`);
  assert.ok(clients.every((c) => c.socket.writableLength > 0), 'the clients still hold what they could not send');

  // Meanwhile the broker serves others (the PLAINTEXT listener: a login would wait its turn too).
  const other = new RawClient(broker.port);
  other.send(Api.Metadata, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  assert.equal((await other.response<{ brokers: unknown[] }>(Api.Metadata, 12)).brokers.length, 1);
  other.socket.destroy();

  // Once the checks run, each flooding client gets its answer and is closed.
  gate.release();
  for (const c of clients) {
    assert.equal((await c.response<{ errorCode: number }>(Api.SaslHandshake, 1)).errorCode, ErrorCode.NONE);
    const refused = await c.response<{ errorCode: number; errorMessage: string }>(Api.SaslAuthenticate, 2);
    assert.deepEqual([refused.errorCode, refused.errorMessage], [ErrorCode.SASL_AUTHENTICATION_FAILED, 'Authentication failed: Invalid username or password']);
    await c.closed;
  }
  assert.equal(broker.stats.connections.failedAuthentication, 64);
  await stillServes(broker);
});

test('password checks beyond the queue fail at once, closing the connection unanswered (counted, logged); the waiting ones, unknown users included, are answered in turn; a correct login works after', { timeout: 120_000 }, async (t) => {
  const lines: string[] = [];
  const broker = await saslBroker({ log: createLogger('broker', 'info', (line) => lines.push(line)) });
  const gate = holdPasswordChecks(broker);
  const waiting: { client: RawClient; user: string; password: string }[] = [];
  t.after(async () => {
    gate.release();
    for (const w of waiting) w.client.socket.destroy();
    await broker.stop();
  });
  for (let i = 0; i < MAX_WAITING_PASSWORD_CHECKS; i++) {
    // A third each: bob's password, a wrong one, an unknown user.
    const [user, password] = i % 3 === 0 ? ['bob', 'bob-secret'] : i % 3 === 1 ? ['bob', `wrong-${i}`] : [`nobody-${i}`, 'bob-secret'];
    const client = new RawClient(saslPort(broker));
    login(client, user, password);
    waiting.push({ client, user, password });
  }
  const checks = broker.context.passwordChecks;
  // Unknown users are queued like known ones: no early answer tells them apart.
  await until('the queue is full', () => checks.waiting === MAX_WAITING_PASSWORD_CHECKS, () => checks.waiting);

  // One more (SaslHandshake v1, then SaslHandshake v0 with a raw token): handshake answered, the token not, the connection closed.
  const extra = new RawClient(saslPort(broker));
  login(extra, 'bob', 'bob-secret');
  assert.equal((await extra.response<{ errorCode: number }>(Api.SaslHandshake, 1)).errorCode, ErrorCode.NONE);
  assert.equal(await extra.frame(), null, 'closed without a SaslAuthenticate response');
  const raw = new RawClient(saslPort(broker));
  raw.send(Api.SaslHandshake, 0, { mechanism: 'PLAIN' });
  assert.equal((await raw.response<{ errorCode: number }>(Api.SaslHandshake, 0)).errorCode, ErrorCode.NONE);
  raw.sendRaw(encodePlain('bob', 'bob-secret'));
  assert.equal(await raw.frame(), null, 'closed without a raw token');
  assert.equal(checks.waiting, MAX_WAITING_PASSWORD_CHECKS);
  assert.equal(broker.stats.connections.closedAuthenticationBusy, 2);
  assert.equal(broker.stats.connections.failedAuthentication, 0, 'not an authentication failure: the client may retry');
  assert.ok(lines.some((l) => l.includes('too many password checks waiting') && l.includes('listener=SASL_PLAINTEXT')), lines.join('\n'));

  gate.release();
  for (const { client, user, password } of waiting) {
    assert.equal((await client.response<{ errorCode: number }>(Api.SaslHandshake, 1)).errorCode, ErrorCode.NONE);
    const answer = await client.response<{ errorCode: number; errorMessage: string | null }>(Api.SaslAuthenticate, 2);
    if (user === 'bob' && password === 'bob-secret') {
      assert.equal(answer.errorCode, ErrorCode.NONE);
      client.socket.destroy();
    } else {
      // The same answer for an unknown user as for a wrong password.
      assert.deepEqual([answer.errorCode, answer.errorMessage], [ErrorCode.SASL_AUTHENTICATION_FAILED, 'Authentication failed: Invalid username or password'], user);
      await client.closed;
    }
  }
  assert.equal(checks.waiting, 0);
  await stillServes(broker);
});

test('before authentication, a client that pipelines ApiVersions and never reads is throttled at 64 KiB of unread answers, not 16 MiB', { timeout: 60_000 }, async (t) => {
  const broker = await saslBroker();
  const c = new RawClient(saslPort(broker));
  t.after(async () => {
    c.socket.destroy();
    await broker.stop();
  });
  c.socket.pause(); // never reads
  // ~25 MB of answers: more than the kernel's socket buffers on both sides take.
  for (let i = 0; i < 40_000; i++) c.send(Api.ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  await until('the connection stops reading', () => saslConnections(broker)[0]?.readingPaused === true, () => saslConnections(broker)[0]);
  const info = saslConnections(broker)[0]!;
  assert.ok(info.peakUnwrittenBytes >= MAX_UNWRITTEN_BYTES_BEFORE_AUTHENTICATION && info.peakUnwrittenBytes < MAX_UNWRITTEN_BYTES_BEFORE_AUTHENTICATION + 4096, `unwritten ${info.peakUnwrittenBytes}`);
  assert.ok(info.throttled >= 1);
  assert.ok(info.bufferedRequestBytes <= 256 * 1024, `held ${info.bufferedRequestBytes}`);
});

test('a connection whose reading does not stop is closed once it holds more than a frame and a read before authenticating', { timeout: 60_000 }, async (t) => {
  const lines: string[] = [];
  const log = createLogger('broker', 'info', (line) => lines.push(line));
  const broker = await saslBroker();
  const gate = holdPasswordChecks(broker);
  const monitor = new ConnectionMonitor(log, 10);
  let connection: Connection | null = null;
  // The broker's connection on a socket whose pause() does nothing: as if reading could not stop.
  const server = createServer((socket: Socket) => {
    socket.pause = () => socket;
    const sasl = new SaslAuthenticator({ mechanisms: ['PLAIN'], jaasPlain: new Map() }, broker.context.credentials, broker.context.passwordChecks);
    connection = new Connection(socket, broker.context, monitor, { listener: 'SASL_PLAINTEXT', principal: 'User:ANONYMOUS', sasl }, () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = new RawClient((server.address() as AddressInfo).port);
  t.after(async () => {
    gate.release();
    client.socket.destroy();
    server.close();
    await broker.stop();
  });
  login(client, 'bob', 'wrong');
  client.socket.write(Buffer.alloc(16 * MiB, 0x2a));
  await client.closed;
  const limit = 4 + SASL_MAX_RECEIVE + MAX_READ_AHEAD_BEFORE_AUTHENTICATION;
  const peak = connection!.info().peakBufferedRequestBytes;
  assert.ok(peak > limit && peak <= limit + 64 * 1024, `held at most a read beyond the limit: ${peak}`);
  assert.equal(monitor.stats.failedAuthentication, 1);
  assert.ok(lines.some((l) => l.includes('failed authentication') && l.includes('held before authentication')), lines.join('\n'));
});

test('a logged-in client pipelines: Produce requests sent with its login, before the answer, and 200 more after it are all answered in order', { timeout: 60_000 }, async (t) => {
  const broker = await saslBroker();
  t.after(() => broker.stop());
  const admin = await loggedIn(broker);
  admin.send(Api.CreateTopics, 5, { topics: [{ name: 'p', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  assert.equal((await admin.response<{ topics: { errorCode: number }[] }>(Api.CreateTopics, 5)).topics[0]!.errorCode, ErrorCode.NONE);
  admin.socket.destroy();

  const produce = (i: number) => ({
    transactionalId: null, acks: i % 2 === 0 ? -1 : 1, timeoutMs: 5000,
    topicData: [{ name: 'p', partitionData: [{ index: 0, records: encodeRecordBatch({ records: [{ value: Buffer.from(`v${i}`) }] }) }] }],
  });
  const c = new RawClient(saslPort(broker));
  login(c, 'bob', 'bob-secret');
  for (let i = 0; i < 10; i++) c.send(Api.Produce, 9, produce(i));
  assert.equal((await c.response<{ errorCode: number }>(Api.SaslHandshake, 1)).errorCode, ErrorCode.NONE);
  assert.equal((await c.response<{ errorCode: number }>(Api.SaslAuthenticate, 2)).errorCode, ErrorCode.NONE);
  for (let i = 10; i < 210; i++) c.send(Api.Produce, 9, produce(i));
  type Produced = { responses: { partitionResponses: { errorCode: number; baseOffset: bigint }[] }[] };
  for (let i = 0; i < 210; i++) {
    const p = (await c.response<Produced>(Api.Produce, 9)).responses[0]!.partitionResponses[0]!;
    assert.deepEqual([p.errorCode, p.baseOffset], [ErrorCode.NONE, BigInt(i)]);
  }
  assert.equal(broker.connectionInfo().find((i) => i.principal === 'User:bob')!.throttled, 0);
  c.socket.destroy();
});
