/**
 * `brook consume TOPIC --share-group G` against Brook's broker: records printed are
 * accepted (a later run does not print them again), records a poll gave beyond
 * --max-messages go back to the group, --release hands printed records back, and the
 * options a share group has no use for are refused.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ShareConsumer } from '../../src/index.js';
import { projectRoot, startBrook } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { createTopic, produce } from '../support/consumer-helpers.js';
import { warmUp } from '../support/share-helpers.js';

const BIN = join(projectRoot, 'bin', 'brook');
let broker: Awaited<ReturnType<typeof startBrook>>;

before(async () => {
  broker = await startBrook({ groupShareMinHeartbeatIntervalMs: 500, groupShareHeartbeatIntervalMs: 500 });
  // A topic per share group; the group starts at the log end once a member first read the partition.
  for (const [topic, group] of [['cli-share', 'cli-g'], ['cli-release', 'cli-release']] as const) {
    await createTopic(broker.bootstrap, topic, 1);
    const member = await ShareConsumer.connect({ bootstrapServers: broker.bootstrap, groupId: group });
    member.subscribe([topic]);
    await warmUp(broker.bootstrap, topic, 1, [member]);
    await member.close();
  }
});

after(() => broker.stop());

function consume(args: string[], topic = 'cli-share') {
  return runProcess(process.execPath, [BIN, 'consume', topic, ...args, '-b', broker.bootstrap], { timeoutMs: 30_000 });
}

const lines = (stdout: string): string[] => stdout.split('\n').filter((l) => l !== '');

test('--share-group prints and accepts; what was not printed goes back to the group; a later run prints the rest, once', { timeout: 60_000 }, async () => {
  await produce(broker.bootstrap, 'cli-share', 0, ['r0', 'r1', 'r2', 'r3', 'r4']);
  const first = await consume(['--share-group', 'cli-g', '--max-messages', '3', '--format', 'json']);
  assert.equal(first.code, 0, first.stderr);
  const printed = lines(first.stdout).map((l) => JSON.parse(l) as { value: string; offset: number });
  assert.equal(printed.length, 3);
  const second = await consume(['--share-group', 'cli-g', '--timeout-ms', '2000']);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual([...printed.map((r) => r.value), ...lines(second.stdout)].sort(), ['r0', 'r1', 'r2', 'r3', 'r4']);
  const third = await consume(['--share-group', 'cli-g', '--timeout-ms', '1500']);
  assert.equal(third.code, 0, third.stderr);
  assert.deepEqual(lines(third.stdout), [], 'everything printed was accepted');
});

test('--release prints records and hands them back: the next run prints them again', { timeout: 60_000 }, async () => {
  await produce(broker.bootstrap, 'cli-release', 0, ['x0', 'x1']);
  const released = await consume(['--share-group', 'cli-release', '--release', '--max-messages', '2'], 'cli-release');
  assert.equal(released.code, 0, released.stderr);
  assert.deepEqual(lines(released.stdout).sort(), ['x0', 'x1']);
  const again = await consume(['--share-group', 'cli-release', '--max-messages', '2', '--format', '%s:%p\\n'], 'cli-release');
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(lines(again.stdout).sort(), ['x0:0', 'x1:0']);
});

test('--share-group refuses --group, --offset, --partition; --release needs --share-group', { timeout: 30_000 }, async () => {
  const both = await consume(['--share-group', 'g', '--group', 'h']);
  assert.notEqual(both.code, 0);
  assert.match(both.stderr, /--share-group cannot be used with --group/);
  const offset = await consume(['--share-group', 'g', '--from-beginning', '--partition', '0']);
  assert.match(offset.stderr, /--share-group cannot be used with --from-beginning, --partition/);
  const release = await consume(['--release']);
  assert.match(release.stderr, /--release and --reject need --share-group/);
});
