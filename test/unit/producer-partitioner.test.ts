/** murmur2 against the vectors in Kafka's UtilsTest, and how the producer picks partitions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { murmur2, partitionForKey, toPositive } from '../../src/client/producer/murmur2.js';
import { partitionForKeyInput, StickyPartitioner } from '../../src/client/producer/partitioner.js';

test('murmur2 matches Kafka UtilsTest.testMurmur2', () => {
  const cases: [Uint8Array, number][] = [
    [Buffer.from('21'), -973932308],
    [Buffer.from('foobar'), -790332482],
    [Buffer.from('a-little-bit-long-string'), -985981536],
    [Buffer.from('a-little-bit-longer-string'), -1486304829],
    [Buffer.from('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'), -58897971],
    [Uint8Array.from([0x61, 0x62, 0x63]), 479470107],
  ];
  for (const [bytes, expected] of cases) assert.equal(murmur2(bytes), expected, Buffer.from(bytes).toString());
});

test('murmur2 over a slice equals murmur2 over a copy; toPositive clears the sign bit only', () => {
  const big = Buffer.from('xxfoobaryy');
  assert.equal(murmur2(big, 2, 8), murmur2(Buffer.from('foobar')));
  assert.equal(toPositive(-1), 0x7fffffff);
  assert.equal(toPositive(-2147483648), 0);
  assert.equal(toPositive(5), 5);
});

test('keyed partition: string keys hash their UTF-8 bytes; the empty key is a key', () => {
  for (const key of ['', 'a', 'ключ', '🔑 key', 'x'.repeat(1000)]) {
    for (const n of [1, 3, 6, 12, 100]) {
      const expected = toPositive(murmur2(Buffer.from(key, 'utf8'))) % n;
      assert.equal(partitionForKeyInput(key, n), expected);
      assert.equal(partitionForKey(Buffer.from(key, 'utf8'), n), expected);
    }
  }
});

test('sticky partitioner: stays on one partition until batchSize bytes went there, then moves to another with a leader', () => {
  let r = 0;
  const randoms = [0.1, 0.6, 0.3, 0.9];
  const sticky = new StickyPartitioner(100, () => randoms[r++ % randoms.length]!);
  const available = (p: number): boolean => p !== 3;
  const first = sticky.partition('t', 4, available);
  for (let i = 0; i < 9; i++) {
    assert.equal(sticky.partition('t', 4, available), first);
    sticky.onAppend('t', first, 10);
  }
  sticky.onAppend('t', first, 10);
  const second = sticky.partition('t', 4, available);
  assert.notEqual(second, first);
  assert.notEqual(second, 3, 'partitions without a leader are avoided');
  // With one partition, it stays.
  const one = new StickyPartitioner(1);
  assert.equal(one.partition('u', 1, () => true), 0);
  one.onAppend('u', 0, 5);
  assert.equal(one.partition('u', 1, () => true), 0);
});
