/**
 * `brook consume` against a spawned broker: --from-beginning with --max-messages, exit after
 * --timeout-ms without records, the --format json shape, and --group committing exactly
 * what it printed (checked with OffsetFetch, and by a second run resuming there).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot, spawnBrook, tempDir, type BrookProcess } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { createTopic, produce } from '../support/consumer-helpers.js';
import { Consumer } from '../../src/index.js';

const BIN = join(projectRoot, 'bin', 'brook');

let broker: BrookProcess;
const dir = tempDir();

before(async () => {
  broker = await spawnBrook(['--host', '127.0.0.1', '--port', '0', '--data-dir', dir.path, '--group-initial-rebalance-delay-ms', '0']);
  await createTopic(broker.bootstrap, 'cli', 2);
  await produce(broker.bootstrap, 'cli', 0, Array.from({ length: 10 }, (_, i) => `a${i}`));
  await produce(broker.bootstrap, 'cli', 1, Array.from({ length: 10 }, (_, i) => `b${i}`), { keys: false });
});

after(async () => {
  await broker.stop();
  dir.remove();
});

function consume(args: string[], bin = BIN) {
  return runProcess(process.execPath, [bin, 'consume', ...args, '-b', broker.bootstrap], { timeoutMs: 30_000 });
}

interface JsonRecord { topic: string; partition: number; offset: number; key: string | null; value: string | null; timestamp: number }

test('--from-beginning --max-messages N --format json prints N records in the documented shape and exits 0', async () => {
  const r = await consume(['cli', '--from-beginning', '--max-messages', '5', '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 5);
  for (const line of lines) {
    const rec = JSON.parse(line) as JsonRecord;
    assert.deepEqual(Object.keys(rec), ['topic', 'partition', 'offset', 'key', 'value', 'timestamp']);
    assert.equal(rec.topic, 'cli');
    assert.equal(typeof rec.offset, 'number');
    assert.equal(typeof rec.timestamp, 'number');
    if (rec.partition === 0) assert.equal(rec.key, `k-${rec.value}`);
    else assert.equal(rec.key, null);
  }
});

test('--timeout-ms exits 0 once no record arrived for that long, after printing everything', async () => {
  const started = Date.now();
  const r = await consume(['cli', '--from-beginning', '--timeout-ms', '1500']);
  assert.equal(r.code, 0, r.stderr);
  const values = r.stdout.trim().split('\n').sort();
  assert.deepEqual(values, [...Array.from({ length: 10 }, (_, i) => `a${i}`), ...Array.from({ length: 10 }, (_, i) => `b${i}`)].sort());
  assert.ok(Date.now() - started >= 1500);
});

test('without --from-beginning it starts at the end', async () => {
  const r = await consume(['cli', '--timeout-ms', '800']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
});

test('--group commits the position of what it printed before leaving; a second run resumes there (committed offset first, --from-beginning only where none)', async () => {
  const first = await consume(['cli', '--group', 'cg', '--assignor', 'range', '--from-beginning', '--max-messages', '7', '--format', 'json']);
  assert.equal(first.code, 0, first.stderr);
  const printed = first.stdout.trim().split('\n').map((l) => JSON.parse(l) as JsonRecord);
  assert.equal(printed.length, 7);
  const expected = new Map<number, bigint>();
  for (const rec of printed) expected.set(rec.partition, BigInt(rec.offset + 1));
  const checker = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'cg', assignors: ['range'] });
  try {
    const committed = await checker.committed([{ topic: 'cli', partition: 0 }, { topic: 'cli', partition: 1 }]);
    for (const p of [0, 1]) assert.equal(committed.get(`cli:${p}`) ?? null, expected.get(p) ?? null, `partition ${p}`);
  } finally {
    await checker.close();
  }
  const second = await consume(['cli', '--group', 'cg', '--from-beginning', '--timeout-ms', '1500', '--format', 'json']);
  assert.equal(second.code, 0, second.stderr);
  const rest = second.stdout.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as JsonRecord);
  assert.equal(rest.length, 13);
  const all = [...printed, ...rest].map((r) => r.value).sort();
  assert.equal(new Set(all).size, 20, 'no record printed twice, none skipped');
});

test('--help and usage errors', async () => {
  const help = await runProcess(process.execPath, [BIN, 'consume', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--max-messages/);
  const bad = await runProcess(process.execPath, [BIN, 'consume']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /TOPIC/);
  const unknown = await consume(['cli', '--group', 'x', '--assignor', 'nope', '--timeout-ms', '100']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no partition assignor named 'nope'/);
});

test('--group --timeout-ms counts from the first assignment: a join slower than the timeout still reads everything', async () => {
  const slowDir = tempDir();
  // The initial rebalance delay alone (2.5 s) is longer than --timeout-ms (1 s).
  const slow = await spawnBrook(['--host', '127.0.0.1', '--port', '0', '--data-dir', slowDir.path, '--group-initial-rebalance-delay-ms', '2500']);
  try {
    await createTopic(slow.bootstrap, 'slow-join', 1);
    await produce(slow.bootstrap, 'slow-join', 0, ['x0', 'x1', 'x2']);
    const r = await runProcess(process.execPath, [BIN, 'consume', 'slow-join', '--group', 'slow', '--from-beginning', '--timeout-ms', '1000', '--format', 'value', '-b', slow.bootstrap], { timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['x0', 'x1', 'x2']);
  } finally {
    await slow.stop();
    slowDir.remove();
  }
});
