/**
 * A real full disk: the broker's data directory on a 48 MB file system (an ext4 image on a
 * loop device where the machine allows it, else a tmpfs of that size) and an acks=all
 * producer writing 60 MB. The producer gets KAFKA_STORAGE_ERROR, not a silent timeout; the
 * broker logs the directory and ENOSPC; every acknowledged record is there; once a topic is
 * deleted, writes resume by themselves.
 *
 * Mounting needs root with CAP_SYS_ADMIN; where it is refused the test is skipped and says
 * why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, Consumer, Producer } from '../../src/index.js';
import { createLogger } from '../../src/util/log.js';
import { startBrook } from '../support/brook.js';

const SIZE_MB = 48;

interface SmallFs {
  readonly path: string;
  readonly kind: string;
  unmount(): void;
}

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Unmounts (lazily when something still holds it: a failed test must not leave a mount behind). */
function unmount(mountPoint: string, cleanup: () => void): void {
  try {
    run('umount', [mountPoint]);
  } catch {
    run('umount', ['-l', mountPoint]);
  }
  cleanup();
}

/** A 48 MB file system, or the reason there is none. */
function mountSmallFs(): SmallFs | string {
  if (process.platform !== 'linux') return `mounting a small file system is Linux-only (this is ${process.platform})`;
  const base = mkdtempSync(join(tmpdir(), 'brook-small-fs-'));
  const mountPoint = join(base, 'mnt');
  const image = join(base, 'disk.img');
  execFileSync('mkdir', ['-p', mountPoint]);
  const cleanup = (): void => rmSync(base, { recursive: true, force: true });
  const errors: string[] = [];
  try {
    run('truncate', ['-s', `${SIZE_MB}M`, image]);
    run('mkfs.ext4', ['-q', '-F', image]);
    run('mount', ['-o', 'loop', image, mountPoint]);
    return { path: mountPoint, kind: 'ext4 on a loop device', unmount: () => unmount(mountPoint, cleanup) };
  } catch (err) {
    errors.push(`loop ext4: ${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()}`);
  }
  try {
    run('mount', ['-t', 'tmpfs', '-o', `size=${SIZE_MB}m`, 'tmpfs', mountPoint]);
    return { path: mountPoint, kind: 'tmpfs', unmount: () => unmount(mountPoint, cleanup) };
  } catch (err) {
    errors.push(`tmpfs: ${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()}`);
  }
  cleanup();
  return `this machine does not let the test mount a file system (needs root with CAP_SYS_ADMIN): ${errors.join('; ')}`;
}

const mounted = mountSmallFs();

test(`a ${SIZE_MB} MB file system filled by an acks=all producer: KAFKA_STORAGE_ERROR, a log line, nothing acknowledged lost, writes resume once space is freed`, {
  skip: typeof mounted === 'string' ? mounted : false,
  timeout: 180_000,
}, async (t) => {
  const fs = mounted as SmallFs;
  t.diagnostic(`file system: ${fs.kind}`);
  const lines: string[] = [];
  const broker = await startBrook({ dataDir: join(fs.path, 'data'), log: createLogger('broker', 'info', (line) => lines.push(line)) });
  // A delivery timeout short enough that batches refused by the full disk (KAFKA_STORAGE_ERROR
  // is retriable) expire soon, long enough that a loaded machine does not expire the ones
  // written before it fills.
  const producer = new Producer({ bootstrapServers: broker.bootstrap, requestTimeoutMs: 5_000, deliveryTimeoutMs: 15_000, lingerMs: 5 });
  try {
    const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
    await admin.createTopic({ name: 'filler', partitions: 1 });
    await admin.createTopic({ name: 'data', partitions: 1 });
    const value = 'x'.repeat(1_000);
    // 8 MB that deleting a topic will give back, by a producer with the default timeouts.
    const filler = new Producer({ bootstrapServers: broker.bootstrap, lingerMs: 5 });
    await filler.sendBatch(Array.from({ length: 8_000 }, () => ({ topic: 'filler', value })));
    await filler.close();
    const acked: string[] = [];
    const failures: string[] = [];
    const started = Date.now();
    for (let chunk = 0; chunk < 60; chunk++) {
      const records = Array.from({ length: 1_000 }, (_, i) => ({ topic: 'data', value: `${chunk * 1_000 + i}:${value}` }));
      const settled = await Promise.allSettled(records.map((r) => producer.send(r)));
      settled.forEach((s, i) => {
        if (s.status === 'fulfilled') acked.push(records[i]!.value);
        else failures.push((s.reason as Error).message);
      });
      // The disk is full once a chunk is refused. Not every record of it, nor of the next: a
      // batch smaller than the space left still fits (the producer's batches grow from 16 KiB).
      if (settled.some((s) => s.status === 'rejected')) break;
    }
    const elapsedMs = Date.now() - started;
    t.diagnostic(`${acked.length} records acknowledged, ${failures.length} refused, in ${elapsedMs} ms`);
    assert.ok(acked.length > 0 && failures.length > 0, 'the disk filled up part way');
    // The broker refuses with KAFKA_STORAGE_ERROR; batches the idempotent producer had in
    // flight behind a refused one are refused as out of sequence (Kafka does the same), and
    // batches still queued expire: each failure names the broker's last error.
    assert.ok(failures.some((m) => /KAFKA_STORAGE_ERROR/.test(m)), 'the producer is told why');
    const unexplained = failures.find((m) => !/KAFKA_STORAGE_ERROR|OUT_OF_ORDER_SEQUENCE_NUMBER/.test(m));
    assert.equal(unexplained, undefined, 'every refusal names the storage error or the sequence gap behind it');
    assert.ok(lines.some((l) => /level=error .*cannot write to .*data-0: ENOSPC/.test(l)), 'one clear log line with the directory and the errno');
    assert.ok(lines.filter((l) => /cannot write to/.test(l)).length < 20, 'rate-limited, not one line per failure');

    // Free space: the writes resume by themselves.
    await admin.deleteTopic('filler');
    admin.close();
    for (let i = 0; ; i++) {
      try {
        await producer.send({ topic: 'data', value: 'after the space came back' });
        acked.push('after the space came back');
        break;
      } catch (err) {
        assert.ok(i < 100, `writes did not resume: ${(err as Error).message}`);
        await sleep(100);
      }
    }
    // Every acknowledged record is there.
    const consumer = new Consumer({ bootstrapServers: broker.bootstrap, autoOffsetReset: 'earliest', maxPollRecords: 5_000 });
    consumer.assign([{ topic: 'data', partition: 0 }]);
    const read = new Set<string>();
    for (let polls = 0; read.size < acked.length && polls < 2_000; polls++) {
      for (const r of await consumer.poll({ timeoutMs: 200 })) read.add(r.value!.toString());
    }
    await consumer.close();
    const missing = acked.filter((v) => !read.has(v));
    assert.equal(missing.length, 0, `acknowledged records missing: ${missing.length}`);
  } finally {
    await producer.close(1_000).catch(() => undefined);
    await broker.stop().catch((err: unknown) => t.diagnostic(`broker stop failed: ${(err as Error).message}`));
    fs.unmount();
  }
});
