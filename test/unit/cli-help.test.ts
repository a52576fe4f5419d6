/**
 * Every command's --help against what it parses: each flag the help text mentions is one
 * the command accepts, and each flag it accepts is in its help. And the exit codes of the
 * command line: 0 for --help, 2 for an unknown flag, a missing argument or an unknown
 * action, each with one line on stderr that does not repeat itself ("brook X: ...", no
 * "Error:" prefixes stacked on it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { BROKER_HELP, BROKER_OPTIONS } from '../../src/cli/commands/broker.js';
import { TOPICS_HELP, TOPICS_OPTIONS } from '../../src/cli/commands/topics.js';
import { TOPICS_DELETE_RECORDS_HELP, TOPICS_DELETE_RECORDS_OPTIONS } from '../../src/cli/commands/topics-delete-records.js';
import { CONFIGS_HELP, CONFIGS_OPTIONS } from '../../src/cli/commands/configs.js';
import { PRODUCE_HELP, PRODUCE_OPTIONS } from '../../src/cli/commands/produce.js';
import { CONSUME_HELP, CONSUME_OPTIONS } from '../../src/cli/commands/consume.js';
import { CLUSTER_HELP, CLUSTER_OPTIONS } from '../../src/cli/commands/cluster.js';
import { GROUPS_LIST_HELP, GROUPS_LIST_OPTIONS } from '../../src/cli/commands/groups-list.js';
import { GROUPS_DESCRIBE_HELP, GROUPS_DESCRIBE_OPTIONS } from '../../src/cli/commands/groups-describe.js';
import { GROUPS_RESET_HELP, GROUPS_RESET_OPTIONS } from '../../src/cli/commands/groups-reset.js';
import { GROUPS_DELETE_HELP, GROUPS_DELETE_OPTIONS } from '../../src/cli/commands/groups-delete.js';
import { GROUPS_DELETE_OFFSETS_HELP, GROUPS_DELETE_OFFSETS_OPTIONS } from '../../src/cli/commands/groups-delete-offsets.js';
import { GROUPS_LAG_HELP, GROUPS_LAG_OPTIONS } from '../../src/cli/commands/groups-lag.js';
import { GROUPS_TIMELINE_HELP, GROUPS_TIMELINE_OPTIONS } from '../../src/cli/commands/groups-timeline.js';

const BIN = join(projectRoot, 'bin', 'brook');

type Options = Readonly<Record<string, { readonly type: string; readonly short?: string }>>;

const HELPS: readonly { readonly args: readonly string[]; readonly help: string; readonly options: Options }[] = [
  { args: ['broker'], help: BROKER_HELP, options: BROKER_OPTIONS },
  { args: ['topics'], help: TOPICS_HELP, options: TOPICS_OPTIONS },
  { args: ['topics', 'delete-records'], help: TOPICS_DELETE_RECORDS_HELP, options: TOPICS_DELETE_RECORDS_OPTIONS },
  { args: ['configs'], help: CONFIGS_HELP, options: CONFIGS_OPTIONS },
  { args: ['produce'], help: PRODUCE_HELP, options: PRODUCE_OPTIONS },
  { args: ['consume'], help: CONSUME_HELP, options: CONSUME_OPTIONS },
  { args: ['cluster'], help: CLUSTER_HELP, options: CLUSTER_OPTIONS },
  { args: ['groups', 'list'], help: GROUPS_LIST_HELP, options: GROUPS_LIST_OPTIONS },
  { args: ['groups', 'describe'], help: GROUPS_DESCRIBE_HELP, options: GROUPS_DESCRIBE_OPTIONS },
  { args: ['groups', 'reset-offsets'], help: GROUPS_RESET_HELP, options: GROUPS_RESET_OPTIONS },
  { args: ['groups', 'delete'], help: GROUPS_DELETE_HELP, options: GROUPS_DELETE_OPTIONS },
  { args: ['groups', 'delete-offsets'], help: GROUPS_DELETE_OFFSETS_HELP, options: GROUPS_DELETE_OFFSETS_OPTIONS },
  { args: ['groups', 'lag'], help: GROUPS_LAG_HELP, options: GROUPS_LAG_OPTIONS },
  { args: ['groups', 'timeline'], help: GROUPS_TIMELINE_HELP, options: GROUPS_TIMELINE_OPTIONS },
];

/** The flags a help text documents: --long anywhere, -x after a blank or an opening bracket (not in 'N|-N'). */
function documented(help: string): Set<string> {
  const flags = new Set<string>();
  for (const m of help.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*)(?![\w-])|(?<=^|[\s[(])(-[a-zA-Z])(?![\w-])/g)) flags.add(m[1] ?? m[2]!);
  return flags;
}

function accepted(options: Options): Set<string> {
  const flags = new Set<string>();
  for (const [name, o] of Object.entries(options)) {
    flags.add(`--${name}`);
    if (o.short !== undefined) flags.add(`-${o.short}`);
  }
  return flags;
}

for (const { args, help, options } of HELPS) {
  test(`brook ${args.join(' ')} --help documents exactly the flags it accepts`, async () => {
    assert.deepEqual([...documented(help)].sort(), [...accepted(options)].sort());
    const r = await runProcess(process.execPath, [BIN, ...args, '--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${help}\n`, 'what --help prints is the text checked here');
  });

  test(`brook ${args.join(' ')} with an unknown flag: exit 2, one line on stderr`, async () => {
    const r = await runProcess(process.execPath, [BIN, ...args, '--no-such-flag']);
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`^brook ${args[0]}: `));
    assert.doesNotMatch(lines[0]!, /error:|Error:/i);
  });
}

test('missing arguments and unknown actions exit 2 with one line; no command at all too', async () => {
  const bare = await runProcess(process.execPath, [BIN]);
  assert.equal(bare.code, 2);
  assert.match(bare.stdout, /^Usage: brook <command>/);
  for (const args of [['nope'], ['topics'], ['topics', 'nope'], ['topics', 'create'], ['groups'], ['groups', 'nope'], ['groups', 'describe'],
    ['groups', 'delete-offsets', 'g'], ['groups', 'reset-offsets', 'g', '--topic', 't'], ['consume'], ['produce'], ['cluster'], ['cluster', 'nope']]) {
    const r = await runProcess(process.execPath, [BIN, ...args, '-b', '127.0.0.1:1']);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
  }
});

test('a failure is exit 1 with one line that names the command once', async () => {
  for (const args of [['topics', 'list'], ['cluster', 'info'], ['groups', 'lag', 'g'], ['consume', 't', '-e']]) {
    const r = await runProcess(process.execPath, [BIN, ...args, '-b', '127.0.0.1:1'], { timeoutMs: 60_000 });
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`^brook ${args[0]}: `));
    assert.doesNotMatch(lines[0]!.slice(`brook ${args[0]}: `.length), /^(error|Error)\b|brook /);
  }
});
