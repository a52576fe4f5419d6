/**
 * Consumer.pollViews: records as views of the fetched bytes. Against Brook's broker over
 * real sockets: the views of a topic read exactly like poll()'s records of the same topic
 * (another group), keys and values are views of the fetched data (no copies), the lazy
 * fields are made once, and positions and commits move as with poll(): a record counts as
 * consumed (committed by a commit without offsets) only at the next call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer, ConsumerRecordView, type ConsumerRecord } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { createTopic, produce } from '../support/consumer-helpers.js';
import { Cluster } from '../../src/client/cluster.js';
import { Api } from '../../src/protocol/messages/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';

const plain = (r: ConsumerRecord): unknown => ({ ...r, key: r.key?.toString('hex') ?? null, value: r.value?.toString('hex') ?? null, headers: r.headers.map((h) => [h.key, h.value?.toString('hex') ?? null]) });

async function drain<T>(poll: () => Promise<T[]>, count: number): Promise<T[]> {
  const out: T[] = [];
  const deadline = Date.now() + 20_000;
  while (out.length < count) {
    assert.ok(Date.now() < deadline, `got ${out.length} of ${count}`);
    out.push(...await poll());
  }
  return out;
}

test('pollViews gives the records poll() gives, as lazy views of the fetched bytes', { timeout: 60_000 }, async () => {
  const broker = await startBrook();
  const a = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'views', autoOffsetReset: 'earliest', fetchMaxWaitMs: 50 });
  const b = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'records', autoOffsetReset: 'earliest', fetchMaxWaitMs: 50 });
  try {
    await createTopic(broker.bootstrap, 'v', 2);
    await produce(broker.bootstrap, 'v', 0, Array.from({ length: 30 }, (_, i) => `a${i}`));
    await produce(broker.bootstrap, 'v', 1, Array.from({ length: 20 }, (_, i) => `b${i}`), { keys: false });
    // A record with headers and a null value.
    const cluster = new Cluster({ bootstrapServers: broker.bootstrap });
    try {
      const connection = await cluster.connectionToNode(await cluster.leaderFor('v', 1));
      await connection.request(Api.Produce, {
        transactionalId: null, acks: -1, timeoutMs: 10_000,
        topicData: [{ name: 'v', partitionData: [{ index: 1, records: encodeRecordBatch({ records: [{ key: Buffer.from('k'), value: null, headers: [{ key: 'h1', value: Buffer.from('x') }, { key: 'h2', value: null }], timestamp: 1_700_000_000_000 }] }) }] }],
      });
    } finally {
      cluster.close();
    }
    a.subscribe(['v']);
    b.subscribe(['v']);
    const views = await drain(() => a.pollViews({ timeoutMs: 200 }), 51);
    const records = await drain(() => b.poll({ timeoutMs: 200 }), 51);
    const byPosition = <T extends { partition: number; offset: bigint }>(xs: T[]): T[] => [...xs].sort((x, y) => x.partition - y.partition || Number(x.offset - y.offset));
    assert.deepEqual(byPosition(views).map((v) => plain(v.toRecord())), byPosition(records).map(plain));
    const withHeaders = views.find((v) => v.headers.length > 0)!;
    assert.deepEqual(withHeaders.headers.map((h) => [h.key, h.value?.toString() ?? null]), [['h1', 'x'], ['h2', null]]);
    assert.equal(withHeaders.value, null);
    assert.equal(withHeaders.valueSize, -1);
    const v = views[0]!;
    assert.ok(v instanceof ConsumerRecordView);
    assert.equal(v.value, v.value, 'a lazy field is made once');
    assert.equal(v.valueSize, v.value!.length);
    assert.equal(v.offset, BigInt(v.offsetNumber));
    // A view, not a copy: it shares memory with the other records of its batch.
    assert.equal(v.value!.buffer, views.find((w) => w !== v && w.partition === v.partition)!.value!.buffer);
    assert.deepEqual(JSON.parse(JSON.stringify(v)), JSON.parse(JSON.stringify({ ...v.toRecord(), offset: v.offset.toString() })));
  } finally {
    await a.close();
    await b.close();
    await broker.stop();
  }
});

test('pollViews: the records of a poll count as consumed at the next call, as with poll()', { timeout: 60_000 }, async () => {
  const broker = await startBrook();
  const c = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'g', autoOffsetReset: 'earliest', enableAutoCommit: false, maxPollRecords: 10, fetchMaxWaitMs: 50 });
  try {
    await createTopic(broker.bootstrap, 'w', 1);
    await produce(broker.bootstrap, 'w', 0, Array.from({ length: 25 }, (_, i) => `r${i}`));
    c.subscribe(['w']);
    const first = await drain(() => c.pollViews({ timeoutMs: 200 }), 1);
    assert.equal(first.length, 10, 'maxPollRecords');
    await c.commitSync();
    const tp = [{ topic: 'w', partition: 0 }];
    assert.equal((await c.committed(tp)).values().next().value, 0n, 'none of the poll\'s records is consumed before the next call');
    const second = await c.pollViews({ timeoutMs: 1_000 });
    assert.equal(second[0]!.offsetNumber, 10);
    await c.commitSync();
    assert.equal((await c.committed(tp)).values().next().value, 10n, 'the first poll\'s records, once the next call came');
  } finally {
    await c.close();
    await broker.stop();
  }
});
