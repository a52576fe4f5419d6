/**
 * The consumer's incremental fetch sessions (KIP-227). FetchSessionHandler alone, against
 * the rules of Java's FetchSessionHandler (what a full and an incremental request carry,
 * what each kind of answer does to the next request); then Brook's consumer against Brook's
 * broker over real sockets: it opens a session, continues it with consecutive epochs and
 * only changed partitions, recovers from the broker losing the session or expecting
 * another epoch (a full request, nothing lost or given twice), and closes it on close().
 */
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { FetchSessionHandler, type SessionPartition } from '../../src/client/consumer/fetch-session.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';
import { Consumer } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { createTopic, produceSpread, valueOf } from '../support/consumer-helpers.js';
import { recordingFactory, type FetchExchange } from '../support/fetch-recorder.js';

function part(partition: number, fetchOffset: bigint, topicId = ZERO_UUID): SessionPartition {
  return { topic: 't', topicId, partition, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, lastFetchedEpoch: -1, logStartOffset: -1n };
}

function next(...parts: SessionPartition[]): Map<string, SessionPartition> {
  return new Map(parts.map((p) => [`t:${p.partition}`, p]));
}

const offsets = (ps: readonly SessionPartition[]): string[] => ps.map((p) => `${p.partition}@${p.fetchOffset}`);

describe('FetchSessionHandler', () => {
  it('a full request first; once the broker opens a session, only new and changed partitions and the forgotten ones', () => {
    const h = new FetchSessionHandler();
    const full = h.build(next(part(0, 0n), part(1, 0n), part(2, 0n)), false);
    assert.deepEqual([full.sessionId, full.sessionEpoch, full.full], [0, 0, true]);
    assert.deepEqual(offsets(full.toSend), ['0@0', '1@0', '2@0']);
    assert.equal(h.handleResponse(full, ErrorCode.NONE, 77, ['t:0', 't:1', 't:2']), true);
    // Partition 0 moved on, 1 is unchanged, 2 is gone, 3 is new.
    const inc = h.build(next(part(0, 5n), part(1, 0n), part(3, 0n)), false);
    assert.deepEqual([inc.sessionId, inc.sessionEpoch, inc.full], [77, 1, false]);
    assert.deepEqual(offsets(inc.toSend), ['0@5', '3@0']);
    assert.deepEqual(offsets(inc.toForget), ['2@0']);
    assert.equal(h.handleResponse(inc, ErrorCode.NONE, 77, ['t:1']), true, 'an answer for an unchanged session partition is fine');
    const again = h.build(next(part(0, 5n), part(1, 0n), part(3, 0n)), false);
    assert.deepEqual([again.sessionEpoch, again.toSend.length, again.toForget.length], [2, 0, 0]);
  });

  it('no session from the broker (id 0): every request is a full one asking for one', () => {
    const h = new FetchSessionHandler();
    const first = h.build(next(part(0, 0n)), false);
    assert.equal(h.handleResponse(first, ErrorCode.NONE, 0, ['t:0']), true);
    const second = h.build(next(part(0, 3n)), false);
    assert.deepEqual([second.sessionId, second.sessionEpoch, second.full], [0, 0, true]);
  });

  it('FETCH_SESSION_ID_NOT_FOUND drops the session: a full request without an id, the answer not used', () => {
    const h = new FetchSessionHandler();
    h.handleResponse(h.build(next(part(0, 0n)), false), ErrorCode.NONE, 9, ['t:0']);
    const inc = h.build(next(part(0, 1n)), false);
    assert.equal(h.handleResponse(inc, ErrorCode.FETCH_SESSION_ID_NOT_FOUND, 0, []), false);
    const full = h.build(next(part(0, 1n)), false);
    assert.deepEqual([full.sessionId, full.sessionEpoch, full.full], [0, 0, true]);
    assert.deepEqual(offsets(full.toSend), ['0@1']);
  });

  it('INVALID_FETCH_SESSION_EPOCH, a failed request, or an answer for a partition never asked: a full request closing the session', () => {
    for (const fail of ['epoch', 'error', 'unexpected'] as const) {
      const h = new FetchSessionHandler();
      h.handleResponse(h.build(next(part(0, 0n)), false), ErrorCode.NONE, 9, ['t:0']);
      const inc = h.build(next(part(0, 1n)), false);
      if (fail === 'epoch') assert.equal(h.handleResponse(inc, ErrorCode.INVALID_FETCH_SESSION_EPOCH, 0, []), false);
      else if (fail === 'error') h.handleError();
      else assert.equal(h.handleResponse(inc, ErrorCode.NONE, 9, ['t:5']), false);
      const full = h.build(next(part(0, 1n)), false);
      assert.deepEqual([full.sessionId, full.sessionEpoch, full.full], [9, 0, true], fail);
    }
  });

  it('the broker closing the session in an incremental answer: the answer counts, the next request is full', () => {
    const h = new FetchSessionHandler();
    h.handleResponse(h.build(next(part(0, 0n)), false), ErrorCode.NONE, 9, ['t:0']);
    const inc = h.build(next(part(0, 2n)), false);
    assert.equal(h.handleResponse(inc, ErrorCode.NONE, 0, ['t:0']), true);
    assert.deepEqual(h.build(next(part(0, 2n)), false).sessionEpoch, 0);
    assert.equal(h.takeForClose(), null);
  });

  it('a recreated topic (new id) is forgotten under its old id and sent with the new one (Fetch v13+)', () => {
    const h = new FetchSessionHandler();
    const oldId = '00000000-0000-0000-0000-000000000001';
    const newId = '00000000-0000-0000-0000-000000000002';
    h.handleResponse(h.build(next(part(0, 4n, oldId)), true), ErrorCode.NONE, 9, ['t:0']);
    const inc = h.build(next(part(0, 0n, newId)), true);
    assert.deepEqual(inc.toForget.map((p) => p.topicId), [oldId]);
    assert.deepEqual(inc.toSend.map((p) => p.topicId), [newId]);
  });
});

/** Consumes until `count` records; returns their values by partition, in order. */
async function consumeAll(consumer: Consumer, count: number, timeoutMs = 20_000): Promise<Map<number, string[]>> {
  const byPartition = new Map<number, string[]>();
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  while (seen < count) {
    if (Date.now() > deadline) throw new Error(`consumed ${seen} of ${count}`);
    for (const r of await consumer.poll({ timeoutMs: 100 })) {
      const list = byPartition.get(r.partition) ?? [];
      list.push(valueOf(r));
      byPartition.set(r.partition, list);
      seen++;
    }
  }
  return byPartition;
}

function expected(partitions: number, perPartition: number, tags: string[]): Map<number, string[]> {
  return new Map(Array.from({ length: partitions }, (_, p) => [p, tags.flatMap((tag) => Array.from({ length: perPartition }, (_, i) => `${tag}p${p}-${i}`))]));
}

test('the consumer opens a fetch session, continues it with consecutive epochs and closes it on close()', { timeout: 60_000 }, async () => {
  const broker = await startBrook();
  const exchanges: FetchExchange[] = [];
  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'g', autoOffsetReset: 'earliest', fetchMaxWaitMs: 50, connectionFactory: recordingFactory(exchanges) });
  try {
    await createTopic(broker.bootstrap, 's', 3);
    await produceSpread(broker.bootstrap, 's', 3, 50, 'a');
    consumer.subscribe(['s']);
    const first = await consumeAll(consumer, 150);
    await produceSpread(broker.bootstrap, 's', 3, 50, 'b');
    const second = await consumeAll(consumer, 150);
    for (const [p, values] of second) first.set(p, [...first.get(p)!, ...values]);
    assert.deepEqual(new Map([...first].sort((a, b) => a[0] - b[0])), expected(3, 50, ['a', 'b']), 'every record once, in order');
    // Polls at the end fetch on in the session (each answered after fetchMaxWaitMs): on a slow
    // machine the records above may have come in as few as one fetch after the session opened.
    const answeredInSession = (): number => exchanges.filter((e) => e.answer !== undefined && e.sessionId !== 0).length;
    for (let i = 0; i < 50 && answeredInSession() < 3; i++) assert.deepEqual(await consumer.poll({ timeoutMs: 100 }), []);
    const opened = exchanges.findIndex((e) => (e.answer?.sessionId ?? 0) !== 0);
    assert.ok(opened >= 0, 'the broker opened a session');
    assert.deepEqual([exchanges[opened]!.sessionId, exchanges[opened]!.epoch], [0, 0], 'opened by a full request');
    const id = exchanges[opened]!.answer!.sessionId;
    const later = exchanges.slice(opened + 1).filter((e) => e.answer !== undefined);
    assert.ok(later.length >= 2, 'incremental requests followed');
    later.forEach((e, i) => assert.deepEqual([e.sessionId, e.epoch, e.answer!.errorCode], [id, i + 1, ErrorCode.NONE], `request ${i + 1} after the full one`));
    // Idle partitions are not sent again: some incremental request carried fewer than all three.
    assert.ok(later.some((e) => e.sent.length < 3), `incremental requests send only changed partitions: ${later.map((e) => e.sent.join(',')).join(' | ')}`);
    assert.equal(broker.context.fetchSessions.size, 1);
    await consumer.close();
    assert.equal(broker.context.fetchSessions.size, 0, 'close() closed the session');
    assert.deepEqual([exchanges.at(-1)!.sessionId, exchanges.at(-1)!.epoch], [id, -1]);
  } finally {
    await consumer.close();
    await broker.stop();
  }
});

test('a session the broker lost or whose epoch it no longer expects: a full request, nothing lost or given twice', { timeout: 60_000 }, async () => {
  const broker = await startBrook();
  const exchanges: FetchExchange[] = [];
  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'g', autoOffsetReset: 'earliest', fetchMaxWaitMs: 50, connectionFactory: recordingFactory(exchanges) });
  try {
    await createTopic(broker.bootstrap, 's', 2);
    consumer.subscribe(['s']);
    const seen = new Map<number, string[]>();
    const add = (m: Map<number, string[]>): void => { for (const [p, v] of m) seen.set(p, [...(seen.get(p) ?? []), ...v]); };
    await produceSpread(broker.bootstrap, 's', 2, 20, 'a');
    add(await consumeAll(consumer, 40));
    const sessions = broker.context.fetchSessions;
    const id = exchanges.find((e) => (e.answer?.sessionId ?? 0) !== 0)!.answer!.sessionId;
    // The broker loses the session (as after a restart or an eviction).
    assert.equal(sessions.remove(id), true);
    await produceSpread(broker.bootstrap, 's', 2, 20, 'b');
    add(await consumeAll(consumer, 40));
    const notFound = exchanges.findIndex((e) => e.answer?.errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    assert.ok(notFound >= 0, 'the broker answered FETCH_SESSION_ID_NOT_FOUND');
    assert.deepEqual([exchanges[notFound + 1]!.sessionId, exchanges[notFound + 1]!.epoch], [0, 0], 'then a full request without the id');
    // The broker expects another epoch than the one the consumer sends next.
    const newId = exchanges.slice(notFound + 1).find((e) => (e.answer?.sessionId ?? 0) !== 0)!.answer!.sessionId;
    sessions.get(newId)!.epoch += 5;
    await produceSpread(broker.bootstrap, 's', 2, 20, 'c');
    add(await consumeAll(consumer, 40));
    const invalid = exchanges.findIndex((e) => e.answer?.errorCode === ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    assert.ok(invalid > notFound, 'the broker answered INVALID_FETCH_SESSION_EPOCH');
    assert.deepEqual([exchanges[invalid + 1]!.sessionId, exchanges[invalid + 1]!.epoch], [newId, 0], 'then a full request closing that session');
    assert.deepEqual(new Map([...seen].sort((a, b) => a[0] - b[0])), expected(2, 20, ['a', 'b', 'c']), 'every record once, in order');
    assert.equal(sessions.get(newId), undefined, 'the old session was closed');
  } finally {
    await consumer.close();
    await broker.stop();
  }
});
