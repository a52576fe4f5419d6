/**
 * Apache Kafka 4.4's own `kafka-share-groups` (ShareGroupCommand from the tools jar) against
 * Brook and against Kafka 4.4 itself, on the same script: a share group with one member
 * (raw ShareGroupHeartbeat, the script's member id and client id) on a two-partition topic
 * with records; `--list`, `--describe` (offsets, `--members`, `--state`, `--verbose`) while
 * it is in; then, Empty, `--reset-offsets --to-earliest --execute` and `--to-offset`,
 * `--describe` again, `--delete-offsets` and `--delete`. The tool's output must be the same
 * on both brokers, but for the coordinator's address; `brook groups` then describes the
 * group on Brook as Kafka's tool does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, type RunResult } from '../support/clients/run.js';
import { brookCli } from '../support/admin-fixture.js';
import { produce } from '../support/consumer-helpers.js';
import { kafkaAvailable, kafkaClasspath, startKafka } from '../support/kafka/kafka-broker.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const SHARE_GROUP_COMMAND = 'org.apache.kafka.tools.consumer.group.ShareGroupCommand';
const G = 'skg';
const TOPIC = 'skt';
const MEMBER = 'AAAAAAAAAAAAAAAAAAAAAA';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const shareGroups = (bootstrap: string, args: readonly string[]): Promise<RunResult> =>
  runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), SHARE_GROUP_COMMAND, '--bootstrap-server', bootstrap, ...args], { timeoutMs: 60_000 });

/** The tool's lines, trailing blanks dropped, columns split on runs of blanks; the coordinator's address masked. */
function lines(stdout: string): string[] {
  return stdout.split('\n').map((l) => l.trimEnd().replace(/127\.0\.0\.1:\d+\s+\(\d+\)/, 'COORDINATOR').split(/\s+/).join(' ')).filter((l) => l !== '');
}

interface Side {
  readonly name: 'kafka' | 'brook';
  readonly bootstrap: string;
  conn: RawConnection;
  epoch: number;
  timer?: NodeJS.Timeout;
}

async function join(side: Side): Promise<void> {
  for (let i = 0; ; i++) {
    const r = await side.conn.request('ShareGroupHeartbeat', 1, { groupId: G, memberId: MEMBER, memberEpoch: side.epoch, rackId: null, subscribedTopicNames: side.epoch === 0 ? [TOPIC] : null });
    // Kafka creates __consumer_offsets at the first FindCoordinator and loads it asynchronously.
    if ((r.errorCode === ErrorCode.NOT_COORDINATOR || r.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS || r.errorCode === ErrorCode.COORDINATOR_NOT_AVAILABLE) && i < 300) {
      await side.conn.request('FindCoordinator', 4, { key: '', keyType: 0, coordinatorKeys: [G] });
      await sleep(100);
      continue;
    }
    assert.equal(r.errorCode, 0, `${side.name}: ${r.errorMessage}`);
    side.epoch = r.memberEpoch;
    const d = await side.conn.request('ShareGroupDescribe', 1, { groupIds: [G], includeAuthorizedOperations: false });
    if (d.groups[0]!.members[0]?.assignment.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) === 2) break;
    if (i > 100) throw new Error(`${side.name}: never assigned`);
    await sleep(100);
  }
  // Keeps the member in while the tools run (Kafka's session timeout is 45 s).
  side.timer = setInterval(() => {
    void side.conn.request('ShareGroupHeartbeat', 1, { groupId: G, memberId: MEMBER, memberEpoch: side.epoch, rackId: null, subscribedTopicNames: null }).catch(() => undefined);
  }, 2_000);
}

async function leave(side: Side): Promise<void> {
  clearInterval(side.timer);
  const r = await side.conn.request('ShareGroupHeartbeat', 1, { groupId: G, memberId: MEMBER, memberEpoch: -1, rackId: null, subscribedTopicNames: null });
  assert.equal(r.errorCode, 0, `${side.name} leaving: ${r.errorMessage}`);
}

test('kafka-share-groups prints the same against Brook as against Kafka 4.4', { timeout: 600_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const kafka = await startKafka({ config: { 'group.initial.rebalance.delay.ms': '0', 'group.share.assignor.offload.enable': 'false', 'group.share.assignment.interval.ms': '0' } });
  cleanup.add('kafka', () => kafka.stop());
  const brook = await startBrook({ groupShareAssignmentIntervalMs: 0 });
  cleanup.add('brook', () => brook.stop());

  const sides: Side[] = [];
  for (const [name, bootstrap] of [['kafka', kafka.bootstrap], ['brook', brook.bootstrap]] as const) {
    const [host, port] = bootstrap.split(':');
    const conn = await RawConnection.connect(host!, Number(port), { clientId: 'share-tool' });
    cleanup.add(`${name} connection`, () => conn.close());
    const created = await conn.request('CreateTopics', 7, { topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
    assert.equal(created.topics[0]!.errorCode, 0, `${name}: ${created.topics[0]!.errorMessage}`);
    // Records stamped now: Kafka's time retention would delete older ones and move the log start.
    for (let p = 0; p < 2; p++) await produce(bootstrap, TOPIC, p, ['a', 'b', 'c', 'd', 'e']);
    sides.push({ name, bootstrap, conn, epoch: 0 });
  }
  for (const side of sides) await join(side);

  /** Runs the tool on both brokers; asserts the same exit code and lines; returns Kafka's lines. */
  async function same(what: string, args: readonly string[]): Promise<string[]> {
    const [k, b] = await Promise.all(sides.map((s) => shareGroups(s.bootstrap, args)));
    assert.equal(b!.code, k!.code, `${what}: exit code\nkafka: ${k!.stdout}${k!.stderr}\nbrook: ${b!.stdout}${b!.stderr}`);
    assert.deepEqual(lines(b!.stdout), lines(k!.stdout), `${what}\nkafka: ${k!.stdout}${k!.stderr}\nbrook: ${b!.stdout}${b!.stderr}`);
    return lines(k!.stdout);
  }

  assert.deepEqual((await same('--list', ['--list'])).filter((l) => l === G), [G]);
  const offsets = await same('--describe', ['--describe', '--group', G]);
  assert.ok(offsets.some((l) => l.startsWith(`${G} ${TOPIC} 0 `)), offsets.join('\n'));
  await same('--describe --offsets --verbose', ['--describe', '--group', G, '--offsets', '--verbose']);
  const members = await same('--describe --members', ['--describe', '--group', G, '--members']);
  assert.ok(members.some((l) => l.includes(MEMBER) && l.includes('share-tool')), members.join('\n'));
  await same('--describe --members --verbose', ['--describe', '--group', G, '--members', '--verbose']);
  await same('--describe --state', ['--describe', '--group', G, '--state']);
  await same('--describe --state --verbose', ['--describe', '--group', G, '--state', '--verbose']);
  await same('--reset-offsets of a group with a member', ['--reset-offsets', '--group', G, '--topic', TOPIC, '--to-earliest', '--execute']);
  await same('--delete-offsets of a group with a member', ['--delete-offsets', '--group', G, '--topic', TOPIC]);

  for (const side of sides) await leave(side);
  await same('--reset-offsets --to-earliest --execute', ['--reset-offsets', '--group', G, '--topic', TOPIC, '--to-earliest', '--execute']);
  const reset = await same('--describe after the reset', ['--describe', '--group', G]);
  assert.ok(reset.includes(`${G} ${TOPIC} 0 0 5`), reset.join('\n'));
  await same('--reset-offsets --to-offset 3 --dry-run', ['--reset-offsets', '--group', G, '--topic', `${TOPIC}:1`, '--to-offset', '3', '--dry-run']);
  await same('--reset-offsets --to-offset 3 --execute', ['--reset-offsets', '--group', G, '--topic', `${TOPIC}:1`, '--to-offset', '3', '--execute']);
  await same('--describe after --to-offset', ['--describe', '--group', G]);

  // brook groups describes the share group on Brook as Kafka's tool does (its verbose table).
  const verbose = await shareGroups(brook.bootstrap, ['--describe', '--group', G, '--verbose']);
  if (process.env.BROOK_TEST_VERBOSE) console.log(verbose.stdout);
  const tool = lines(verbose.stdout).filter((l) => l.startsWith(`${G} `));
  const cli = await brookCli(['groups', 'describe', G, '-b', brook.bootstrap]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(lines(cli.stdout).filter((l) => l.startsWith(`${G} `)), tool);

  await same('--delete-offsets', ['--delete-offsets', '--group', G, '--topic', TOPIC]);
  await same('--describe after --delete-offsets', ['--describe', '--group', G]);
  await same('--delete', ['--delete', '--group', G]);
  await same('--describe of the deleted group', ['--describe', '--group', G]);
});
