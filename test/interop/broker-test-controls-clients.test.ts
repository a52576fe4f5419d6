/**
 * The embedded broker's test controls against third-party clients, which only see the wire:
 * - KafkaJS's producer retries through an injected NOT_LEADER_OR_FOLLOWER on Produce and
 *   exactly one record lands (the faulted request appended nothing);
 * - @platformatic/kafka sees an injected error, and a delayed answer;
 * - a KafkaJS group member killed with SIGKILL (a process of its own) leaves the group
 *   exactly when the manual clock passes its session timeout, not a millisecond before;
 * - the hooks show the LeaveGroup a KafkaJS consumer sends when it disconnects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Partitioners } from 'kafkajs';
import type { BrokerRequest, BrokerResponse } from '../../src/index.js';
import type { LeaveGroupRequestData, ProduceResponseData } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { startBrook } from '../support/brook.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { platformaticKafka, PLATFORMATIC_KAFKA } from '../support/clients/platformatic-kafka.js';
import { RawConnection } from '../support/kafka/raw-client.js';

const T = { timeout: 60_000 };
const MEMBER_SCRIPT = fileURLToPath(new URL('../support/clients/kafkajs-group-member.js', import.meta.url));

test('KafkaJS producer retries through an injected NOT_LEADER_OR_FOLLOWER; exactly one record lands', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  broker.createTopic('kjs-retry', 1);
  const produced: BrokerResponse[] = [];
  broker.onResponse((r) => {
    if (r.api === 'Produce') produced.push(r);
  });
  const fault = broker.injectFault({ api: 'Produce', topic: 'kjs-retry', error: 'NOT_LEADER_OR_FOLLOWER' });
  const producer = kafkaJs(broker.bootstrap, 'brook-test-kjs-retry', 3).producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  t.after(() => producer.disconnect());

  const sent = await producer.send({ topic: 'kjs-retry', messages: [{ key: 'k', value: 'once' }] });
  assert.deepEqual(sent.map((m) => [m.partition, m.errorCode, m.baseOffset]), [[0, 0, '0']]);
  assert.deepEqual([fault.hits, fault.remaining], [1, 0]);
  assert.deepEqual(produced.map((r) => [r.injected, (r.body as ProduceResponseData).responses[0]!.partitionResponses[0]!.errorCode]), [
    [true, ErrorCode.NOT_LEADER_OR_FOLLOWER], [false, ErrorCode.NONE],
  ]);
  assert.deepEqual(broker.records('kjs-retry').map((r) => [r.partition, r.offset, r.key?.toString(), r.value?.toString()]), [[0, 0n, 'k', 'once']]);
});

/** The Kafka error codes anywhere in an error, its `errors` and its causes (how @platformatic/kafka nests them). */
function apiCodes(err: unknown, out: number[] = [], depth = 0): number[] {
  if (err === null || typeof err !== 'object' || depth > 6) return out;
  const e = err as { apiCode?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.apiCode === 'number') out.push(e.apiCode);
  if (Array.isArray(e.errors)) for (const inner of e.errors) apiCodes(inner, out, depth + 1);
  apiCodes(e.cause, out, depth + 1);
  return out;
}

test(`${PLATFORMATIC_KAFKA} sees an injected error and a delayed answer`, T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  broker.createTopic('plt-faults', 1);
  const { Producer, stringSerializers } = platformaticKafka;
  const producer = new Producer({ clientId: 'brook-test-plt-faults', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers, retries: 0, autocreateTopics: false });
  t.after(() => producer.close(true));

  const fault = broker.injectFault({ api: 'Produce', topic: 'plt-faults', error: 'TOPIC_AUTHORIZATION_FAILED' });
  const err = await producer.send({ messages: [{ topic: 'plt-faults', value: 'refused' }] }).then(() => null, (e: unknown) => e);
  assert.ok(err !== null, 'the send failed');
  assert.ok(apiCodes(err).includes(ErrorCode.TOPIC_AUTHORIZATION_FAILED), `error codes in ${String(err)}: ${apiCodes(err).join(',')}`);
  assert.equal(fault.hits, 1);
  assert.deepEqual(broker.records('plt-faults'), []);

  const delayMs = 400;
  broker.injectFault({ api: 'Produce', topic: 'plt-faults', delayMs });
  const started = performance.now();
  await producer.send({ messages: [{ topic: 'plt-faults', value: 'late' }] });
  assert.ok(performance.now() - started >= delayMs - 1, `answered after ${performance.now() - started} ms`);
  assert.deepEqual(broker.records('plt-faults').map((r) => r.value?.toString()), ['late']);
});

test('a SIGKILLed KafkaJS member leaves the group exactly when the manual clock passes its session timeout', T, async (t) => {
  const SESSION_TIMEOUT_MS = 20_000;
  const broker = await startBrook({ clock: 'manual' });
  t.after(() => broker.stop());
  broker.createTopic('kjs-killed', 1);
  const child = spawn(process.execPath, [MEMBER_SCRIPT, broker.bootstrap, 'kjs-killed', 'kjs-killed-group', String(SESSION_TIMEOUT_MS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.after(async () => {
    child.kill('SIGKILL');
    await exited;
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
  const memberId = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const e = JSON.parse(line) as { event: string; memberId: string };
      if (e.event === 'joined') resolve(e.memberId);
    });
    child.once('exit', (code) => reject(new Error(`member exited (${code}) before joining: ${stderr}`)));
  });
  await broker.waitForGroupState('kjs-killed-group', 'Stable', { timeoutMs: 20_000 });

  child.kill('SIGKILL');
  await exited;
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(() => conn.close());
  const members = async (): Promise<string[]> =>
    (await conn.request('DescribeGroups', 3, { groups: ['kjs-killed-group'], includeAuthorizedOperations: false })).groups[0]!.members.map((m) => m.memberId);
  assert.deepEqual(await members(), [memberId]);

  // Its last heartbeat came at the manual clock's current time (which real time does not move).
  await broker.advanceTime(SESSION_TIMEOUT_MS - 1);
  assert.deepEqual(await members(), [memberId], 'still a member a millisecond before its session timeout');
  await broker.advanceTime(1);
  assert.deepEqual(await members(), []);
  await broker.waitForGroupState('kjs-killed-group', 'Empty', { timeoutMs: 0 });
});

test('the hooks show the LeaveGroup a KafkaJS consumer sends when it disconnects', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  broker.createTopic('kjs-leave', 1);
  const consumer = kafkaJs(broker.bootstrap, 'brook-test-kjs-leave').consumer({ groupId: 'kjs-leave-group', sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 100 });
  let memberId = '';
  consumer.on(consumer.events.GROUP_JOIN, (e) => void (memberId = e.payload.memberId));
  await consumer.connect();
  await consumer.subscribe({ topics: ['kjs-leave'], fromBeginning: true });
  await consumer.run({ eachMessage: async () => undefined });
  await broker.waitForGroupState('kjs-leave-group', 'Stable', { timeoutMs: 20_000 });
  assert.notEqual(memberId, '');

  const leaves: BrokerRequest[] = [];
  const answers: BrokerResponse[] = [];
  broker.onRequest((r) => {
    if (r.api === 'LeaveGroup') leaves.push(r);
  });
  broker.onResponse((r) => {
    if (r.api === 'LeaveGroup') answers.push(r);
  });
  await consumer.disconnect();

  assert.equal(leaves.length, 1);
  const leave = leaves[0]!;
  assert.equal(leave.clientId, 'brook-test-kjs-leave');
  const body = leave.body as LeaveGroupRequestData;
  assert.equal(body.groupId, 'kjs-leave-group');
  assert.deepEqual(leave.apiVersion >= 3 ? body.members!.map((m) => m.memberId) : [body.memberId], [memberId]);
  assert.equal(answers[0]!.correlationId, leave.correlationId);
  await broker.waitForGroupState('kjs-leave-group', 'Empty', { timeoutMs: 5000 });
});
