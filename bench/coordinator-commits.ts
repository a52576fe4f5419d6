/**
 * OffsetCommit through the pure group coordinator (no broker, no log): the cost of the
 * commit path itself, the hottest path of scenario 7 ("commits"). Each result is settled as
 * the runtime settles it (durable, in order, a batch at a time: results stay pending until
 * their batch is settled, so their undo is kept meanwhile).
 *
 *   node [--expose-gc --max-semi-space-size=1024] dist/bench/coordinator-commits.js [--commits N] [--runs N] [--impl path/to/coordinator/index.js ...]
 *
 * With several --impl, runs alternate between them (one process, same heap conditions), so
 * two builds can be compared. With --expose-gc and a young generation large enough that no
 * GC runs during a run, it also tells the bytes allocated per commit (the heap's growth).
 * Not part of npm test: timings depend on the machine.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`bad ${name}: ${args[i + 1]}`);
  return n;
};
const commits = option('--commits', 100_000);
const runs = option('--runs', 5);
/** Results a batch settles at once (the runtime's linger: every result of an event-loop turn). */
const BATCH = 64;
const impls: string[] = [];
for (let i = 0; i < args.length; i++) if (args[i] === '--impl') impls.push(path.resolve(args[++i]!));
if (impls.length === 0) impls.push(new URL('../src/coordinator/index.js', import.meta.url).pathname);

interface Result { token: number | null; replies: { response: unknown }[]; timers: ({ schedule: string; atMs: number } | { cancel: string })[] }
interface Coordinator {
  offsetCommit(ctx: unknown, req: unknown): Result;
  joinGroup(ctx: unknown, req: unknown): Result;
  syncGroup(ctx: unknown, req: unknown): Result;
  settle(token: number, errorCode: number, nowMs: number): unknown;
  onTimer(key: string, nowMs: number): Result;
}
type CoordinatorClass = new (config?: object) => Coordinator;

let gcCount = 0;
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcCount++;
    gcMs += e.duration;
  }
}).observe({ entryTypes: ['gc'] });

const TOPIC_ID = '00000000-0000-0000-0000-0000000000a1';
let requestId = 0;
const ctx = (apiVersion: number, nowMs: number) => ({ requestId: ++requestId, apiVersion, clientId: 'bench', clientHost: '/127.0.0.1', nowMs });

/** A commit of one partition (of 16) of one topic, as a consumer's auto-commit sends it. */
function commitRequest(groupId: string, i: number, member: { memberId: string; generationId: number } | null) {
  return {
    groupId,
    generationIdOrMemberEpoch: member?.generationId ?? -1,
    memberId: member?.memberId ?? '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [{ name: 'orders', topicId: TOPIC_ID, partitions: [{ partitionIndex: i % 16, committedOffset: BigInt(i), committedLeaderEpoch: 0, committedMetadata: '' }] }],
  };
}

/** A one-member Stable group (JoinGroup v9 twice, then the leader's SyncGroup). */
function stableMember(c: Coordinator, groupId: string, nowMs: number): { memberId: string; generationId: number } {
  const protocols = [{ name: 'range', metadata: Buffer.from([0, 1, 0, 0, 0, 1, 0, 6, 111, 114, 100, 101, 114, 115, 255, 255, 255, 255]) }];
  const join = (memberId: string) =>
    c.joinGroup(ctx(9, nowMs), { groupId, sessionTimeoutMs: 45_000, rebalanceTimeoutMs: 300_000, memberId, groupInstanceId: null, protocolType: 'consumer', protocols, reason: null });
  const first = join('').replies[0]!.response as { memberId: string };
  const parked = join(first.memberId);
  // The join phase waits out the initial rebalance delay (0 here): its timer fires.
  const due = parked.timers.find((t): t is { schedule: string; atMs: number } => 'schedule' in t && t.schedule.startsWith('join:'));
  if (due === undefined) throw new Error('no join deadline');
  const r = c.onTimer(due.schedule, nowMs);
  if (r.token !== null) c.settle(r.token, 0, nowMs);
  const joined = r.replies[0]!.response as { generationId: number; errorCode: number };
  if (joined.errorCode !== 0) throw new Error(`join failed: ${joined.errorCode}`);
  const s = c.syncGroup(ctx(5, nowMs), { groupId, generationId: joined.generationId, memberId: first.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: first.memberId, assignment: Buffer.alloc(0) }] });
  if (s.token !== null) c.settle(s.token, 0, nowMs);
  return { memberId: first.memberId, generationId: joined.generationId };
}

interface Run { ms: number; cpuMs: number; gcs: number; gcMs: number; bytes: number | null }

const collect = (globalThis as { gc?: () => void }).gc;

async function run(Coord: CoordinatorClass, withMember: boolean): Promise<Run> {
  const c = new Coord({ initialRebalanceDelayMs: 0 });
  const nowMs = 1_700_000_000_000;
  const groups = 100;
  const members = withMember ? Array.from({ length: groups }, (_, g) => stableMember(c, `group-${g}`, nowMs)) : [];
  const requests = Array.from({ length: commits }, (_, i) => commitRequest(`group-${i % groups}`, i, withMember ? members[i % groups]! : null));
  collect?.();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const gcBefore = gcCount;
  const gcMsBefore = gcMs;
  const heapBefore = process.memoryUsage().heapUsed;
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  let pending: number[] = [];
  for (let i = 0; i < commits; i++) {
    const r = c.offsetCommit(ctx(9, nowMs + (i >> 10)), requests[i]);
    if (r.token !== null) pending.push(r.token);
    if (pending.length === BATCH) {
      c.settle(pending[pending.length - 1]!, 0, nowMs);
      pending = [];
    }
  }
  if (pending.length > 0) c.settle(pending[pending.length - 1]!, 0, nowMs);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpuBefore);
  const heapAfter = process.memoryUsage().heapUsed;
  // GC entries are delivered asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const gcs = gcCount - gcBefore;
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, gcs, gcMs: gcMs - gcMsBefore, bytes: collect !== undefined && gcs === 0 ? heapAfter - heapBefore : null };
}

const classes: CoordinatorClass[] = [];
for (const impl of impls) classes.push(((await import(pathToFileURL(impl).href)) as { GroupCoordinator: CoordinatorClass }).GroupCoordinator);

for (const withMember of [false, true]) {
  const results = classes.map(() => [] as Run[]);
  for (const Coord of classes) await run(Coord, withMember); // warm-up
  for (let r = 0; r < runs; r++) for (let k = 0; k < classes.length; k++) results[k]!.push(await run(classes[k]!, withMember));
  for (let k = 0; k < classes.length; k++) {
    const median = (f: (r: Run) => number): number => {
      const xs = results[k]!.map(f).sort((a, b) => a - b);
      return xs[Math.floor(xs.length / 2)]!;
    };
    const ms = median((r) => r.ms);
    const cpuMs = median((r) => r.cpuMs);
    const sized = results[k]!.filter((r) => r.bytes !== null);
    const bytes = sized.length === 0 ? '' : `, ${(sized.map((r) => r.bytes!).sort((a, b) => a - b)[Math.floor(sized.length / 2)]! / commits).toFixed(0)} bytes/commit allocated`;
    const label = `${withMember ? 'member commits (Stable group)' : 'simple-group commits'} ${impls.length > 1 ? `[${impls[k]}]` : ''}`;
    console.log(`${label.padEnd(60)} ${commits} commits: ${ms.toFixed(1)} ms (${((ms * 1e6) / commits).toFixed(0)} ns/commit), CPU ${cpuMs.toFixed(1)} ms, ${median((r) => r.gcs)} GCs${bytes} (medians of ${runs})`);
  }
}
