/**
 * The server-side (KIP-848) uniform assignor: Brook's (src/coordinator/consumer/assignors/)
 * and Apache Kafka 4.4's own (kafka-group-coordinator's UniformAssignor, through
 * test/support/java BenchServerAssignor) on the same group specs, in one run, at 100 members
 * x 1,000 partitions and 1,000 members x 10,000 partitions (`--assignor-sizes`; quick: the
 * smaller): every member subscribed to the same topics (the homogeneous builder), and to 5 to
 * 30 of 100 topics each (the heterogeneous one); a first assignment, and the next one when a
 * member joins a group that holds the first (the sticky path a rebalance takes).
 * The time is the assignor's alone (the group spec built beforehand, the result not
 * converted), median and fastest of several runs after warm-up runs (the JIT of both); on a
 * busy machine the fastest run is the steadier figure. Brook's last result is compared with
 * Kafka's for the same input, as sets and in the order the records would list them (as
 * test/interop/server-assignors-java.test.ts does on small random groups): a difference is
 * an error of the run.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { toTopicPartitions } from '../../src/coordinator/consumer/assignment.js';
import { BUILTIN_ASSIGNORS, type GroupAssignment, type GroupSpec } from '../../src/coordinator/consumer/assignors/index.js';
import { runProcess } from '../../test/support/clients/run.js';
import { javaCommand, type KafkaServerAssignRequest } from '../../test/support/java-oracle.js';
import { kafkaAvailable } from '../../test/support/kafka/kafka-broker.js';
import { groupSpecOf, sortedAssignment, type TopicAssignments } from '../../test/support/server-assignors.js';
import { progress } from '../lib/progress.js';
import { Recorder, type Scenario, type ScenarioContext, type ScenarioReport } from '../lib/scenario.js';
import { median } from '../lib/stats.js';

/** Members x partitions of the full run (`--assignor-sizes`). */
export const DEFAULT_ASSIGNOR_SIZES: readonly (readonly [number, number])[] = [[100, 1000], [1000, 10_000]];

interface AssignorCase {
  readonly name: string;
  readonly request: KafkaServerAssignRequest;
}

/** A deterministic PRNG (the same subscriptions every run). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function topicIds(count: number): string[] {
  return Array.from({ length: count }, () => randomBytes(16).toString('base64url'));
}

function memberId(i: number): string {
  return `consumer-${i}-${randomBytes(6).toString('base64url')}`;
}

function homogeneous(members: number, perTopic: number, topicCount: number): KafkaServerAssignRequest {
  const topics = topicIds(topicCount);
  return {
    assignor: 'uniform', subscriptionType: 'homogeneous',
    partitions: Object.fromEntries(topics.map((t) => [t, perTopic])),
    members: Array.from({ length: members }, (_, i) => ({ memberId: memberId(i), instanceId: null, rackId: null, subscribedTopicIds: topics, assignment: [] })),
  };
}

function heterogeneous(members: number, perTopic: number, topicCount: number): KafkaServerAssignRequest {
  const topics = topicIds(topicCount);
  const random = prng(42);
  return {
    assignor: 'uniform', subscriptionType: 'heterogeneous',
    partitions: Object.fromEntries(topics.map((t) => [t, perTopic])),
    members: Array.from({ length: members }, (_, i) => {
      const mine = new Set<string>();
      const want = 5 + Math.floor(random() * 26);
      while (mine.size < want) mine.add(topics[Math.floor(random() * topics.length)]!);
      return { memberId: memberId(i), instanceId: null, rackId: null, subscribedTopicIds: [...mine], assignment: [] };
    }),
  };
}

function assign(req: KafkaServerAssignRequest, spec: GroupSpec): GroupAssignment {
  return BUILTIN_ASSIGNORS.get(req.assignor)!.assign(spec, { numPartitions: (t) => req.partitions[t] ?? -1 });
}

function listed(result: GroupAssignment): TopicAssignments {
  return new Map([...result].map(([id, a]) => [id, toTopicPartitions(a)]));
}

function assignedCount(a: TopicAssignments): number {
  let n = 0;
  for (const topics of a.values()) for (const t of topics) n += t.partitions.length;
  return n;
}

function totalPartitions(req: KafkaServerAssignRequest): number {
  return Object.values(req.partitions).reduce((a, b) => a + b, 0);
}

/** The same group after its first assignment (Brook's, the same input for both), with one member more. */
function afterJoin(req: KafkaServerAssignRequest, first: TopicAssignments): KafkaServerAssignRequest {
  const joining = { ...req.members[0]!, memberId: memberId(req.members.length), assignment: [] };
  return { ...req, members: [...req.members.map((m) => ({ ...m, assignment: first.get(m.memberId) ?? [] })), joining] };
}

/** How Brook's assignment differs from Kafka's, or null when it is the same (as sets and in order). */
function difference(brook: TopicAssignments, kafka: TopicAssignments): string | null {
  if (!isDeepStrictEqual(sortedAssignment(brook), sortedAssignment(kafka))) {
    const members = [...new Set([...brook.keys(), ...kafka.keys()])];
    const differing = members.filter((id) => !isDeepStrictEqual(sortedAssignment(new Map([[id, brook.get(id) ?? []]])), sortedAssignment(new Map([[id, kafka.get(id) ?? []]]))));
    return `assignments differ for ${differing.length} of ${members.length} members (e.g. ${differing[0]})`;
  }
  for (const [id, topics] of brook) if (!isDeepStrictEqual(topics, kafka.get(id))) return `same assignment, listed in another order (e.g. member ${id})`;
  return null;
}

function cases(sizes: readonly (readonly [number, number])[]): AssignorCase[] {
  const out: AssignorCase[] = [];
  const n = (x: number): string => x.toLocaleString('en-US');
  for (const [members, partitions] of sizes) {
    const bases: [string, KafkaServerAssignRequest][] = [];
    for (const topics of [1, 10]) {
      const perTopic = Math.max(1, Math.floor(partitions / topics));
      bases.push([`uniform homogeneous: ${n(members)} members x ${n(perTopic * topics)} partitions, ${topics} topic${topics === 1 ? '' : 's'}`, homogeneous(members, perTopic, topics)]);
    }
    const perTopic = Math.max(1, Math.floor(partitions / 100));
    bases.push([`uniform heterogeneous: ${n(members)} members x ${n(perTopic * 100)} partitions, 100 topics, 5-30 each`, heterogeneous(members, perTopic, 100)]);
    for (const [name, request] of bases) {
      out.push({ name: `${name}, first`, request });
      out.push({ name: `${name}, one member joins`, request: afterJoin(request, listed(assign(request, groupSpecOf(request)))) });
    }
  }
  return out;
}

interface KafkaReply {
  medianMs: number;
  minMs: number;
  assigned: number;
  assignment: Record<string, { topicId: string; partitions: number[] }[]>;
}

/** Kafka's UniformAssignor on every case, in one JVM. */
async function kafkaTimes(all: readonly AssignorCase[], runs: number, warmups: number): Promise<KafkaReply[]> {
  const [cmd, ...args] = javaCommand('brook.conformance.BenchServerAssignor');
  const r = await runProcess(cmd!, args, { input: JSON.stringify(all.map((c) => ({ ...c.request, runs, warmups }))), timeoutMs: 1_800_000 });
  if (r.code !== 0) throw new Error(`BenchServerAssignor exited ${r.code}: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout) as KafkaReply[];
}

export const serverAssignorsScenario: Scenario = {
  name: 'server-assignors',
  title: "server-side uniform assignor (KIP-848): Brook's and Kafka's own UniformAssignor on the same groups",
  async run(ctx: ScenarioContext): Promise<ScenarioReport> {
    const rec = new Recorder(this.name, this.title);
    const runs = ctx.quick ? 3 : Math.max(20, ctx.runs);
    const warmups = ctx.quick ? 2 : 10;
    rec.notes.push(`the assignor's time alone (group spec built beforehand), median and fastest of ${runs} runs after ${warmups} warm-up runs; Kafka's: kafka-group-coordinator 4.4 UniformAssignor in one JVM (test/support/java BenchServerAssignor); listed as broker brook / kafka`);
    const all = cases(ctx.assignorSizes ?? (ctx.quick ? DEFAULT_ASSIGNOR_SIZES.slice(0, 1) : DEFAULT_ASSIGNOR_SIZES));
    // Kafka's first, so that each of Brook's results can be compared with it.
    let kafka = null as KafkaReply[] | null;
    if (ctx.brokers.includes('kafka')) {
      if (!kafkaAvailable()) {
        rec.skipped.push('kafka: no Java 17+ / Kafka classpath');
      } else {
        await rec.attempt('Kafka UniformAssignor', async () => {
          progress(`server-assignors: Kafka UniformAssignor (one JVM, ${all.length} cases)`);
          kafka = await kafkaTimes(all, runs, warmups);
          all.forEach((c, i) => {
            const reply = kafka![i]!;
            if (reply.assigned !== totalPartitions(c.request)) rec.errors.push(`${c.name} on kafka: assigned ${reply.assigned} of ${totalPartitions(c.request)} partitions`);
            rec.add({ case: c.name, client: 'server', broker: 'kafka' }, { name: 'assign', unit: 'ms', lowerIsBetter: true }, [reply.medianMs]);
            rec.add({ case: c.name, client: 'server', broker: 'kafka' }, { name: 'assign, fastest run', unit: 'ms', lowerIsBetter: true }, [reply.minMs]);
          });
        });
      }
    }
    if (!ctx.brokers.includes('brook')) return rec.report();
    let compared = 0;
    for (const [i, c] of all.entries()) {
      await rec.attempt(`${c.name} on brook`, async () => {
        progress(`server-assignors: ${c.name}, Brook`);
        const spec = groupSpecOf(c.request);
        for (let w = 0; w < warmups; w++) assign(c.request, spec);
        const times: number[] = [];
        let last: GroupAssignment | null = null;
        for (let r = 0; r < runs; r++) {
          const start = performance.now();
          last = assign(c.request, spec);
          times.push(performance.now() - start);
        }
        const result = listed(last!);
        const total = totalPartitions(c.request);
        if (assignedCount(result) !== total) throw new Error(`assigned ${assignedCount(result)} of ${total} partitions`);
        rec.add({ case: c.name, client: 'server', broker: 'brook' }, { name: 'assign', unit: 'ms', lowerIsBetter: true }, [median(times)]);
        rec.add({ case: c.name, client: 'server', broker: 'brook' }, { name: 'assign, fastest run', unit: 'ms', lowerIsBetter: true }, [Math.min(...times)]);
        const theirs = kafka?.[i];
        if (theirs !== undefined) {
          const diff = difference(result, new Map(Object.entries(theirs.assignment)));
          if (diff !== null) throw new Error(`not Kafka's assignment: ${diff}`);
          compared++;
        }
      });
    }
    if (kafka !== null) rec.notes.push(`Brook's assignment equal to Kafka's (as sets and in order) in ${compared} of ${all.length} cases`);
    return rec.report();
  },
};
