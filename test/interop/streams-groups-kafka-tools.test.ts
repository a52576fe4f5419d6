/**
 * Apache Kafka 4.4's own `kafka-streams-groups` (StreamsGroupCommand from the tools jar)
 * against Kafka 4.4 and against Brook, each with a running Kafka Streams 4.4 word count
 * (test/support/java StreamsWordCount, `group.protocol=streams`, at_least_once: no transaction
 * markers, so every offset the tool prints depends on the input only). The same script runs
 * on each broker ("on Kafka 4.4" validates it): while the application runs, `--list` (and
 * with `--state`), `--describe` (offsets, `--members`, `--state`, each also `--verbose`),
 * `brook groups describe` printing the same tables (checked on Kafka 4.4 too), and a refused
 * `--reset-offsets`; once it closed (the group Empty), `--reset-offsets
 * --to-earliest` (dry run, then executed) and `--describe` of the reset offsets, `--delete`,
 * and `--describe` of the deleted group. Each step's exit code and lines go into a transcript;
 * "Brook prints what Kafka prints" compares the two transcripts line by line.
 *
 * Normalised in the tool's lines, as the only things that legitimately differ:
 *   - the coordinator's address ("127.0.0.1:PORT (NODE)"), each broker's own;
 *   - the application's process id (a UUID) and member ids (Kafka Uuids, which the Streams
 *     client draws at random), replaced by <id1>, <id2>, ... in order of appearance within an
 *     output, so an id shown twice is still shown as the same;
 *   - the client id's generated suffix is the application id plus that member's UUID, covered
 *     by the previous rule; the client host is 127.0.0.1 on both.
^ * Columns are split on runs of blanks (column widths follow the longest value), and the lines
 * of an output are compared sorted: the tool prints rows in hash-map order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, type RunResult } from '../support/clients/run.js';
import { buildJavaSupport } from '../support/java-oracle.js';
import { kafkaAvailable, kafkaClasspath, startKafka } from '../support/kafka/kafka-broker.js';
import { produceLines, readWordCounts, startWordCountApp, trueCounts, wordCountInput } from '../support/streams-word-count.js';
import { Admin } from '../../src/index.js';
import { join } from 'node:path';
import { projectRoot } from '../support/brook.js';

/** A process id (java.util.UUID's text). */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** A member id (Kafka's Uuid in URL-safe base64: 22 characters, mixed case; our topic names are lower case). */
const MEMBER_ID = /^[A-Za-z0-9_-]{22}$/;
const STREAMS_GROUP_COMMAND = 'org.apache.kafka.tools.streams.StreamsGroupCommand';
const APP = 'sgt-app';
const INPUT = `${APP}-in`;
const OUTPUT = `${APP}-out`;
const LINES = wordCountInput(300, 21);
const EXPECTED = trueCounts(LINES);

const brookCli = (bootstrap: string, args: readonly string[]): Promise<RunResult> =>
  runProcess(process.execPath, [join(projectRoot, 'bin', 'brook'), ...args, '-b', bootstrap], { timeoutMs: 60_000 });

const streamsGroups = (bootstrap: string, args: readonly string[]): Promise<RunResult> =>
  runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), STREAMS_GROUP_COMMAND, '--bootstrap-server', bootstrap, ...args], { timeoutMs: 60_000 });

/** The tool's lines, normalised as the header says. */
function lines(stdout: string): string[] {
  const ids = new Map<string, string>();
  const id = (raw: string): string => {
    if (!ids.has(raw)) ids.set(raw, `<id${ids.size + 1}>`);
    return ids.get(raw)!;
  };
  return stdout.split('\n')
    .map((l) => l.trim().replace(/127\.0\.0\.1:\d+\s+\(\d+\)/g, 'COORDINATOR').split(/\s+/)
      .map((token) => (MEMBER_ID.test(token) && /[A-Z]/.test(token) && /[a-z]/.test(token) ? id(token) : token.replace(UUID, id)))
      .join(' '))
    .filter((l) => l !== '')
    .sort();
}

interface Step {
  readonly what: string;
  readonly code: number | null;
  readonly lines: string[];
}

/** The script on one broker; asserts what Kafka 4.4's tool prints; returns the transcript. */
async function script(bootstrap: string, cleanup: Cleanup, diagnostic: (s: string) => void): Promise<Step[]> {
  const steps: Step[] = [];
  const run = async (what: string, args: readonly string[]): Promise<Step> => {
    const r = await streamsGroups(bootstrap, args);
    const step = { what, code: r.code, lines: lines(r.stdout) };
    if (process.env.BROOK_TEST_VERBOSE) diagnostic(`${what}: exit ${r.code}\n${r.stdout}${r.stderr}`);
    steps.push(step);
    return step;
  };
  const ok = async (what: string, args: readonly string[]): Promise<string[]> => {
    const s = await run(what, args);
    assert.equal(s.code, 0, `${what}: ${s.lines.join('\n')}`);
    return s.lines;
  };

  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    await admin.createTopic({ name: INPUT, partitions: 2 });
    await admin.createTopic({ name: OUTPUT, partitions: 2 });
  } finally {
    admin.close();
  }
  await produceLines(bootstrap, INPUT, LINES);
  const state = tempDir('brook-streams-tool-');
  cleanup.add('remove the state dir', () => state.remove());
  const app = startWordCountApp({
    bootstrap, applicationId: APP, input: INPUT, output: OUTPUT, guarantee: 'at_least_once', stateDir: state.path, configs: { 'group.protocol': 'streams' },
  });
  cleanup.add('stop the application', () => app.close(15_000));
  await app.waitFor(/^state RUNNING$/, 60_000);
  const output = await readWordCounts(bootstrap, OUTPUT, 2, EXPECTED, 60_000);
  assert.equal(output.completeAtMs !== null, true, 'the application counted every word');
  // at_least_once commits every 100 ms: wait until the tool shows no lag at all (its default
  // columns: GROUP TOPIC PARTITION OFFSET-LAG).
  for (let i = 0; ; i++) {
    const r = await streamsGroups(bootstrap, ['--describe', '--group', APP]);
    const rows = lines(r.stdout).filter((l) => l.startsWith(`${APP} `));
    if (rows.length > 0 && rows.every((l) => l.split(' ')[3] === '0')) break;
    if (i > 30) throw new Error(`the group's lag never reached 0: ${r.stdout}${r.stderr}`);
  }

  const listed = await ok('--list', ['--list']);
  assert.ok(listed.includes(APP), listed.join('\n'));
  await ok('--list --state', ['--list', '--state']);
  const offsets = await ok('--describe', ['--describe', '--group', APP]);
  assert.deepEqual(offsets.filter((l) => l.startsWith(`${APP} `)).map((l) => l.split(' ').slice(1, 3).join(' ')).sort(),
    [`${APP}-words-repartition 0`, `${APP}-words-repartition 1`, `${INPUT} 0`, `${INPUT} 1`].sort(), offsets.join('\n'));
  const offsetsVerbose = await ok('--describe --offsets --verbose', ['--describe', '--group', APP, '--offsets', '--verbose']);
  const members = await ok('--describe --members', ['--describe', '--group', APP, '--members']);
  assert.ok(members.some((l) => l.startsWith(`${APP} `) && l.includes('ACTIVE: 0:[0,1]; 1:[0,1];')), members.join('\n'));
  const membersVerbose = await ok('--describe --members --verbose', ['--describe', '--group', APP, '--members', '--verbose']);
  const stable = await ok('--describe --state', ['--describe', '--group', APP, '--state']);
  assert.ok(stable.some((l) => l.startsWith(`${APP} `) && l.includes('Stable')), stable.join('\n'));
  const stateVerbose = await ok('--describe --state --verbose', ['--describe', '--group', APP, '--state', '--verbose']);
  // `brook groups describe` prints the tool's tables: --members and --state alone, and the
  // offsets table (of the running application: the same partitions) within its default view.
  const brookLines = async (args: readonly string[]): Promise<string[]> => {
    const r = await brookCli(bootstrap, ['groups', 'describe', APP, ...args]);
    assert.equal(r.code, 0, `brook groups describe ${args.join(' ')}: ${r.stderr}`);
    return lines(r.stdout);
  };
  assert.deepEqual(await brookLines(['--members']), members, 'brook groups describe --members');
  assert.deepEqual(await brookLines(['--members', '--verbose']), membersVerbose, 'brook groups describe --members --verbose');
  assert.deepEqual(await brookLines(['--state']), stable, 'brook groups describe --state');
  assert.deepEqual(await brookLines(['--state', '--verbose']), stateVerbose, 'brook groups describe --state --verbose');
  const brookDefault = await brookLines([]);
  for (const l of offsets) assert.ok(brookDefault.includes(l), `brook groups describe shows ${l}: ${brookDefault.join('\n')}`);
  const brookVerbose = await brookLines(['--verbose']);
  for (const l of offsetsVerbose) assert.ok(brookVerbose.includes(l), `brook groups describe --verbose shows ${l}: ${brookVerbose.join('\n')}`);
  const busy = await run('--reset-offsets while the application runs', ['--reset-offsets', '--group', APP, '--input-topic', INPUT, '--to-earliest', '--execute']);
  assert.ok(busy.lines.some((l) => /not empty|Stable/i.test(l)) || busy.code !== 0, busy.lines.join('\n'));

  assert.equal(await app.close(), 0, `the application closes cleanly: ${app.lines.join(' | ')}`);
  const empty = await ok('--describe --state of the closed application', ['--describe', '--group', APP, '--state']);
  assert.ok(empty.some((l) => l.startsWith(`${APP} `) && l.includes('Empty')), empty.join('\n'));
  await ok('--reset-offsets --to-earliest --dry-run', ['--reset-offsets', '--group', APP, '--input-topic', INPUT, '--to-earliest', '--dry-run']);
  const reset = await ok('--reset-offsets --to-earliest --execute', ['--reset-offsets', '--group', APP, '--input-topic', INPUT, '--to-earliest', '--execute']);
  assert.deepEqual(reset.filter((l) => l.startsWith(`${APP} ${INPUT} `)).map((l) => l.split(' ').slice(2).join(' ')).sort(), ['0 0', '1 0'], reset.join('\n'));
  await ok('--describe after the reset', ['--describe', '--group', APP]);
  await ok('--delete', ['--delete', '--group', APP]);
  const gone = await ok('--list after --delete', ['--list']);
  assert.ok(!gone.includes(APP), gone.join('\n'));
  await run('--describe of the deleted group', ['--describe', '--group', APP]);
  return steps;
}

test('kafka-streams-groups prints the same against Brook as against Kafka 4.4', { timeout: 400_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  buildJavaSupport();
  const transcripts: { kafka?: Step[]; brook?: Step[] } = {};

  await t.test('on Kafka 4.4', async (st) => {
    const cleanup = new Cleanup();
    st.after(() => cleanup.run());
    const kafka = await startKafka({ config: { 'group.initial.rebalance.delay.ms': '0', 'offsets.topic.num.partitions': '1' } });
    cleanup.add('stop kafka', async () => {
      await kafka.kill();
      await kafka.stop();
    });
    transcripts.kafka = await script(kafka.bootstrap, cleanup, (s) => st.diagnostic(s));
  });

  await t.test('on Brook', async (st) => {
    const cleanup = new Cleanup();
    st.after(() => cleanup.run());
    const brook = await startBrook({ groupInitialRebalanceDelayMs: 0 });
    cleanup.add('stop brook', () => brook.stop());
    transcripts.brook = await script(brook.bootstrap, cleanup, (s) => st.diagnostic(s));
  });

  await t.test('Brook prints what Kafka prints', () => {
    const { kafka, brook } = transcripts;
    assert.ok(kafka, 'the script ran on Kafka');
    assert.ok(brook, 'the script ran on Brook');
    assert.deepEqual(brook.map((s) => s.what), kafka.map((s) => s.what));
    kafka.forEach((k, i) => assert.deepEqual(brook[i], k, k.what));
  });
});
