/**
 * Consumer groups (KIP-848) in the admin views: a group of three Brook consumers with the
 * consumer protocol (groupProtocol 'consumer'; one static, with a group instance id) and a
 * classic group, formed the same way on
 * Brook's broker and on Apache Kafka 4.4.0, then
 *  1. `brook groups describe` shows the consumer group's type, assignor, group epoch and
 *     assignment epoch, and per member its epoch and current and target assignment (JSON and
 *     table), on both brokers;
 *  2. Kafka 4.4's `kafka-consumer-groups --describe --members --verbose`, `--describe --state
 *     --verbose` and `--list --type --state` (with and without a type filter) print the same
 *     shape against Brook as against Kafka (member ids, hosts and epochs aside);
 *  3. against either broker, `brook groups describe` prints the members table Kafka's tool
 *     prints, row for row, and `brook groups list [--type T]` the groups and types it lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer } from '../../src/index.js';
import { Admin, type GroupDescription } from '../../src/client/admin/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, until, type RunResult } from '../support/clients/run.js';
import { brookCli } from '../support/admin-fixture.js';
import { createTopic, produceSpread } from '../support/consumer-helpers.js';
import { kafkaAvailable, kafkaClasspath, startKafka } from '../support/kafka/kafka-broker.js';

const CONSUMER_GROUP_COMMAND = 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand';
const TOPIC = 'admin-cg-topic';
const PARTITIONS = 4;
const GROUP = 'admin-cg-consumer';
const CLASSIC = 'admin-cg-classic';

const kafkaGroups = (bootstrap: string, args: readonly string[]): Promise<RunResult> =>
  runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), CONSUMER_GROUP_COMMAND, '--bootstrap-server', bootstrap, ...args], { timeoutMs: 60_000 });

function ok(r: RunResult, what: string): string {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The header and data rows of a Kafka-style table (from the line that starts with `GROUP`), split on blanks. */
function table(stdout: string): { header: string[]; rows: string[][] } {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => l.startsWith('GROUP '));
  assert.ok(at >= 0, `no table in: ${stdout}`);
  const end = lines.findIndex((l, i) => i > at && l.trim() === '');
  const body = lines.slice(at + 1, end < 0 ? undefined : end);
  return { header: lines[at]!.trim().split(/\s+/), rows: body.map((l) => l.trim().split(/\s+/)).sort((a, b) => (a.join(' ') < b.join(' ') ? -1 : 1)) };
}

/**
 * A members table (the first table with CURRENT-EPOCH) cut into cells at its header's column
 * starts: a member without an instance id has a blank GROUP-INSTANCE-ID cell.
 */
function membersColumns(stdout: string): { header: string[]; rows: string[][] } {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => l.startsWith('GROUP ') && l.includes('CURRENT-EPOCH'));
  assert.ok(at >= 0, `no members table in: ${stdout}`);
  const starts = [...lines[at]!.matchAll(/\S+/g)].map((m) => m.index);
  const end = lines.findIndex((l, i) => i > at && l.trim() === '');
  const rows = lines.slice(at + 1, end < 0 ? undefined : end)
    .map((l) => starts.map((start, i) => l.slice(start, starts[i + 1] ?? l.length).trim()))
    .sort((a, b) => (a.join(' ') < b.join(' ') ? -1 : 1));
  return { header: lines[at]!.trim().split(/\s+/), rows };
}

class Member {
  readonly consumer: Consumer;
  private stopped = false;
  private readonly loop: Promise<void>;
  readonly errors: string[] = [];

  constructor(bootstrap: string, group: string, protocol: 'classic' | 'consumer', clientId: string, groupInstanceId?: string) {
    this.consumer = new Consumer({
      bootstrapServers: bootstrap, groupId: group, groupProtocol: protocol, clientId, autoOffsetReset: 'earliest', fetchMaxWaitMs: 100,
      ...(groupInstanceId === undefined ? {} : { groupInstanceId }),
      requestTimeoutMs: 10_000, ...(protocol === 'classic' ? { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500 } : {}),
    });
    const consumer = this.consumer;
    consumer.subscribe([TOPIC]);
    this.loop = (async () => {
      while (!this.stopped) {
        try {
          await consumer.poll({ timeoutMs: 100 });
        } catch (err) {
          this.errors.push((err as Error).message);
        }
      }
    })();
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await this.consumer.close();
  }
}

interface Side {
  readonly name: 'kafka' | 'brook';
  readonly bootstrap: string;
  readonly admin: Admin;
}

/**
 * Three consumer-protocol members (one static, with a group instance id) and one classic
 * member, until the consumer group is Stable and every member holds its target.
 */
async function formGroups(side: Side, cleanup: Cleanup): Promise<GroupDescription> {
  await createTopic(side.bootstrap, TOPIC, PARTITIONS);
  // Kafka creates the topic through its controller: retry until every partition has a leader.
  await until(`${side.name}: records produced`, 30_000, async () => {
    try {
      await produceSpread(side.bootstrap, TOPIC, PARTITIONS, 5);
      return true;
    } catch {
      return undefined;
    }
  });
  const members = [
    new Member(side.bootstrap, GROUP, 'consumer', 'admin-cg-client'),
    new Member(side.bootstrap, GROUP, 'consumer', 'admin-cg-client'),
    new Member(side.bootstrap, GROUP, 'consumer', 'admin-cg-client', 'admin-cg-static'),
    new Member(side.bootstrap, CLASSIC, 'classic', 'admin-classic-client'),
  ];
  cleanup.add(`${side.name}: close consumers`, async () => {
    for (const m of members) await m.close();
  });
  const settled = await until(`${side.name}: consumer group Stable, targets reached`, 60_000, async () => {
    const d = await side.admin.describeGroup(GROUP);
    const done = d.state === 'Stable' && d.members.length === 3
      && d.members.flatMap((m) => m.assignment).length === PARTITIONS
      && d.members.every((m) => m.memberEpoch === d.assignmentEpoch && m.assignment.length > 0
        && JSON.stringify(m.assignment) === JSON.stringify(m.targetAssignment));
    return done ? d : undefined;
  });
  await until(`${side.name}: classic group Stable`, 30_000, async () => ((await side.admin.describeGroup(CLASSIC)).state === 'Stable' ? true : undefined));
  return settled;
}

test('consumer groups in the admin views: brook groups and kafka-consumer-groups, against Brook and against Kafka 4.4', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const [kafka, brook] = await Promise.all([
    startKafka({
      config: {
        'num.partitions': '1', 'group.initial.rebalance.delay.ms': '0',
        'group.consumer.heartbeat.interval.ms': '1000', 'group.consumer.min.heartbeat.interval.ms': '1000',
      },
    }),
    startBrook({ groupInitialRebalanceDelayMs: 0, groupConsumerHeartbeatIntervalMs: 1000, groupConsumerMinHeartbeatIntervalMs: 1000 }),
  ]);
  cleanup.add('stop kafka', () => kafka.stop());
  cleanup.add('stop brook', () => brook.stop());
  const sides: Side[] = [];
  for (const [name, bootstrap] of [['kafka', kafka.bootstrap], ['brook', brook.bootstrap]] as const) {
    const admin = await Admin.connect({ bootstrapServers: bootstrap });
    cleanup.add(`${name}: close admin`, () => admin.close());
    sides.push({ name, bootstrap, admin });
  }

  const outputs = new Map<string, Record<string, string>>();
  for (const side of sides) {
    const d = await formGroups(side, cleanup);
    // The admin client: a consumer group through ConsumerGroupDescribe.
    assert.equal(d.type, 'consumer', side.name);
    assert.equal(d.protocolType, 'consumer');
    assert.equal(d.protocol, 'uniform', `${side.name}: the broker's default assignor`);
    assert.ok(d.groupEpoch !== null && d.assignmentEpoch !== null && d.assignmentEpoch <= d.groupEpoch && d.generation === d.groupEpoch, side.name);
    assert.deepEqual(d.members.map((m) => m.groupInstanceId).sort(), ['admin-cg-static', null, null]);
    for (const m of d.members) {
      assert.deepEqual(m.subscribedTopics, [TOPIC]);
      assert.equal(m.subscribedTopicRegex, null);
      assert.equal(m.clientId, 'admin-cg-client');
    }
    assert.deepEqual(d.members.flatMap((m) => m.assignment.map((tp) => tp.partition)).sort(), [0, 1, 2, 3]);
    const classic = await side.admin.describeGroup(CLASSIC);
    assert.equal(classic.type, 'classic');
    assert.equal(classic.groupEpoch, null);
    assert.ok(classic.members.every((m) => m.memberEpoch === null && m.targetAssignment === null));
    assert.deepEqual((await side.admin.listGroups({ types: ['consumer'] })).map((g) => [g.group, g.type, g.state]), [[GROUP, 'consumer', 'Stable']]);
    assert.deepEqual((await side.admin.listGroups({ types: ['classic'], states: ['stable'] })).map((g) => [g.group, g.type]), [[CLASSIC, 'classic']]);

    // brook groups describe: JSON and table.
    const json = JSON.parse(ok(await brookCli(['groups', 'describe', GROUP, '--json', '-b', side.bootstrap]), 'describe --json')) as Record<string, unknown> & {
      members: { memberEpoch: number; assignment: unknown[]; targetAssignment: unknown[]; subscribedTopics: string[] }[];
    };
    assert.deepEqual(Object.keys(json), ['group', 'state', 'protocolType', 'protocol', 'generation', 'members', 'offsets', 'type', 'groupEpoch', 'assignmentEpoch']);
    assert.equal(json['type'], 'consumer');
    assert.equal(json['assignmentEpoch'], d.assignmentEpoch);
    for (const m of json.members) {
      assert.deepEqual(Object.keys(m), ['memberId', 'groupInstanceId', 'clientId', 'host', 'assignment', 'memberEpoch', 'targetAssignment', 'subscribedTopics', 'subscribedTopicRegex', 'rackId']);
      assert.deepEqual(m.assignment, m.targetAssignment);
    }
    const classicJson = JSON.parse(ok(await brookCli(['groups', 'describe', CLASSIC, '--json', '-b', side.bootstrap]), 'describe classic --json')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(classicJson), ['group', 'state', 'protocolType', 'protocol', 'generation', 'members', 'offsets'], 'a classic group keeps the documented keys');

    const out: Record<string, string> = {
      brookDescribe: ok(await brookCli(['groups', 'describe', GROUP, '-b', side.bootstrap]), 'brook groups describe'),
      brookList: ok(await brookCli(['groups', 'list', '-b', side.bootstrap]), 'brook groups list'),
      brookListConsumer: ok(await brookCli(['groups', 'list', '--type', 'consumer', '-b', side.bootstrap]), 'brook groups list --type consumer'),
      members: ok(await kafkaGroups(side.bootstrap, ['--describe', '--group', GROUP, '--members', '--verbose']), 'kafka --members --verbose'),
      state: ok(await kafkaGroups(side.bootstrap, ['--describe', '--group', GROUP, '--state', '--verbose']), 'kafka --state --verbose'),
      offsets: ok(await kafkaGroups(side.bootstrap, ['--describe', '--group', GROUP]), 'kafka --describe'),
      list: ok(await kafkaGroups(side.bootstrap, ['--list', '--type', '--state']), 'kafka --list --type --state'),
      listConsumer: ok(await kafkaGroups(side.bootstrap, ['--list', '--type', 'consumer']), 'kafka --list --type consumer'),
      listClassic: ok(await kafkaGroups(side.bootstrap, ['--list', '--type', 'classic', '--state', 'stable']), 'kafka --list --type classic --state stable'),
    };
    for (const [k, v] of Object.entries(out)) t.diagnostic(`${side.name} ${k}:\n${v}`);
    outputs.set(side.name, out);

    // brook groups describe: the state line and the members table Kafka's tool prints.
    assert.match(out['brookDescribe']!, new RegExp(`^Consumer group '${GROUP}' is Stable \\(type consumer, assignor uniform, group epoch ${d.groupEpoch}, assignment epoch ${d.assignmentEpoch}, 3 members, total lag \\d+\\)\\.`));
    const brookMembers = membersColumns(out['brookDescribe']!);
    const kafkaMembers = membersColumns(out['members']!);
    assert.deepEqual(kafkaMembers.rows.map((r) => r[2]).sort(), ['', '', 'admin-cg-static'], `${side.name}: Kafka's tool leaves the instance id blank for dynamic members`);
    assert.deepEqual(brookMembers, kafkaMembers, `${side.name}: brook groups describe's members = kafka-consumer-groups --members --verbose`);
    assert.deepEqual(table(out['brookDescribe']!), table(out['offsets']!), `${side.name}: brook groups describe's offsets = kafka-consumer-groups --describe`);
    // brook groups list: the groups, types and states Kafka's tool lists (Kafka's tool
    // capitalizes the type, Consumer and Classic; Brook prints the wire names).
    const lower = (rows: string[][]): string[][] => rows.map((r) => r.map((c) => c.toLowerCase()));
    assert.deepEqual(lower(table(out['brookList']!).rows), lower(table(out['list']!).rows), `${side.name}: brook groups list = kafka-consumer-groups --list --type --state`);
    assert.deepEqual(lower(table(out['brookListConsumer']!).rows.map((r) => r.slice(0, 2))), lower(table(out['listConsumer']!).rows), `${side.name}: --type consumer`);
  }

  // Kafka's tool against Brook answers in the shape it answers against Kafka.
  const k = outputs.get('kafka')!;
  const b = outputs.get('brook')!;
  const shape = (stdout: string, keep: (row: string[], header: string[]) => string[], cut = table): { header: string[]; rows: string[][] } => {
    const { header, rows } = cut(stdout);
    return { header, rows: rows.map((r) => keep(r, header)).sort((x, y) => (x.join(' ') < y.join(' ') ? -1 : 1)) };
  };
  // --members --verbose: the header; per member its instance id, client id, whether it holds
  // its target and is at the target epoch (member ids, hosts, epochs and which partitions
  // differ between the two clusters).
  const membersShape = (row: string[], header: string[]): string[] => {
    const col = (name: string): string => row[header.indexOf(name)] ?? '?';
    return [col('GROUP'), header.includes('GROUP-INSTANCE-ID') ? col('GROUP-INSTANCE-ID') : '(no column)', col('CLIENT-ID'),
      col('CURRENT-ASSIGNMENT') === col('TARGET-ASSIGNMENT') ? 'current = target' : 'current != target',
      col('CURRENT-EPOCH') === col('TARGET-EPOCH') ? 'epoch = target epoch' : 'epochs differ'];
  };
  assert.deepEqual(shape(b['members']!, membersShape, membersColumns), shape(k['members']!, membersShape, membersColumns), '--describe --members --verbose');
  // --state --verbose: GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE GROUP-EPOCH TARGET-ASSIGNMENT-EPOCH #MEMBERS
  const stateShape = (row: string[]): string[] => [row[0]!, ...row.slice(3, 5), row.at(-1)!];
  assert.deepEqual(shape(b['state']!, stateShape), shape(k['state']!, stateShape), '--describe --state --verbose');
  for (const key of ['list', 'listConsumer', 'listClassic']) assert.deepEqual(table(b[key]!), table(k[key]!), key);
});
