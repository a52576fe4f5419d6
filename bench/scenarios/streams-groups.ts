/**
 * Streams groups (KIP-1071, Kafka Streams' `group.protocol=streams`) against the classic
 * protocol, on Brook's broker and on Kafka 4.4 in the same run, with Kafka Streams 4.4
 * applications (test/support/java StreamsWordCount, one JVM per instance, one stream thread,
 * at_least_once, RocksDB store, each instance its own state dir).
 *
 * The input topic has 8 partitions, so the word count has 16 tasks (subtopology 0 reads the
 * input, subtopology 1 the repartition topic): 8 instances all get some. A producer writes
 * input lines all along, so the instances are processing when one of them closes.
 *
 * "Assigned" is the application's view and the broker's, the same for both protocols:
 *   - every instance's latest state line is `state RUNNING`, and the instances' latest
 *     `tasks ...` lines (the active tasks each runs, sampled every 10 ms) hold every one of the
 *     16 tasks exactly once, each instance at least one;
 *   - then the broker describes the group as Stable with exactly these instances as members
 *     (streams: StreamsGroupDescribe, every member at the assignment epoch; classic:
 *     DescribeGroups), polled every 20 ms.
 * Its time is the later of the latest of those lines and the first Stable description.
 *   - start to RUNNING: from spawning N instances at once (JVM start-up included, equal for
 *     every broker and protocol) to the N instances assigned;
 *   - takeover: with all N assigned and processing (after a settling pause), one instance is
 *     closed gracefully (its stdin closes: KafkaStreams.close(), Variant says how); from that
 *     moment to the N-1 others assigned, i.e. running every task of the closed instance too.
 * An instance that prints an `error` line (a stream thread died, e.g. the broker does not
 * support the protocol) or exits ends the run at once with that line: nothing waits for a
 * timeout.
 */
import { KafkaConnection } from '../../src/client/connection.js';
import { Producer, stringSerializers } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Api } from '../../src/protocol/messages/index.js';
import { tempDir } from '../../test/support/brook.js';
import { buildJavaSupport } from '../../test/support/java-oracle.js';
import { startWordCountApp, wordCountInput, type WordCountApp } from '../../test/support/streams-word-count.js';
import { createTopic, uniqueName } from '../lib/topics.js';
import { progress } from '../lib/progress.js';
import { brokerUnavailable, startBroker, type BrokerKind, type BrokerUnderTest } from '../lib/brokers.js';
import { connect, ensureCoordinator } from '../lib/commits.js';
import { Recorder, usableBrokers, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';

const PARTITIONS = 8;
/** Subtopology 0 (input partitions) and 1 (repartition topic, as many partitions). */
const TASKS = [0, 1].flatMap((sub) => Array.from({ length: PARTITIONS }, (_, p) => `${sub}_${p}`)).sort();
/**
 * What runs: a group protocol, and how the closed instance closes. KafkaStreams.close() by
 * default leaves a streams group but not a classic one (its tasks move when its session
 * times out); "classic, leave on close" closes with CloseOptions LEAVE_GROUP, to tell the
 * protocol's cost from that default's (full runs only).
 */
interface Variant { readonly name: string; readonly protocol: 'classic' | 'streams'; readonly leaveGroupOnClose: boolean }
const CLASSIC: Variant = { name: 'classic', protocol: 'classic', leaveGroupOnClose: false };
const CLASSIC_LEAVING: Variant = { name: 'classic, leave on close', protocol: 'classic', leaveGroupOnClose: true };
const STREAMS: Variant = { name: 'streams', protocol: 'streams', leaveGroupOnClose: false };
/** Input lines per producer tick (every 50 ms): 400 lines/s. */
const LINES_PER_TICK = 20;

/**
 * The streams-group settings both brokers get: no initial rebalance delay (as
 * group.initial.rebalance.delay.ms=0 for classic groups, lib/brokers.ts), the run's assignment
 * interval (as for consumer groups), and the heartbeat interval and session timeout
 * StreamsWordCount gives its classic members, so that both protocols learn of changes as often.
 */
function streamsGroupConfig(assignmentIntervalMs: number): Record<string, string> {
  return {
    'group.streams.initial.rebalance.delay.ms': '0',
    'group.streams.assignment.interval.ms': String(assignmentIntervalMs),
    // Kafka's bound (15 s by default; Brook has it fixed at that) only when the interval exceeds it.
    ...(assignmentIntervalMs > 15_000 ? { 'group.streams.max.assignment.interval.ms': String(assignmentIntervalMs) } : {}),
    'group.streams.heartbeat.interval.ms': '1000',
    'group.streams.min.heartbeat.interval.ms': '1000',
    'group.streams.session.timeout.ms': '6000',
    'group.streams.min.session.timeout.ms': '6000',
  };
}

/** A broker of its own for this scenario: the run's settings for `kind` plus the streams-group ones. */
async function startScenarioBroker(ctx: ScenarioContext, kind: BrokerKind): Promise<BrokerUnderTest> {
  const base = ctx.pool.options(kind);
  const broker = await startBroker(kind, { ...base, config: { ...base.config, ...streamsGroupConfig(ctx.assignmentIntervalMs) } });
  try {
    // __consumer_offsets created before the first application starts (as BrokerPool does).
    const conn = await connect(broker.bootstrap, 'brook-bench-warmup');
    try {
      await ensureCoordinator(conn, 'brook-bench-warmup');
    } finally {
      conn.close();
    }
  } catch (err) {
    await broker.stop();
    throw err;
  }
  return broker;
}

/** The group to describe: a connection to the broker, the application id, the protocol. */
interface GroupView { readonly conn: KafkaConnection; readonly id: string; readonly protocol: Variant['protocol'] }

interface Instance { readonly app: WordCountApp; readonly name: string; remove(): void }

/** The latest line of `app` starting with `prefix`, and its time; null when there is none. */
function latest(app: WordCountApp, prefix: string): { line: string; at: number } | null {
  for (let i = app.lines.length - 1; i >= 0; i--) {
    const line = app.lines[i]!;
    if (line === prefix || line.startsWith(`${prefix} `)) return { line, at: app.lineTimes[i]! };
  }
  return null;
}

/** When `instances` became assigned (header), or null while they are not. */
function assignedAt(instances: readonly Instance[]): number | null {
  const held: string[] = [];
  let at = 0;
  for (const { app } of instances) {
    const state = latest(app, 'state');
    const tasks = latest(app, 'tasks');
    if (state?.line !== 'state RUNNING' || tasks === null) return null;
    const mine = tasks.line.split(' ').slice(1);
    if (mine.length === 0) return null;
    held.push(...mine);
    at = Math.max(at, state.at, tasks.at);
  }
  held.sort();
  return held.length === TASKS.length && held.every((t, i) => t === TASKS[i]) ? at : null;
}

/** Throws with the instance's output when one printed an error or exited. */
function checkHealthy(instances: readonly Instance[]): void {
  for (const { app, name } of instances) {
    const error = app.lines.find((l) => l.startsWith('error'));
    const exited = app.child.exitCode !== null || app.child.signalCode !== null;
    if (error !== undefined) throw new Error(`instance ${name}: ${error} (states: ${app.lines.filter((l) => l.startsWith('state')).join(', ')})`);
    if (exited) {
      const stderr = app.stderr().split('\n').filter((l) => !l.startsWith('SLF4J')).join(' ').slice(-800);
      throw new Error(`instance ${name} exited ${app.child.exitCode ?? app.child.signalCode}: ${app.lines.filter((l) => !l.startsWith('tasks')).join(' | ')}; stderr: ${stderr}`);
    }
  }
}

/** The group as the broker describes it: its state and members ("Stable 2/2"), and whether that is Stable with `members` members (streams: all at the assignment epoch). */
async function describeGroup(conn: KafkaConnection, group: string, protocol: Variant['protocol'], members: number): Promise<{ stable: boolean; seen: string }> {
  if (protocol === 'streams') {
    const r = await conn.request(Api.StreamsGroupDescribe, { groupIds: [group], includeAuthorizedOperations: false, includeTopologyDescription: false });
    const g = r.groups[0]!;
    const current = g.members.filter((m) => m.memberEpoch === g.assignmentEpoch).length;
    return {
      stable: g.errorCode === ErrorCode.NONE && g.groupState === 'Stable' && g.members.length === members && current === members,
      seen: g.errorCode === ErrorCode.NONE ? `${g.groupState}, ${g.members.length} members, ${current} at assignment epoch ${g.assignmentEpoch}` : `error ${g.errorCode} ${g.errorMessage ?? ''}`,
    };
  }
  const r = await conn.request(Api.DescribeGroups, { groups: [group], includeAuthorizedOperations: false });
  const g = r.groups[0]!;
  return {
    stable: g.errorCode === ErrorCode.NONE && g.groupState === 'Stable' && g.members.length === members,
    seen: g.errorCode === ErrorCode.NONE ? `${g.groupState}, ${g.members.length} members` : `error ${g.errorCode}`,
  };
}

/** Waits until `instances` are assigned (header); returns when (Date.now() clock). */
async function waitAssigned(group: GroupView, instances: readonly Instance[], what: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let described = 'not described yet';
  for (;;) {
    checkHealthy(instances);
    const at = assignedAt(instances);
    if (at !== null) {
      const d = await describeGroup(group.conn, group.id, group.protocol, instances.length);
      if (d.stable) return Math.max(at, Date.now());
      described = d.seen;
    }
    if (Date.now() > deadline) {
      const seen = instances.map(({ app, name }) => `${name}: ${latest(app, 'state')?.line ?? 'no state'}, ${latest(app, 'tasks')?.line ?? 'no tasks'}`);
      throw new Error(`${what}: not assigned in ${timeoutMs} ms (${seen.join('; ')}; the group: ${described})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Produces input lines every 50 ms until stopped. */
function feedInput(bootstrap: string, topic: string): { stop(): Promise<void> } {
  const producer = new Producer({ bootstrapServers: bootstrap, acks: 'all', lingerMs: 5, serializers: stringSerializers });
  const lines = wordCountInput(2_000, 3);
  let n = 0;
  let failure: unknown = null;
  const timer = setInterval(() => {
    for (let i = 0; i < LINES_PER_TICK; i++, n++) {
      producer.send({ topic, key: `line-${n}`, value: lines[n % lines.length]! }).catch((err: unknown) => (failure ??= err));
    }
  }, 50);
  return {
    async stop() {
      clearInterval(timer);
      await producer.flush().catch(() => undefined);
      await producer.close();
      if (failure !== null) throw new Error(`input producer: ${(failure as Error).message}`);
    },
  };
}

interface RunResult { startMs: number; takeoverMs: number }

async function runOnce(bootstrap: string, variant: Variant, size: number, quick: boolean): Promise<RunResult> {
  const app = uniqueName(`bench-sg-${variant.protocol}`);
  await createTopic(bootstrap, `${app}-in`, PARTITIONS);
  await createTopic(bootstrap, `${app}-out`, PARTITIONS);
  const feed = feedInput(bootstrap, `${app}-in`);
  const [host, port] = bootstrap.split(':');
  const group: GroupView = { conn: await KafkaConnection.connect({ host: host!, port: Number(port), clientId: 'brook-bench-streams-groups' }), id: app, protocol: variant.protocol };
  const instances: Instance[] = [];
  try {
    const started = Date.now();
    for (let i = 0; i < size; i++) {
      const state = tempDir('brook-bench-sg-');
      instances.push({
        name: String(i),
        remove: () => state.remove(),
        app: startWordCountApp({
          bootstrap, applicationId: app, input: `${app}-in`, output: `${app}-out`, guarantee: 'at_least_once', stateDir: state.path,
          configs: { 'group.protocol': variant.protocol }, leaveGroupOnClose: variant.leaveGroupOnClose,
        }),
      });
    }
    const formedAt = await waitAssigned(group, instances, `${size} instances starting`, quick ? 60_000 : 120_000);
    // Processing for a while, and any follow-up rebalance (classic: probing, cooperative second round) over.
    await new Promise((resolve) => setTimeout(resolve, quick ? 1_000 : 3_000));
    await waitAssigned(group, instances, `${size} instances settled`, 30_000);
    const closing = instances[size - 1]!;
    const closedAt = Date.now();
    const exit = closing.app.close();
    const rest = instances.slice(0, -1);
    const takenAt = await waitAssigned(group, rest, `takeover from instance ${closing.name}`, 60_000);
    const code = await exit;
    if (code !== 0) throw new Error(`instance ${closing.name} closed with exit code ${code}: ${closing.app.lines.filter((l) => !l.startsWith('tasks')).join(' | ')}`);
    return { startMs: formedAt - started, takeoverMs: takenAt - closedAt };
  } finally {
    await Promise.all(instances.map((i) => i.app.close(20_000)));
    for (const i of instances) i.remove();
    group.conn.close();
    await feed.stop();
  }
}

/** Every variant and size on one broker, `ctx.runs` runs each. */
async function measure(ctx: ScenarioContext, rec: Recorder, kind: BrokerKind, bootstrap: string, sizes: readonly number[]): Promise<void> {
  for (const variant of ctx.quick ? [CLASSIC, STREAMS] : [CLASSIC, CLASSIC_LEAVING, STREAMS]) {
    for (const size of sizes) {
      const what = `${caseName(variant, size)} on ${kind}`;
      await rec.attempt(what, async () => {
        const start: number[] = [];
        const takeover: number[] = [];
        for (let run = 1; run <= ctx.runs; run++) {
          progress(`streams-groups: ${what}, run ${run}/${ctx.runs}`);
          const r = await runOnce(bootstrap, variant, size, ctx.quick);
          start.push(r.startMs);
          takeover.push(r.takeoverMs);
          progress(`streams-groups: ${what}: start to RUNNING ${r.startMs} ms, takeover ${r.takeoverMs} ms`);
        }
        const where = { case: caseName(variant, size), client: 'kafka-streams', broker: kind, ...(variant === STREAMS ? { vsCase: caseName(CLASSIC, size) } : {}) };
        rec.add(where, { name: 'start to RUNNING', unit: 'ms', lowerIsBetter: true }, start);
        rec.add(where, { name: 'takeover', unit: 'ms', lowerIsBetter: true }, takeover);
      });
    }
  }
}

const caseName = (variant: Variant, size: number): string => `${variant.name}, ${size} instances`;

export const streamsGroupsScenario: Scenario = {
  name: 'streams-groups',
  title: 'Kafka Streams 4.4 word count: start to RUNNING and takeover after a graceful close, group.protocol=streams vs classic',
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    rec.caseRatio = 'streams vs classic';
    const sizes = ctx.quick ? [2] : [2, 8];
    rec.notes.push(`${PARTITIONS} input partitions (${TASKS.length} tasks), at_least_once, one stream thread per instance, input produced at ${LINES_PER_TICK * 20} lines/s throughout`);
    rec.notes.push(`both brokers (started for this scenario): group.initial.rebalance.delay.ms=0, ${Object.entries(streamsGroupConfig(ctx.assignmentIntervalMs)).map(([k, v]) => `${k}=${v}`).join(', ')}; classic members: session.timeout.ms=6000, heartbeat.interval.ms=1000 (StreamsWordCount)`);
    rec.notes.push('assigned = every instance RUNNING, the instances\' active tasks covering every task exactly once (each instance at least one), and the group described Stable with exactly these members; start: spawn of all instances to assigned; takeover: close of the last instance to the others assigned');
    rec.notes.push('KafkaStreams.close() leaves a streams group, but not a classic one: "classic" takeovers wait for the closed member\'s 6 s session to time out; "classic, leave on close" closes with CloseOptions LEAVE_GROUP');
    const noJava = brokerUnavailable('kafka');
    if (noJava !== null) {
      rec.skipped.push(`Kafka Streams: ${noJava}`);
      return rec.report();
    }
    buildJavaSupport();
    for (const kind of usableBrokers(ctx, rec)) {
      await rec.attempt(`${kind} broker`, async () => {
        progress(`streams-groups: starting a ${kind} broker with the streams-group settings`);
        const broker = await startScenarioBroker(ctx, kind);
        try {
          await measure(ctx, rec, kind, broker.bootstrap, sizes);
        } finally {
          await broker.stop();
        }
      });
    }
    return rec.report();
  },
};
