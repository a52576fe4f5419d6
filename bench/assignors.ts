/**
 * Assignor compute times (median of several runs), for the sizes the consumer must handle:
 *   node dist/bench/assignors.js [--runs N] [--quick]
 * (--quick: one run of each at a tenth of the sizes, so CI checks the script still works.)
 * Not part of npm test: timings depend on the machine.
 */
import { assignorByName, type AssignmentInput, type MemberAssignment, type MemberSubscription, type TopicPartition } from '../src/assignors/index.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runsArg = args.indexOf('--runs');
const runs = runsArg >= 0 ? Number(args[runsArg + 1]) : quick ? 1 : 5;
if (!Number.isInteger(runs) || runs < 1) throw new Error(`bad --runs: ${args[runsArg + 1]}`);
/** Sizes are divided by this in quick mode. */
const scale = quick ? 10 : 1;

function member(i: number, topics: string[], ownedPartitions: readonly TopicPartition[] = [], generationId = -1): MemberSubscription {
  return { memberId: `consumer-${String(i).padStart(5, '0')}-${(i * 2654435761) % 1000003}`, groupInstanceId: null, topics, userData: null, ownedPartitions, generationId, rackId: null };
}

function equalCase(members: number, partitions: number, topicCount: number): AssignmentInput {
  const topics = Array.from({ length: topicCount }, (_, t) => `topic-${t}`);
  const partitionsPerTopic = new Map(topics.map((t) => [t, partitions / topicCount]));
  return { members: Array.from({ length: members }, (_, i) => member(i, topics)), partitionsPerTopic };
}

/** 1,000 members, 100,000 partitions over 100 topics; member i subscribes to a pseudo-random 5..30 of them. */
function unequalCase(): AssignmentInput {
  const topics = Array.from({ length: 100 }, (_, t) => `topic-${t}`);
  const membersCount = 1000 / scale;
  let seed = 42;
  const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
  const members = Array.from({ length: membersCount }, (_, i) => {
    const mine = new Set<string>();
    const want = 5 + rand(26);
    while (mine.size < want) mine.add(topics[rand(topics.length)]!);
    return member(i, [...mine]);
  });
  return { members, partitionsPerTopic: new Map(topics.map((t) => [t, 1000 / scale])) };
}

/** The same group one rebalance later: every member owns what it was given, and one member joins. */
function afterJoin(input: AssignmentInput, previous: Map<string, MemberAssignment>, generationId: number): AssignmentInput {
  const members: MemberSubscription[] = input.members.map((m) => ({ ...m, ownedPartitions: previous.get(m.memberId)!.partitions, generationId }));
  members.push(member(input.members.length, [...input.members[0]!.topics]));
  return { members, partitionsPerTopic: input.partitionsPerTopic };
}

function median(name: string, compute: () => unknown): void {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    compute();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(64)} ${times[Math.floor(times.length / 2)]!.toFixed(0).padStart(6)} ms`);
}

const n = (x: number): string => (x / scale).toLocaleString('en-US');
const cases: [string, AssignmentInput][] = [
  [`${n(2000)} members x ${n(1_000_000)} partitions, 1 topic`, equalCase(2000 / scale, 1_000_000 / scale, 1)],
  [`${n(2000)} members x ${n(1_000_000)} partitions, 10 topics`, equalCase(2000 / scale, 1_000_000 / scale, 10)],
  [`${n(1000)} members x ${n(100_000)} partitions, unequal subscriptions`, unequalCase()],
];
console.log(`targets (full size): range/roundrobin <= 1000 ms, sticky/cooperative-sticky <= 2000 ms on the first case${quick ? ' (quick mode: a tenth of the sizes, one run)' : ''}`);
for (const [label, input] of cases) {
  for (const name of ['range', 'roundrobin', 'sticky', 'cooperative-sticky']) {
    median(`${name}: ${label}`, () => assignorByName(name).assign(input));
  }
  const first = assignorByName('cooperative-sticky').assign(input);
  const next = afterJoin(input, first, 1);
  median(`cooperative-sticky, one member joins: ${label}`, () => assignorByName('cooperative-sticky').assign(next));
}
