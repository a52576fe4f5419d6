/**
 * Brook's streams task assignor (`sticky`) against Apache Kafka 4.4's StickyTaskAssignor,
 * run by test/support/java StreamsAssignorOracle on the same groups: random topologies
 * (stateful and stateless subtopologies), members spread over processes, standby
 * replicas, reported task offsets, warm-up tasks and client tags; then rounds in which
 * members leave, join (some restarted, with a new member id and only their offsets to
 * show for their state) and the topology's partition counts change, each round starting
 * from the previous round's result. Assignments (and failures) must be equal.
 *
 * Seeded: a failure names its seed; STREAMS_ASSIGNOR_SEED=<n> replays it.
 * Needs Java 17+ and Maven.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stickyTaskAssignor, TaskAssignorError } from '../../src/coordinator/streams/assignor/sticky.js';
import { kafkaStreamsAssignments, type KafkaStreamsAssignment } from '../support/java-oracle.js';
import { asOracleReply, brookGroup, kafkaRequest, type Offsets, type Scenario, type ScenarioMember, type Tasks } from '../support/streams-assignor.js';

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Random {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  id(): string {
    let s = '';
    for (let i = 0; i < 4; i++) s += Math.floor(this.next() * 0x10000).toString(16).padStart(4, '0');
    return s;
  }
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  }
  /** An offset sum: mostly small (ties happen), sometimes beyond 2^53. */
  offset(): string {
    if (this.chance(0.1)) return (2n ** 62n + BigInt(this.int(1000))).toString();
    return String(this.chance(0.5) ? this.int(5) * 100 : this.int(1_000_000));
  }
}

const TAGS = ['zone', 'cluster'];

function newMember(r: Random, processId: string): ScenarioMember {
  const clientTags: Record<string, string> = r.chance(0.5) ? { zone: `z${r.int(3)}`, cluster: `c${r.int(2)}` } : {};
  return { memberId: r.id(), processId, rackId: r.chance(0.3) ? `rack-${r.int(3)}` : null, clientTags, activeTasks: {}, standbyTasks: {}, warmupTasks: {}, taskOffsets: {}, taskEndOffsets: {} };
}

function randomTopology(r: Random): Scenario['subtopologies'] {
  const count = r.between(1, 8);
  // Kafka Streams numbers its subtopologies; named ones sort differently ("10" < "2").
  const ids = r.chance(0.7) ? Array.from({ length: count }, (_, i) => String(i * (r.chance(0.2) ? 5 : 1))) : Array.from({ length: count }, () => `sub-${r.id().slice(0, 3)}`);
  return [...new Set(ids)].sort().map((id) => ({ id, partitions: r.between(1, 32), stateful: r.chance(0.6) }));
}

function initialScenario(r: Random): Scenario {
  const processCount = r.between(1, 10);
  const processes = Array.from({ length: processCount }, () => r.id());
  const memberCount = r.between(1, 30);
  const members = Array.from({ length: memberCount }, (_, i) => newMember(r, i < processCount ? processes[i]! : r.pick(processes)));
  return {
    numStandbyReplicas: r.between(0, 2),
    rackAwareAssignmentTags: r.chance(0.3) ? TAGS : [],
    subtopologies: randomTopology(r),
    members,
  };
}

function addTo(tasks: Tasks, id: string, p: number): void {
  (tasks[id] ??= []).push(p);
}

function setOffset(offsets: Offsets, id: string, p: number, value: string): void {
  (offsets[id] ??= {})[String(p)] = value;
}

/** The group of the next round: members hold what they were assigned, report offsets, and come and go. */
function nextRound(r: Random, s: Scenario, assignment: KafkaStreamsAssignment): Scenario {
  const stateful = s.subtopologies.filter((t) => t.stateful);
  let members: ScenarioMember[] = s.members.map((m) => {
    const got = assignment[m.memberId] ?? { activeTasks: {}, standbyTasks: {} };
    const next: ScenarioMember = { ...m, activeTasks: {}, standbyTasks: {}, warmupTasks: {}, taskOffsets: {}, taskEndOffsets: {} };
    // Most members have taken on their target; some lag behind and still hold a part of it.
    const lagging = r.chance(0.15);
    for (const [id, ps] of Object.entries(got.activeTasks)) for (const p of ps) if (!lagging || r.chance(0.6)) addTo(next.activeTasks, id, p);
    for (const [id, ps] of Object.entries(got.standbyTasks)) for (const p of ps) if (!lagging || r.chance(0.6)) addTo(next.standbyTasks, id, p);
    // Offsets: most standbys report theirs; some members report tasks they no longer hold.
    for (const [id, ps] of Object.entries(next.standbyTasks)) {
      for (const p of ps) {
        if (r.chance(0.7)) setOffset(next.taskOffsets, id, p, r.offset());
        if (r.chance(0.5)) setOffset(next.taskEndOffsets, id, p, r.offset());
      }
    }
    for (const [id, ps] of Object.entries(next.activeTasks)) for (const p of ps) if (r.chance(0.3)) setOffset(next.taskOffsets, id, p, r.offset());
    if (stateful.length > 0) {
      for (let i = r.int(4); i > 0; i--) {
        const t = r.pick(stateful);
        setOffset(next.taskOffsets, t.id, r.int(t.partitions), r.offset());
      }
      // Warm-up tasks do not count for Kafka 4.4's assignor: they must change nothing.
      if (r.chance(0.2)) {
        const t = r.pick(stateful);
        addTo(next.warmupTasks, t.id, r.int(t.partitions));
      }
    }
    return next;
  });

  // Leaving members: some restart in their process with a new id, keeping only their offsets on disk.
  const leaving = new Set(members.filter(() => r.chance(0.15)).map((m) => m.memberId));
  const restarted: ScenarioMember[] = [];
  for (const m of members) {
    if (!leaving.has(m.memberId) || !r.chance(0.5)) continue;
    const again = newMember(r, m.processId);
    for (const tasks of [m.activeTasks, m.standbyTasks]) {
      for (const [id, ps] of Object.entries(tasks)) for (const p of ps) if (s.subtopologies.find((t) => t.id === id)?.stateful === true) setOffset(again.taskOffsets, id, p, r.offset());
    }
    restarted.push(again);
  }
  members = members.filter((m) => !leaving.has(m.memberId)).concat(restarted);

  // Joining members, in existing or new processes.
  const processes = [...new Set(members.map((m) => m.processId))];
  for (let i = r.int(5); i > 0 && members.length < 30; i--) {
    members.push(newMember(r, processes.length > 0 && r.chance(0.6) ? r.pick(processes) : r.id()));
  }
  // A member may claim an active task another one also claims (a transition in progress).
  if (members.length > 1 && r.chance(0.2)) {
    const [a, b] = [r.pick(members), r.pick(members)];
    const id = Object.keys(a.activeTasks)[0];
    if (id !== undefined) addTo(b.activeTasks, id, a.activeTasks[id]![0]!);
  }
  for (const m of members) for (const ps of Object.values(m.activeTasks)) ps.splice(0, ps.length, ...new Set(ps));

  // The topology may change: more or fewer partitions, tasks out of range stay in the members' state.
  let subtopologies = s.subtopologies;
  if (r.chance(0.15)) subtopologies = subtopologies.map((t) => (r.chance(0.5) ? { ...t, partitions: r.between(1, 32) } : t));
  const numStandbyReplicas = r.chance(0.1) ? r.between(0, 2) : s.numStandbyReplicas;
  return { ...s, numStandbyReplicas, subtopologies, members: r.shuffle(members) };
}

function brookAssign(s: Scenario): { assignment: KafkaStreamsAssignment } | { error: string } {
  const { group, topology } = brookGroup(s);
  try {
    return { assignment: asOracleReply(stickyTaskAssignor.assign(group, topology)) };
  } catch (e) {
    if (!(e instanceof TaskAssignorError)) throw e;
    return { error: `org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignorException: ${e.message}` };
  }
}

const ENV_SEED = process.env['STREAMS_ASSIGNOR_SEED'];

describe("streams task assignor: Brook's sticky equals Kafka's", { timeout: 300_000 }, () => {
  const GROUPS = 60;
  const ROUNDS = 6;
  for (const variant of ['random', 'crowded processes'] as const) {
    it(`${variant}: ${GROUPS} groups over ${ROUNDS} rounds give Kafka's assignments`, async () => {
      const seed = ENV_SEED !== undefined ? Number(ENV_SEED) : Date.now() >>> 0;
      const random = new Random(prng(seed));
      let scenarios = Array.from({ length: GROUPS }, () => {
        const s = initialScenario(random);
        // Few processes, many members each: standbys run out of processes to go to.
        if (variant === 'crowded processes') s.members = s.members.map((m, i) => ({ ...m, processId: `p${i % 2}` }));
        return s;
      });
      let compared = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const expected = await kafkaStreamsAssignments(scenarios.map(kafkaRequest));
        const next: Scenario[] = [];
        for (const [i, s] of scenarios.entries()) {
          const kafka = expected[i]!;
          assert.deepEqual(brookAssign(s), kafka, `assignments differ: seed ${seed} (STREAMS_ASSIGNOR_SEED=${seed}), round ${round}, group ${i}: ${JSON.stringify(kafkaRequest(s))}`);
          compared++;
          next.push('assignment' in kafka ? nextRound(random, s, kafka.assignment) : s);
        }
        scenarios = next;
      }
      assert.equal(compared, GROUPS * ROUNDS);
    });
  }

  it('a group without members fails as Kafka fails, when there are tasks to assign', async () => {
    const scenarios: Scenario[] = [
      { numStandbyReplicas: 1, rackAwareAssignmentTags: [], subtopologies: [{ id: '0', partitions: 2, stateful: true }], members: [] },
      { numStandbyReplicas: 0, rackAwareAssignmentTags: [], subtopologies: [], members: [] },
    ];
    const expected = await kafkaStreamsAssignments(scenarios.map(kafkaRequest));
    assert.ok('error' in expected[0]!, 'Kafka fails the first');
    assert.ok('assignment' in expected[1]!, 'Kafka assigns the second');
    for (const [i, s] of scenarios.entries()) assert.deepEqual(brookAssign(s), expected[i]);
  });
});
