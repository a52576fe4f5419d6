/**
 * Brook's consumer with the consumer protocol (KIP-848, groupProtocol 'consumer') against
 * Apache Kafka 4.4.0, whose group coordinator assigns:
 *
 * - three Brook consumers share a 6-partition topic; one leaves and another joins while they
 *   consume. Every record is read once, no partition has two owners at once (ownership
 *   intervals from the rebalance listeners), the committed offsets end at the log ends.
 *   They run with auto-commit only: what makes a partition's hand-over exact is the commit
 *   of consumed offsets before it is revoked.
 * - two Brook consumers and Kafka 4.4's Java KafkaConsumer (group.protocol=consumer,
 *   test/support/java GroupConsumer) in one group, one Brook member leaving mid-way: every
 *   record once, one owner per partition.
 * - the README consumer killed with SIGKILL three times (test/support/kill-restart.ts):
 *   no record left unprocessed.
 *
 * Kafka runs with a short heartbeat interval and session timeout
 * (group.consumer.heartbeat.interval.ms, group.consumer.session.timeout.ms and their minima)
 * so the rebalances of a test take seconds.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer } from '../../src/index.js';
import { Admin } from '../../src/client/admin.js';
import { startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { runProcess } from '../support/clients/run.js';
import { createTopic, produceSpread } from '../support/consumer-helpers.js';
import { ownershipIntervals, type OwnershipEvent } from '../support/ownership.js';
import { runKillRestart } from '../support/kill-restart.js';

const PARTITIONS = 6;
const PER_PARTITION = 600;

interface MemberRun { readonly events: OwnershipEvent[]; readonly records: [number, number][] }

/**
 * A Brook member with the consumer protocol. `manualCommits`: commit after every poll and on
 * revocation (GroupConsumer.java's contract); else auto-commit at Kafka's default interval
 * (5 s), so a hand-over is exact only through the commit before the revocation. `slow`: 10
 * records per poll and 10 ms of work each, so rebalances land while records are in flight.
 */
class Member implements MemberRun {
  readonly events: OwnershipEvent[] = [];
  readonly records: [number, number][] = [];
  readonly errors: string[] = [];
  readonly consumer: Consumer;
  private readonly pending = new Map<number, bigint>();
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(bootstrap: string, private readonly topic: string, group: string, private readonly manualCommits: boolean, private readonly slow = false) {
    this.consumer = new Consumer({
      bootstrapServers: bootstrap, groupId: group, groupProtocol: 'consumer', autoOffsetReset: 'earliest', fetchMaxWaitMs: 100,
      enableAutoCommit: !manualCommits, maxPollIntervalMs: 20_000, requestTimeoutMs: 10_000, ...(slow ? { maxPollRecords: 10 } : {}),
    });
    this.consumer.subscribe([topic], {
      onPartitionsAssigned: (ps) => { this.event('assigned', ps.map((p) => p.partition)); },
      onPartitionsRevoked: async (ps) => {
        if (this.manualCommits) await this.commit(ps.map((p) => p.partition));
        this.event('revoked', ps.map((p) => p.partition));
      },
      onPartitionsLost: (ps) => { this.event('lost', ps.map((p) => p.partition)); },
    });
  }

  private event(type: OwnershipEvent['type'], partitions: number[]): void {
    this.events.push({ t: Date.now(), type, partitions: [...partitions].sort((a, b) => a - b) });
  }

  private async commit(only: number[]): Promise<void> {
    const offsets = only.filter((p) => this.pending.has(p)).map((p) => ({ topic: this.topic, partition: p, offset: this.pending.get(p)! }));
    if (offsets.length === 0) return;
    try {
      await this.consumer.commitSync(offsets);
      for (const o of offsets) if (this.pending.get(o.partition) === o.offset) this.pending.delete(o.partition);
    } catch (err) {
      this.errors.push(`commitSync ${JSON.stringify(offsets.map((o) => [o.partition, Number(o.offset)]))}: ${(err as Error).message}`);
    }
  }

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        try {
          const records = await this.consumer.poll({ timeoutMs: 100 });
          for (const r of records) {
            this.records.push([r.partition, Number(r.offset)]);
            this.pending.set(r.partition, r.offset + 1n);
          }
          if (this.slow && records.length > 0) await new Promise((r) => setTimeout(r, 10 * records.length));
        } catch (err) {
          this.errors.push(`poll: ${(err as Error).message}`);
        }
        if (this.manualCommits) await this.commit([...this.pending.keys()]);
      }
    })();
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.loop;
    this.event('closing', this.consumer.assignment().map((p) => p.partition));
    await this.consumer.close();
    this.event('closed', []);
  }
}

/** Every offset of every partition read once across `members`, and no partition owned by two members at once. */
function assertExactlyOnceAndOneOwner(members: readonly MemberRun[], perPartition: number): void {
  for (let p = 0; p < PARTITIONS; p++) {
    const offsets = members.flatMap((m) => m.records.filter(([rp]) => rp === p).map(([, o]) => o)).sort((a, b) => a - b);
    assert.deepEqual(offsets, Array.from({ length: perPartition }, (_, o) => o), `partition ${p}: every offset consumed once across the group`);
  }
  const owners = members.map((m) => ownershipIntervals(m.events));
  for (let p = 0; p < PARTITIONS; p++) {
    const all = owners.flatMap((o, i) => (o.get(p) ?? []).map(([from, to]) => ({ member: i, from, to }))).sort((a, b) => a.from - b.from);
    for (let k = 1; k < all.length; k++) assert.ok(all[k - 1]!.to <= all[k]!.from, `partition ${p} owned by two members at once: ${JSON.stringify(all)}`);
    for (const [i, m] of members.entries()) {
      if (m.records.some(([rp]) => rp === p)) assert.ok(owners[i]!.has(p), `member ${i} read partition ${p} without owning it`);
    }
  }
}

async function waitFor(done: () => boolean | Promise<boolean>, ms: number, what: () => string): Promise<void> {
  for (const until = Date.now() + ms; !(await done());) {
    assert.ok(Date.now() < until, what());
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sum of the group's committed offsets equals the log ends of every partition. */
async function committedAtEnd(bootstrap: string, group: string, topic: string): Promise<Map<number, bigint>> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    const committed = await admin.committedOffsets(group);
    return new Map(committed.filter((c) => c.topic === topic).map((c) => [c.partition, c.offset]));
  } finally {
    admin.close();
  }
}

let kafka: Promise<KafkaBroker> | null = null;
function kafkaBroker(): Promise<KafkaBroker> {
  kafka ??= startKafka({
    config: {
      'group.consumer.heartbeat.interval.ms': '500', 'group.consumer.min.heartbeat.interval.ms': '100',
      'group.consumer.session.timeout.ms': '6000', 'group.consumer.min.session.timeout.ms': '2000',
    },
  });
  return kafka;
}
after(async () => { if (kafka) await (await kafka).stop(); });

test('Kafka 4.4.0, consumer protocol: 3 Brook consumers share 6 partitions, a fourth joins and one leaves mid-way; every record once, one owner per partition, commits at the log ends', { timeout: 120_000 }, async () => {
  const { bootstrap } = await kafkaBroker();
  const topic = 'cp-brook';
  const group = 'cp-brook-group';
  await createTopic(bootstrap, topic, PARTITIONS);
  const members = [0, 1, 2].map(() => new Member(bootstrap, topic, group, false, true));
  const all = [...members];
  const read = (): number => all.reduce((n, m) => n + m.records.length, 0);
  try {
    for (const m of members) m.start();
    const describe = (): string => JSON.stringify(all.map((m) => m.consumer.assignment().map((tp) => tp.partition)));
    await waitFor(() => members.every((m) => m.consumer.assignment().length === 2), 30_000, () => `not 2 partitions each: ${describe()}`);
    assert.deepEqual(members.flatMap((m) => m.consumer.assignment().map((tp) => tp.partition)).sort(), [0, 1, 2, 3, 4, 5]);
    assert.ok(members.every((m) => m.consumer.groupMetadata().generationId > 0), 'member epochs from Kafka');
    await produceSpread(bootstrap, topic, PARTITIONS, PER_PARTITION);
    await waitFor(() => members.every((m) => m.records.length >= 100), 30_000, () => `too little read: ${members.map((m) => m.records.length)}`);
    // In the middle of it another joins: the three give it partitions they are reading (each
    // revocation commits what was consumed first); then one leaves (close() commits, then the
    // leave heartbeat) and the others take its partitions over from its commits.
    const readAtJoin = read();
    const joiner = new Member(bootstrap, topic, group, false, true);
    all.push(joiner);
    joiner.start();
    await waitFor(() => joiner.records.length > 0, 30_000, () => `the joiner read nothing: ${describe()}`);
    await members[0]!.close();
    const live = [members[1]!, members[2]!, joiner];
    await waitFor(() => read() >= PARTITIONS * PER_PARTITION, 60_000, () => `read ${read()}; owners ${describe()}`);
    for (const m of live) await m.close();
    assert.ok(readAtJoin < PARTITIONS * PER_PARTITION * 0.7, `the rebalances came mid-way: ${readAtJoin} read when the fourth member joined`);
    assert.ok(members.some((m) => m.events.some((e) => e.type === 'revoked' && e.partitions.length > 0)), 'a live member gave up a partition it was reading');
    for (const m of all) assert.deepEqual(m.errors, [], 'no poll errors');
    assertExactlyOnceAndOneOwner(all, PER_PARTITION);
    const committed = await committedAtEnd(bootstrap, group, topic);
    assert.deepEqual(committed, new Map(Array.from({ length: PARTITIONS }, (_, p) => [p, BigInt(PER_PARTITION)])), 'auto-commit and close() committed every consumed offset');
    process.stderr.write(`consumer-protocol brook: records per member ${all.map((m) => m.records.length).join('/')}\n`);
  } finally {
    await Promise.all(all.map((m) => m.close().catch(() => undefined)));
  }
});

test('Kafka 4.4.0, consumer protocol: 2 Brook consumers and Kafka\'s Java KafkaConsumer (group.protocol=consumer) in one group, a Brook member leaving mid-way; every record once, one owner per partition', { timeout: 120_000 }, async () => {
  assert.ok(javaAvailable(), 'java 17+ and Maven are needed for the interop suite (test/support/java)');
  const jar = javaJar();
  const { bootstrap } = await kafkaBroker();
  const topic = 'cp-mixed';
  const group = 'cp-mixed-group';
  await createTopic(bootstrap, topic, PARTITIONS);
  const brook = [0, 1].map(() => new Member(bootstrap, topic, group, true));
  let javaDone = false;
  const java = runProcess('java', ['-cp', jar, 'brook.conformance.GroupConsumer', bootstrap, topic, group, 'consumer', String(PARTITIONS * PER_PARTITION), '60000'], { timeoutMs: 90_000 })
    .finally(() => { javaDone = true; });
  try {
    for (const m of brook) m.start();
    await waitFor(() => javaDone || brook.every((m) => m.consumer.assignment().length === 2), 40_000,
      () => `the group did not settle with 2 partitions per member: ${JSON.stringify(brook.map((m) => m.consumer.assignment().map((tp) => tp.partition)))}`);
    await produceSpread(bootstrap, topic, PARTITIONS, PER_PARTITION / 2, 'a');
    await waitFor(() => javaDone || brook[1]!.records.length >= 100, 30_000, () => `the leaving member read ${brook[1]!.records.length}`);
    await brook[1]!.close();
    await produceSpread(bootstrap, topic, PARTITIONS, PER_PARTITION / 2, 'b');
    const result = await java;
    await brook[0]!.close();
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(result.code === 0 && line !== undefined, `java member exited ${result.code}: ${result.stderr.slice(-3000)}`);
    const summary = JSON.parse(line) as MemberRun & { errors: string[]; timedOut: boolean };
    assert.deepEqual(summary.errors, [], 'java member: no errors');
    assert.equal(summary.timedOut, false, 'the java member saw every partition committed at its end');
    for (const m of brook) assert.deepEqual(m.errors, [], 'Brook member: no errors');
    assert.ok(summary.records.length > 0 && brook.every((m) => m.records.length > 0), `every member read: ${[...brook.map((m) => m.records.length), summary.records.length]}`);
    assertExactlyOnceAndOneOwner([...brook, summary], PER_PARTITION);
    process.stderr.write(`consumer-protocol mixed: records per member ${[...brook.map((m) => m.records.length), summary.records.length].join('/')}\n`);
  } finally {
    await Promise.all(brook.map((m) => m.close().catch(() => undefined)));
    await java.catch(() => undefined);
  }
});

test('Kafka 4.4.0, consumer protocol: kill -9 three times while the README consumer works, every record is processed at least once', { timeout: 240_000 }, async () => {
  const { bootstrap } = await kafkaBroker();
  const result = await runKillRestart(bootstrap, 'consumer');
  assert.deepEqual(result.missing, [], `records never processed (seed ${result.seed}, killed after ${result.killedAt.join(', ')} processed lines)`);
  process.stderr.write(`consumer-protocol kill-restart: ${result.processedLines} lines for 3000 records (seed ${result.seed})\n`);
});
