/**
 * Apache Kafka 4.4.0's `kafka-configs` (ConfigCommand) with `--entity-type groups` against
 * Brook and against Kafka 4.4 itself: setting, describing and deleting a group's configs,
 * and a refused value, print the same on both; so does `brook configs --group`.
 *
 * Where Brook differs: it has no ListConfigResources (KIP-1142), which the tool asks to list
 * the groups that have configs. So `--describe --entity-type groups` without a name lists no
 * group, and a group that neither exists nor has configs is described (with no configs)
 * where Kafka's tool says it "doesn't exist and doesn't have dynamic config".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, type RunResult } from '../support/clients/run.js';
import { brookCli } from '../support/admin-fixture.js';
import { kafkaAvailable, kafkaClasspath, startKafka } from '../support/kafka/kafka-broker.js';

const CONFIG_COMMAND = 'org.apache.kafka.tools.ConfigCommand';

function kafkaConfigs(bootstrap: string, args: readonly string[]): Promise<RunResult> {
  return runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), CONFIG_COMMAND, '--bootstrap-server', bootstrap, ...args], { timeoutMs: 60_000 });
}

/** Exit code and the lines printed (stack traces' "at ..." lines and log lines left out; the address as BOOTSTRAP). */
function printed(r: RunResult, bootstrap: string): string[] {
  return [`exit ${r.code}`, ...(r.stdout + r.stderr).split('\n').map((l) => l.trimEnd().replaceAll(bootstrap, 'BOOTSTRAP'))
    .filter((l) => l.trim() !== '' && !/^\s+at /.test(l) && !/^\[\d{4}-|SLF4J/.test(l))];
}

test('kafka-configs --entity-type groups --alter/--describe (Kafka 4.4.0): the same on Brook as on Kafka', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const [kafka, brook] = await Promise.all([startKafka(), startBrook()]);
  cleanup.add('stop kafka', () => kafka.stop());
  cleanup.add('stop brook', () => brook.stop());
  const group = ['--entity-type', 'groups', '--entity-name', 'tool-group'];

  const steps: { args: string[]; settle?: boolean }[] = [
    { args: ['--alter', ...group, '--add-config', 'consumer.session.timeout.ms=50000,share.auto.offset.reset=earliest'] },
    { args: ['--describe', ...group], settle: true },
    { args: ['--describe', '--all', ...group], settle: true },
    { args: ['--alter', ...group, '--delete-config', 'consumer.session.timeout.ms'] },
    { args: ['--describe', ...group], settle: true },
    { args: ['--alter', ...group, '--add-config', 'share.delivery.count.limit=50'] },
    { args: ['--alter', ...group, '--add-config', 'no.such.config=1'] },
  ];
  const outputs: string[][] = [];
  for (const step of steps) {
    const onBrook = printed(await kafkaConfigs(brook.bootstrap, step.args), brook.bootstrap);
    let onKafka = printed(await kafkaConfigs(kafka.bootstrap, step.args), kafka.bootstrap);
    // Kafka's broker learns a change from its metadata log: a describe may briefly show the old configs.
    for (let i = 0; step.settle === true && i < 5 && JSON.stringify(onKafka) !== JSON.stringify(onBrook); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      onKafka = printed(await kafkaConfigs(kafka.bootstrap, step.args), kafka.bootstrap);
    }
    assert.deepEqual(onBrook, onKafka, `kafka-configs ${step.args.join(' ')}`);
    outputs.push(onBrook);
  }
  assert.deepEqual(outputs[1], [
    'exit 0',
    'Dynamic configs for group tool-group are:',
    '  consumer.session.timeout.ms=50000 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=50000, DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}',
    '  share.auto.offset.reset=earliest sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:share.auto.offset.reset=earliest, DEFAULT_CONFIG:share.auto.offset.reset=latest}',
  ]);
  assert.equal(outputs[2]!.length, 2 + 21, 'every group config with --all');
  assert.equal(outputs[4]!.length, 3, 'one config left after the delete');
  assert.equal(outputs[5]![0], 'exit 1');

  // Brook's own command prints what Kafka's tool printed.
  const brookOut = async (args: string[]): Promise<string[]> => {
    const r = await brookCli(['configs', ...args, '-b', brook.bootstrap]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.split('\n').filter((l) => l.trim() !== '');
  };
  assert.equal((await brookOut(['alter', '--group', 'tool-group', '--set', 'consumer.session.timeout.ms=50000'])).join('\n'), 'Completed updating config for group tool-group.');
  assert.deepEqual(await brookOut(['describe', '--group', 'tool-group']), outputs[1]!.slice(1));
  assert.deepEqual(await brookOut(['describe', '--group', 'tool-group', '--all']), outputs[2]!.slice(1));

  // The differences above, as they are.
  assert.deepEqual(printed(await kafkaConfigs(brook.bootstrap, ['--describe', '--entity-type', 'groups']), brook.bootstrap), ['exit 0']);
  assert.deepEqual(printed(await kafkaConfigs(brook.bootstrap, ['--describe', '--entity-type', 'groups', '--entity-name', 'never-seen']), brook.bootstrap),
    ['exit 0', 'Dynamic configs for group never-seen are:']);
});
