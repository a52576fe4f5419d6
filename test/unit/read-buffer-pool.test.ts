/**
 * ReadBufferPool: reads of one response come from shared slabs, and a slab is reused only
 * once every read taken from it has been released.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadBufferPool } from '../../src/storage/read-buffer-pool.js';

test('buffers handed out and not released never overlap; a released slab is reused from its start', () => {
  const pool = new ReadBufferPool({ slabBytes: 1000 });
  const a = pool.lease();
  const b = pool.lease();
  const x = a.allocate(200);
  const y = b.allocate(200);
  const z = a.allocate(50);
  x.fill(1);
  y.fill(2);
  z.fill(3);
  assert.ok(x.every((v) => v === 1) && y.every((v) => v === 2) && z.every((v) => v === 3), 'no overlap');
  a.release();
  const c = pool.lease();
  c.allocate(100).fill(4);
  assert.ok(y.every((v) => v === 2), 'a slab with a live read is not rewound');
  b.release();
  c.release();
  const again = pool.lease().allocate(10);
  assert.equal(again.buffer, x.buffer);
  assert.equal(again.byteOffset, x.byteOffset, "the slab starts over once nothing in it is live");
  assert.equal(pool.slabsCreated, 1);
});

test('a full slab is retired and comes back through the free list once its reads are released', () => {
  const pool = new ReadBufferPool({ slabBytes: 1000, maxFreeSlabs: 1 });
  const first = pool.lease();
  first.allocate(250);
  first.allocate(250);
  first.allocate(250);
  first.allocate(250);
  const second = pool.lease();
  const onSecondSlab = second.allocate(100);
  assert.equal(pool.slabsCreated, 2);
  first.release();
  second.release();
  const third = pool.lease();
  for (let i = 0; i < 8; i++) third.allocate(250);
  assert.equal(pool.slabsCreated, 2, 'both slabs reused');
  assert.equal(onSecondSlab.length, 100);
});

test('a read larger than a quarter slab gets its own buffer; release is idempotent', () => {
  const pool = new ReadBufferPool({ slabBytes: 1000 });
  const lease = pool.lease();
  const big = lease.allocate(251);
  assert.equal(big.length, 251);
  assert.equal(pool.slabsCreated, 0);
  const small = lease.allocate(10);
  lease.release();
  lease.release();
  const next = pool.lease().allocate(10);
  assert.equal(next.buffer, small.buffer, 'the slab came back once, not twice');
  assert.equal(pool.slabsCreated, 1);
});
