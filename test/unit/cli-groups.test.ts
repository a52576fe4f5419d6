/**
 * `bin/brook groups ...` and `topics delete` end to end against Brook's broker, with a group
 * of KafkaJS consumers: the JSON shapes of docs/CLI.md exactly, Kafka's tables, every
 * reset mode, dry runs, the refusals (active group, non-empty delete, unknown group,
 * unreachable broker, bad arguments) as one stderr line and a non-zero exit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until, type RunResult } from '../support/clients/run.js';
import { brookCli, runGroup, seedTopic } from '../support/admin-fixture.js';
import { parseDateTime, planTable } from '../../src/cli/commands/groups-reset.js';
import { toJson, formatRow } from '../../src/cli/format.js';

const PARTITIONS = 3;
const PER_PARTITION = 10;

interface DescribeJson {
  group: string; state: string; protocolType: string; protocol: string; generation: number | null;
  members: { memberId: string; groupInstanceId: string | null; clientId: string; host: string; assignment: { topic: string; partition: number }[] }[];
  offsets: { topic: string; partition: number; committed: number | null; logEndOffset: number | null; lag: number | null }[];
}

function ok(r: RunResult, what: string): string {
  assert.equal(r.code, 0, `${what}: exit ${r.code}, stderr ${r.stderr}`);
  return r.stdout;
}

/** A failure: non-zero exit and exactly one line on stderr. */
function fails(r: RunResult, what: string, pattern: RegExp, exitCode?: number): void {
  assert.notEqual(r.code, 0, `${what} should fail; stdout ${r.stdout}`);
  if (exitCode !== undefined) assert.equal(r.code, exitCode, `${what}: exit code`);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: one line on stderr, got ${JSON.stringify(r.stderr)}`);
  assert.match(lines[0]!, pattern, what);
}

/** Data rows of a Kafka-style table (after the header line that starts with `GROUP`). */
function tableRows(stdout: string): string[][] {
  const lines = stdout.split('\n');
  const header = lines.findIndex((l) => l.startsWith('GROUP '));
  assert.ok(header >= 0, `a table in ${stdout}`);
  return lines.slice(header + 1).filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s+/));
}

test('brook groups: describe/list/reset-offsets/delete against a KafkaJS group', { timeout: 180_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const b = ['-b', broker.bootstrap];
  const topic = 'cli-groups-topic';
  const group = 'cli-groups-group';
  await seedTopic(broker.bootstrap, topic, PARTITIONS, PER_PARTITION);
  const running = await runGroup(broker.bootstrap, group, topic, 2, PARTITIONS * PER_PARTITION, 'cli-groups-client');
  cleanup.add('stop consumers', () => running.stop());

  const describe = async (): Promise<DescribeJson> => JSON.parse(ok(await brookCli(['groups', 'describe', group, '--json', ...b]), 'describe --json')) as DescribeJson;

  // Active group, everything consumed: lag 0 in JSON and in the table.
  const active = await until('Stable with every offset committed', 20_000, async () => {
    const d = await describe();
    return d.state === 'Stable' && d.members.length === 2 && d.offsets.length === PARTITIONS && d.offsets.every((o) => o.committed === PER_PARTITION) ? d : undefined;
  });
  assert.deepEqual(Object.keys(active), ['group', 'state', 'protocolType', 'protocol', 'generation', 'members', 'offsets']);
  for (const m of active.members) assert.deepEqual(Object.keys(m), ['memberId', 'groupInstanceId', 'clientId', 'host', 'assignment']);
  for (const o of active.offsets) assert.deepEqual(Object.keys(o), ['topic', 'partition', 'committed', 'logEndOffset', 'lag']);
  assert.equal(active.protocolType, 'consumer');
  assert.equal(active.generation, null);
  // (rows in Kafka's order: the member with more partitions first)
  assert.deepEqual(active.offsets.map((o) => [o.partition, o.committed, o.logEndOffset, o.lag]).sort(), [[0, 10, 10, 0], [1, 10, 10, 0], [2, 10, 10, 0]]);
  assert.deepEqual(active.members.flatMap((m) => m.assignment.map((a) => a.partition)).sort(), [0, 1, 2]);

  const table = ok(await brookCli(['groups', 'describe', group, ...b]), 'describe');
  assert.match(table, new RegExp(`^Consumer group '${group}' is Stable`));
  assert.match(table, /\nGROUP +TOPIC +PARTITION +CURRENT-OFFSET +LOG-END-OFFSET +LAG +CONSUMER-ID +HOST +CLIENT-ID\n/);
  const rows = tableRows(table);
  assert.equal(rows.length, PARTITIONS);
  for (const r of rows) {
    assert.deepEqual([r[0], r[1], r[3], r[4], r[5], r[8]], [group, topic, '10', '10', '0', 'cli-groups-client']);
    assert.ok(active.members.some((m) => m.memberId === r[6] && m.host === r[7]), 'consumer id and host of a member');
  }

  // Refusals while active.
  fails(await brookCli(['groups', 'reset-offsets', group, '--topic', topic, '--to-earliest', '--execute', ...b]), 'reset of an active group',
    new RegExp(`Assignments can only be reset if the group '${group}' is inactive, but the current state is Stable\\.`), 1);
  fails(await brookCli(['groups', 'delete', group, ...b]), 'delete of a non-empty group', /NON_EMPTY_GROUP: The group is not empty\./, 1);
  assert.ok((await describe()).offsets.every((o) => o.committed === PER_PARTITION), 'the refused reset changed nothing');

  const list = JSON.parse(ok(await brookCli(['groups', 'list', '--json', ...b]), 'list --json')) as unknown[];
  assert.deepEqual(list, [{ group, state: 'Stable', type: 'classic', protocolType: 'consumer' }]);

  await running.stop();
  const empty = await until('Empty', 15_000, async () => {
    const d = await describe();
    return d.state === 'Empty' ? d : undefined;
  });
  assert.deepEqual(empty.members, []);
  assert.deepEqual(empty.offsets.map((o) => [o.partition, o.committed, o.lag]), [[0, 10, 0], [1, 10, 0], [2, 10, 0]]);
  const emptyRows = tableRows(ok(await brookCli(['groups', 'describe', group, ...b]), 'describe Empty'));
  assert.deepEqual(emptyRows.map((r) => r.slice(6)), [['-', '-', '-'], ['-', '-', '-'], ['-', '-', '-']], 'no consumer columns without members');
  const listTable = ok(await brookCli(['groups', 'list', ...b]), 'list');
  assert.deepEqual(tableRows(listTable), [[group, 'classic', 'Empty']]);

  const reset = async (args: string[], execute: boolean): Promise<string[][]> => {
    const out = ok(await brookCli(['groups', 'reset-offsets', group, ...args, ...(execute ? ['--execute'] : []), ...b]), `reset ${args.join(' ')}`);
    return tableRows(out).map((r) => { assert.equal(r[0], group); return [r[2]!, r[3]!]; });
  };
  const committed = async (): Promise<(number | null)[]> => (await describe()).offsets.map((o) => o.committed);

  // Dry run: the plan as Kafka prints it; nothing changes.
  assert.deepEqual(await reset(['--topic', topic, '--to-earliest'], false), [['0', '0'], ['1', '0'], ['2', '0']]);
  assert.deepEqual(await committed(), [10, 10, 10], 'a dry run changes nothing');
  // --execute: lag = the records.
  assert.deepEqual(await reset(['--topic', topic, '--to-earliest'], true), [['0', '0'], ['1', '0'], ['2', '0']]);
  const rewound = await describe();
  assert.deepEqual(rewound.offsets.map((o) => o.lag), [10, 10, 10]);
  const rewoundRows = tableRows(ok(await brookCli(['groups', 'describe', group, ...b]), 'describe after reset'));
  assert.deepEqual(rewoundRows.map((r) => r[5]), ['10', '10', '10']);

  assert.deepEqual(await reset(['--topic', topic, '--to-latest'], true), [['0', '10'], ['1', '10'], ['2', '10']]);
  assert.deepEqual(await reset(['--topic', topic, '--to-offset', '4'], true), [['0', '4'], ['1', '4'], ['2', '4']]);
  assert.deepEqual(await reset(['--topic', topic, '--to-offset', '99'], false), [['0', '10'], ['1', '10'], ['2', '10']], 'clamped to the log end');
  assert.deepEqual(await reset(['--topic', topic, '--shift-by', '-2'], true), [['0', '2'], ['1', '2'], ['2', '2']]);
  assert.deepEqual(await reset(['--topic', topic, '--shift-by=3'], true), [['0', '5'], ['1', '5'], ['2', '5']]);
  assert.deepEqual(await reset(['--topic', topic, '--shift-by', '-50'], false), [['0', '0'], ['1', '0'], ['2', '0']], 'clamped to the log start');
  assert.deepEqual(await reset(['--topic', topic, '--to-datetime', '2024-01-01T00:00:07.000'], true), [['0', '7'], ['1', '7'], ['2', '7']]);
  assert.deepEqual(await reset(['--topic', topic, '--to-datetime', '2024-01-01T01:00:07.000+01:00'], false), [['0', '7'], ['1', '7'], ['2', '7']], 'with a zone');
  assert.deepEqual(await reset(['--topic', topic, '--to-datetime', '2030-01-01T00:00:00.000'], false), [['0', '10'], ['1', '10'], ['2', '10']], 'no record that late: log end');
  assert.deepEqual(await reset(['--topic', `${topic}:0,2`, '--to-earliest'], true), [['0', '0'], ['2', '0']]);
  assert.deepEqual(await committed(), [0, 7, 0]);
  assert.deepEqual(await reset(['--all-topics', '--to-latest'], true), [['0', '10'], ['1', '10'], ['2', '10']]);
  assert.deepEqual(await committed(), [10, 10, 10]);
  const planJson = JSON.parse(ok(await brookCli(['groups', 'reset-offsets', group, '--topic', topic, '--to-offset', '3', '--json', ...b]), 'reset --json')) as unknown;
  assert.deepEqual(planJson, [0, 1, 2].map((partition) => ({ topic, partition, offset: 3 })));

  // Bad arguments: usage errors, exit 2, one line.
  fails(await brookCli(['groups', 'reset-offsets', group, '--topic', topic, ...b]), 'no scenario', /exactly one of --to-earliest/, 2);
  fails(await brookCli(['groups', 'reset-offsets', group, '--to-earliest', ...b]), 'no scope', /One of the reset scopes should be defined/, 2);
  fails(await brookCli(['groups', 'reset-offsets', group, '--topic', topic, '--to-offset', 'x', ...b]), 'bad offset', /--to-offset expects an integer/, 2);
  fails(await brookCli(['groups', 'reset-offsets', group, '--topic', topic, '--to-datetime', 'yesterday', ...b]), 'bad datetime', /--to-datetime expects an ISO 8601/, 2);
  fails(await brookCli(['groups', 'describe', ...b]), 'describe without a group', /needs exactly one GROUP/, 2);
  fails(await brookCli(['groups', 'frobnicate', ...b]), 'unknown action', /unknown groups action/, 2);
  fails(await brookCli(['groups', 'reset-offsets', group, '--topic', `${topic}:9`, '--to-earliest', ...b]), 'missing partition', new RegExp(`The partitions "${topic}-9" do not exist`), 1);

  // Unknown group, unreachable broker.
  fails(await brookCli(['groups', 'describe', 'no-such-group', ...b]), 'unknown group', /Consumer group 'no-such-group' does not exist\./, 1);
  fails(await brookCli(['groups', 'describe', 'no-such-group', '--json', ...b]), 'unknown group (json)', /Consumer group 'no-such-group' does not exist\./, 1);
  fails(await brookCli(['groups', 'delete', 'no-such-group', ...b]), 'delete unknown group', /Consumer group 'no-such-group' does not exist\./, 1);
  fails(await brookCli(['groups', 'list', '-b', '127.0.0.1:1']), 'unreachable broker', /no broker reachable at 127\.0\.0\.1:1/, 1);
  fails(await brookCli(['groups', 'describe', group, '-b', '127.0.0.1:1']), 'unreachable broker', /no broker reachable/, 1);

  // Delete the (Empty) group.
  assert.equal(ok(await brookCli(['groups', 'delete', group, ...b]), 'delete'), `Deletion of requested consumer groups ('${group}') was successful.\n`);
  fails(await brookCli(['groups', 'describe', group, ...b]), 'describe after delete', /does not exist/, 1);
  assert.deepEqual(JSON.parse(ok(await brookCli(['groups', 'list', '--json', ...b]), 'list after delete')), []);

  // topics delete.
  assert.equal(ok(await brookCli(['topics', 'delete', topic, ...b]), 'topics delete'), `Deleted topic ${topic}.\n`);
  assert.ok(!(JSON.parse(ok(await brookCli(['topics', 'list', '--json', ...b]), 'topics list')) as string[]).includes(topic));
  fails(await brookCli(['topics', 'delete', topic, ...b]), 'delete a missing topic', /UNKNOWN_TOPIC_OR_PARTITION/, 1);
});

test('brook groups: --help on every action', { timeout: 60_000 }, async () => {
  for (const args of [['groups', '--help'], ['groups', 'list', '--help'], ['groups', 'describe', '--help'], ['groups', 'reset-offsets', '--help'], ['groups', 'delete', '--help'], ['topics', '--help']]) {
    const r = await brookCli(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, /Usage/);
  }
});

test('groups CLI helpers: ISO 8601 as Kafka reads it, the plan table, 64-bit JSON', () => {
  assert.equal(parseDateTime('2024-01-01T00:00:05.000'), BigInt(Date.UTC(2024, 0, 1, 0, 0, 5)), 'no zone: UTC, as Kafka');
  assert.equal(parseDateTime('2024-01-01T02:00:05.250+02:00'), BigInt(Date.UTC(2024, 0, 1, 0, 0, 5, 250)));
  assert.equal(parseDateTime('2024-01-01T02:00:05+0200'), BigInt(Date.UTC(2024, 0, 1, 0, 0, 5)));
  assert.equal(parseDateTime('2024-01-01T00:00:05Z'), BigInt(Date.UTC(2024, 0, 1, 0, 0, 5)));
  assert.throws(() => parseDateTime('2024-01-01 00:00:05'), /ISO 8601/);
  assert.throws(() => parseDateTime('2024-13-01T00:00:05'), /not a valid date-time|ISO 8601/);
  assert.equal(planTable('g', [{ topic: 't', partition: 0, offset: 12n }]),
    'GROUP           TOPIC           PARTITION  NEW-OFFSET\ng               t               0          12');
  assert.equal(formatRow(['a', 'b', 'c'], [3, 2]), 'a   b  c');
  assert.equal(toJson({ offset: 9007199254740993n, lag: null }), '{"offset":9007199254740993,"lag":null}');
});
