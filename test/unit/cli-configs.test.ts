/**
 * `brook topics alter` and `brook configs` (topics, brokers, groups) against Brook's broker: output, --json shapes and
 * exit codes (0 done, 1 refused by the broker, 2 usage). Kafka's own tools print the same
 * lines (test/interop/admin-configs-kafka-tools.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { brookCli } from '../support/admin-fixture.js';

test('brook topics alter and brook configs: output and exit codes', { timeout: 60_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const b = ['-b', broker.bootstrap];
  const run = async (args: string[]) => brookCli([...args, ...b]);

  assert.equal((await run(['topics', 'create', 'cli-cfg', '--partitions', '1'])).code, 0);
  const grown = await run(['topics', 'alter', 'cli-cfg', '--partitions', '3']);
  assert.deepEqual([grown.code, grown.stdout], [0, 'Topic cli-cfg now has 3 partitions.\n']);
  const shrink = await run(['topics', 'alter', 'cli-cfg', '--partitions', '2']);
  assert.equal(shrink.code, 1);
  assert.match(shrink.stderr, /^brook topics: INVALID_PARTITIONS .*3 partition\(s\); 2 would not be an increase\.\n$/);
  assert.equal((await run(['topics', 'alter', 'cli-cfg'])).code, 2, 'no --partitions');
  assert.equal((await run(['topics', 'alter', 'cli-cfg', '--partitions', 'many'])).code, 2);

  const set = await run(['configs', 'alter', '--topic', 'cli-cfg', '--set', 'retention.ms=60000', '--set', 'cleanup.policy=compact']);
  assert.deepEqual([set.code, set.stdout], [0, 'Completed updating config for topic cli-cfg.\n']);
  const json = JSON.parse((await run(['topics', 'describe', 'cli-cfg', '--json'])).stdout) as { partitions: unknown[]; configs: Record<string, string> };
  assert.equal(json.partitions.length, 3);
  assert.deepEqual(json.configs, { 'cleanup.policy': 'compact', 'retention.ms': '60000' });
  const text = await run(['topics', 'describe', 'cli-cfg']);
  assert.match(text.stdout.split('\n')[0]!, /\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: cleanup.policy=compact,retention.ms=60000$/);
  const entries = JSON.parse((await run(['configs', 'describe', '--topic', 'cli-cfg', '--json'])).stdout) as { name: string; source: string }[];
  assert.deepEqual(entries.map((e) => `${e.name}:${e.source}`), ['cleanup.policy:DYNAMIC_TOPIC_CONFIG', 'retention.ms:DYNAMIC_TOPIC_CONFIG']);

  const bad = await run(['configs', 'alter', '--topic', 'cli-cfg', '--set', 'retention.ms=soon']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /INVALID_CONFIG .*Invalid value soon for configuration retention\.ms/);
  const fixed = await run(['configs', 'alter', '--broker', String(broker.config.nodeId), '--set', 'num.partitions=4']);
  assert.equal(fixed.code, 1);
  assert.match(fixed.stderr, /Cannot update these configs dynamically: \[num\.partitions\]/);
  assert.equal((await run(['configs', 'alter', '--broker-defaults', '--set', 'log.retention.ms=600000'])).code, 0);
  const defaults = await run(['configs', 'describe', '--broker-defaults']);
  assert.deepEqual(defaults.stdout.split('\n').filter((l) => l !== ''), [
    'Default configs for brokers in the cluster are:',
    '  log.retention.ms=600000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=600000}',
  ]);

  // A group's configs (the group need not exist); a value out of the broker's bounds is refused.
  assert.equal((await run(['configs', 'alter', '--group', 'cli-group', '--set', 'share.delivery.count.limit=3'])).stdout, 'Completed updating config for group cli-group.\n');
  assert.deepEqual((await run(['configs', 'describe', '--group', 'cli-group'])).stdout.split('\n').filter((l) => l !== ''), [
    'Dynamic configs for group cli-group are:',
    '  share.delivery.count.limit=3 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:share.delivery.count.limit=3, DEFAULT_CONFIG:group.share.delivery.count.limit=5}',
  ]);
  const bounded = await run(['configs', 'alter', '--group', 'cli-group', '--set', 'share.delivery.count.limit=30']);
  assert.equal(bounded.code, 1);
  assert.match(bounded.stderr, /INVALID_CONFIG .*: share\.delivery\.count\.limit must be in the range 2 to 10 inclusive\./);

  for (const args of [['configs', 'describe'], ['configs', 'describe', '--topic', 'x', '--broker', '1'], ['configs', 'describe', '--topic', 'x', '--group', 'g'], ['configs', 'alter', '--topic', 'x'],
    ['configs', 'alter', '--topic', 'x', '--set', 'novalue'], ['configs', 'frobnicate', '--topic', 'x'], ['configs', 'describe', '--broker', 'one']]) {
    assert.equal((await run(args)).code, 2, args.join(' '));
  }
  assert.equal((await run(['configs', 'describe', '--topic', 'no-such-topic'])).code, 1);
});
