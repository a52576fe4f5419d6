/**
 * A paused broker: requests are taken (the request hook sees them) but not handled (nothing
 * is appended) nor answered until resume(); then they are handled in the order they came and
 * each connection's answers go out in request order. A new connection is accepted but its
 * first request waits too. A paused broker stops.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, type BrokerRequest } from '../../src/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import type { ProduceRequestData } from '../../src/protocol/messages/index.js';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';

const T = { timeout: 20_000 };

function produce(value: string, acks = -1): ProduceRequestData {
  return { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: 'paused', partitionData: [{ index: 0, records: encodeRecordBatch({ records: [{ value: Buffer.from(value) }] }) }] }] };
}

/** Resolves once the request hook has seen `n` requests of `api` (deterministic: no time is waited on). */
function seen(broker: Awaited<ReturnType<typeof startBrook>>, api: string, n: number): Promise<void> {
  let count = 0;
  return new Promise((resolve) => {
    const off = broker.onRequest((r: BrokerRequest) => {
      if (r.api === api && ++count === n) {
        off();
        resolve();
      }
    });
  });
}

test('paused: requests are taken but neither handled nor answered; resumed: handled in order, answered in order', T, async (t) => {
  const broker = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  broker.createTopic('paused', 1);
  broker.pause();
  assert.equal(broker.paused, true);
  broker.pause();

  const answered: string[] = [];
  const took = Promise.all([seen(broker, 'Produce', 3), seen(broker, 'Metadata', 1)]);
  const first = conn.request('Produce', 9, produce('one')).then((r) => (answered.push('produce one'), r));
  const unanswered = conn.request('Produce', 9, produce('two', 0));
  const second = conn.request('Produce', 9, produce('three')).then((r) => (answered.push('produce three'), r));
  const metadata = conn.request('Metadata', 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }).then((r) => (answered.push('metadata'), r));
  await took;
  assert.deepEqual(answered, []);
  assert.deepEqual(broker.records('paused'), [], 'nothing handled while paused');

  broker.resume();
  assert.equal(broker.paused, false);
  const [a, b, md] = await Promise.all([first, second, metadata]);
  await unanswered;
  assert.deepEqual(answered, ['produce one', 'produce three', 'metadata'], 'answers in request order');
  assert.deepEqual([a!.responses[0]!.partitionResponses[0]!.baseOffset, b!.responses[0]!.partitionResponses[0]!.baseOffset], [0n, 2n]);
  assert.equal(md.topics[0]!.errorCode, ErrorCode.NONE);
  assert.deepEqual(broker.records('paused').map((r) => `${r.offset}:${r.value!.toString()}`), ['0:one', '1:two', '2:three'], 'handled in the order they came');
});

test('a connection made while paused is accepted and its requests wait; a paused broker stops', T, async (t) => {
  const broker = await startBrook();
  broker.pause();
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(() => conn.close());
  let versions = false;
  const took = seen(broker, 'ApiVersions', 1);
  const asked = conn.request('ApiVersions', 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' }).then((r) => ((versions = true), r));
  await took;
  assert.equal(versions, false);
  broker.resume();
  assert.equal((await asked).errorCode, ErrorCode.NONE);

  broker.pause();
  const never = conn.request('Metadata', 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }).then(() => 'answered', () => 'closed');
  await seen(broker, 'Metadata', 1);
  await broker.stop();
  assert.equal(await never, 'closed');
});
