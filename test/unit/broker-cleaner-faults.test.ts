/**
 * The log cleaner compacting `__consumer_offsets` while the disk fails, on both of its paths
 * (its worker thread, and `cleanerThread: 'inline'`): offsets committed with KafkaJS, then a
 * pass of the broker's cleaner under the fault (the faults go through the storage's
 * FileSystem, which the worker rebuilds in its thread). Each fault ends with: the pass failed
 * with a log line naming the partition, the call and the errno; the disk error metric on
 * /metrics counted it; the old segments serve (the log reads as before); a broker started on
 * a copy of the data directory taken at that moment (a kill -9) replays every committed
 * offset, as KafkaJS fetches them; and once the fault is gone the next pass compacts the log,
 * after which a restarted broker replays every committed offset too.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, sep } from 'node:path';
import { test } from 'node:test';
import type { Broker } from '../../src/broker/broker.js';
import { KafkaConnection } from '../../src/client/connection.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Api } from '../../src/protocol/messages/index.js';
import { swapSteps } from '../../src/storage/file-swap.js';
import { openFileStorage, type PartitionLog } from '../../src/storage/index.js';
import { startBrook, tempDir } from '../support/brook.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { httpGet, parseExposition, sampleValue } from '../support/prometheus.js';
import { CapturedLog, compacted, crashCopy, crashStates, latestValues, readKeyed, sameRecords, swapLeftovers } from '../support/storage/cleaner-faults.js';
import { FaultyFileSystem, type FaultRule } from '../support/storage/faulty-fs.js';

const TIMEOUT = { timeout: 120_000 };
const TOPIC = 'orders';
const GROUP = 'billing';
const PARTITIONS = 4;
const COMMITS = 100;

interface CleanerFault {
  readonly name: string;
  /** Injected at once, or (rename) by the swap's step hook so that it fails half way through the swap. */
  inject(faults: FaultyFileSystem, dir: string): { remove(): void; readonly hits: number };
  readonly metric: 'brook_storage_write_errors_total' | 'brook_storage_fsync_errors_total';
  /** The log line's "<call> of <path>: <errno>". */
  readonly line: RegExp;
}

function injected(faults: FaultyFileSystem, rule: FaultRule): { remove(): void; readonly hits: number } {
  return faults.inject(rule);
}

const FAULTS: readonly CleanerFault[] = [
  {
    name: 'the disk is full (ENOSPC) while the cleaned segment is written',
    inject: (faults, dir) => injected(faults, { op: 'write', path: dir, errno: 'ENOSPC' }),
    metric: 'brook_storage_write_errors_total',
    line: /write of \S+\.(log|index|timeindex)\.cleaned: ENOSPC/,
  },
  {
    name: 'the fsync of the cleaned segment fails (EIO)',
    inject: (faults) => injected(faults, { op: 'fdatasync', path: '.log.cleaned', errno: 'EIO' }),
    metric: 'brook_storage_fsync_errors_total',
    line: /fdatasync of \S+\.log\.cleaned: EIO/,
  },
  {
    name: 'a rename fails half way through the swap (EIO), after the first replaced file was renamed',
    inject: (faults, dir) => {
      const holder: { fault: ReturnType<FaultyFileSystem['inject']> | null; removed: boolean } = { fault: null, removed: false };
      swapSteps.onStep = (step, at) => {
        if (step !== 'swap' || `${at}${sep}` !== dir || holder.fault !== null || holder.removed) return;
        holder.fault = faults.inject({ op: 'rename', path: dir, errno: 'EIO', skip: 1, times: 1 });
      };
      return {
        get hits() {
          return holder.fault?.hits ?? 0;
        },
        remove() {
          holder.removed = true;
          holder.fault?.remove();
          swapSteps.onStep = null;
        },
      };
    },
    metric: 'brook_storage_write_errors_total',
    line: /rename of \S+: EIO/,
  },
  {
    name: 'the directory is read-only (EACCES)',
    inject: (faults, dir) => injected(faults, { op: ['open', 'rename', 'unlink'], path: dir, errno: 'EACCES', directoryReadOnly: true }),
    metric: 'brook_storage_write_errors_total',
    line: /open of \S+\.log\.cleaned: EACCES/,
  },
];

async function startOn(dataDir: string, options: { faults?: FaultyFileSystem; captured?: CapturedLog; inline?: boolean } = {}): Promise<Broker & { bootstrap: string }> {
  const log = options.captured?.log;
  const storage = await openFileStorage(dataDir, {
    fileSystem: options.faults, log, ...(options.inline ? { cleanerThread: 'inline' as const } : {}),
  });
  return startBrook({
    dataDir, storage, fileSystem: options.faults, offsetsTopicSegmentBytes: 4096, logCleanerEnable: false, metricsPort: 0, ...(log ? { log } : {}),
  });
}

/** The group's committed offsets as KafkaJS fetches them, by partition. */
async function committed(bootstrap: string): Promise<Map<number, string>> {
  const admin = kafkaJs(bootstrap, 'cleaner-faults-check').admin();
  await admin.connect();
  try {
    const [topic] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
    return new Map(topic!.partitions.map((p) => [p.partition, p.offset]));
  } finally {
    await admin.disconnect();
  }
}

async function metric(port: number, name: string): Promise<number> {
  const r = await httpGet(port, '/metrics');
  assert.equal(r.status, 200);
  const value = sampleValue(parseExposition(r.body), name);
  assert.ok(value !== undefined, `${name} is exported`);
  return value;
}

/** The __consumer_offsets partition the group's commits went to (the one that is not empty). */
function offsetsLog(broker: Broker): PartitionLog {
  for (let p = 0; ; p++) {
    const log = broker.storage.partition('__consumer_offsets', p);
    assert.ok(log, 'a __consumer_offsets partition holds the commits');
    if (log.logEndOffset > 0n) return log;
  }
}

for (const inline of [false, true]) {
  const path = inline ? 'inline' : 'worker';
  for (const fault of FAULTS) {
    test(`__consumer_offsets (${path}): ${fault.name}: nothing committed is lost, the old segments serve, a log line and the metric, a restart at that moment replays every offset, and the next pass compacts once it is gone`, TIMEOUT, async (t) => {
      const cleanup = new Cleanup();
      t.after(() => cleanup.run());
      cleanup.add('clear the swap hook', () => { swapSteps.onStep = null; });
      const dir = tempDir('brook-cleaner-faults-');
      cleanup.add('remove data dir', () => dir.remove());
      const faults = new FaultyFileSystem();
      const captured = new CapturedLog();
      let broker = await startOn(dir.path, { faults, captured, inline });
      cleanup.add('stop broker', () => broker.stop());

      // Offsets committed many times each (a group without members, as an admin tool commits): segments to compact.
      const admin = kafkaJs(broker.bootstrap, 'cleaner-faults').admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
      await admin.disconnect();
      const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'cleaner-faults' });
      const expected = new Map<number, string>();
      try {
        for (let i = 0; i < COMMITS; i++) {
          const partitions = Array.from({ length: PARTITIONS }, (_, p) => ({ partitionIndex: p, committedOffset: BigInt(i * 100 + p), committedLeaderEpoch: -1, committedMetadata: `m${i}` }));
          const commit = await conn.request(Api.OffsetCommit, {
            groupId: GROUP, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: TOPIC, partitions }],
          }, { version: 8 });
          assert.deepEqual(commit.topics[0]!.partitions.map((p) => p.errorCode), partitions.map(() => ErrorCode.NONE));
          for (const p of partitions) expected.set(p.partitionIndex, String(p.committedOffset));
        }
      } finally {
        conn.close();
      }
      // KafkaJS, a third-party client, reads them back.
      assert.deepEqual(await committed(broker.bootstrap), expected);

      const log = offsetsLog(broker);
      const partitionDir = join(dir.path, `__consumer_offsets-${log.partition}`) + sep;
      assert.ok(log.segments().length > 3, `${log.segments().length} segments`);
      const before = readKeyed(log);
      const segments = log.segments();
      const boundaries = segments.map((seg) => seg.baseOffset);
      const cleanedBelow = boundaries.at(-1)!;
      const errorsBefore = await metric(broker.metricsPort!, fault.metric);

      const active = fault.inject(faults, partitionDir);
      assert.equal((await broker.runCleaner()).partitionsCleaned, 0);
      assert.ok(active.hits > 0, 'the fault was hit');
      const line = new RegExp(`level=error .*msg="log cleaning of __consumer_offsets-${log.partition} failed: ${fault.line.source}`);
      assert.equal(captured.matching(line).length, 1, captured.lines.join(''));
      assert.equal(await metric(broker.metricsPort!, fault.metric), errorsBefore + 1);
      assert.equal(await metric(broker.metricsPort!, 'brook_storage_partitions_taken_offline_total'), 0);
      // While the fault lasts the old segments serve: those of the group that failed and after it.
      // (Groups before it may have been swapped: most cleaned groups of __consumer_offsets are
      // empty, all their commits superseded, and an empty segment needs no write.)
      const during = readKeyed(log);
      const swapped = crashStates(before, boundaries, cleanedBelow).findIndex((state) => sameRecords(state, during));
      assert.ok(swapped >= 0 && swapped < boundaries.length - 1, 'compacted below a group boundary, as before from there on');
      assert.deepEqual(log.segments().slice(-(boundaries.length - swapped)), segments.slice(swapped), 'the segments from the failed group on are the old ones');
      assert.deepEqual(latestValues(during), latestValues(before));
      assert.deepEqual(swapLeftovers(partitionDir), []);
      assert.deepEqual(await committed(broker.bootstrap), expected);

      // A kill -9 now: a broker on a copy of the directory replays every committed offset.
      const copy = crashCopy(dir.path);
      cleanup.add('remove crash copy', () => fs.rmSync(copy, { recursive: true, force: true }));
      const crashed = await startOn(copy);
      try {
        assert.deepEqual(await committed(crashed.bootstrap), expected);
        assert.deepEqual(readKeyed(offsetsLog(crashed)), during);
      } finally {
        await crashed.stop();
      }

      // The fault is gone: the next pass compacts.
      active.remove();
      assert.equal(log.segments().at(-1)!.baseOffset, cleanedBelow);
      assert.equal((await broker.runCleaner()).partitionsCleaned, 1);
      assert.deepEqual(readKeyed(log), compacted(before, cleanedBelow));
      assert.ok(log.sizeInBytes < segments.reduce((n, s) => n + s.sizeInBytes, 0) / 2);
      assert.ok(captured.matching(new RegExp(`msg="cleaned log" topic=__consumer_offsets .*thread=${path}`)).length === 1);
      assert.deepEqual(await committed(broker.bootstrap), expected);

      await broker.stop();
      broker = await startOn(dir.path);
      assert.deepEqual(await committed(broker.bootstrap), expected);
      assert.deepEqual(readKeyed(offsetsLog(broker)), compacted(before, cleanedBelow));
      assert.deepEqual(swapLeftovers(partitionDir), []);
    });
  }
}
