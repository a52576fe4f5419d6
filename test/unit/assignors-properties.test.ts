import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  assignorByName,
  encodeStickyUserData,
  type AssignmentInput,
  type MemberAssignment,
  type MemberSubscription,
  type TopicPartition,
} from '../../src/assignors/index.js';
import { assertBalanced, assertValid, movedPartitions, nextRound } from '../support/assignors.js';

const TOPICS = ['a', 'b', 'c', 'd', 'e'];

/** Random groups: 1..5 topics (0..12 partitions, some missing), 1..8 members with random subscriptions. */
const groupArb = fc
  .record({
    counts: fc.array(fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined, freq: 6 }), { minLength: 5, maxLength: 5 }),
    members: fc.array(
      fc.record({
        topics: fc.subarray(TOPICS, { minLength: 1 }),
        static: fc.option(fc.integer({ min: 0, max: 99 }), { nil: null, freq: 3 }),
      }),
      { minLength: 1, maxLength: 8 },
    ),
  })
  .map(({ counts, members }): AssignmentInput => {
    const partitionsPerTopic = new Map<string, number>();
    counts.forEach((n, i) => n !== undefined && partitionsPerTopic.set(TOPICS[i]!, n));
    const seenStatic = new Set<number>();
    return {
      partitionsPerTopic,
      members: members.map((m, i): MemberSubscription => {
        const staticId = m.static !== null && !seenStatic.has(m.static) ? (seenStatic.add(m.static), `instance-${m.static}`) : null;
        return { memberId: `member-${(i * 7919) % 101}-${i}`, groupInstanceId: staticId, topics: m.topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null };
      }),
    };
  });

/** Random previous ownership: each existing partition owned by a random member (or nobody), at a random generation. */
const withHistory = groupArb.chain((inp) => {
  const partitions: TopicPartition[] = [];
  for (const [topic, n] of inp.partitionsPerTopic) for (let p = 0; p < n; p++) partitions.push({ topic, partition: p });
  return fc
    .record({
      owners: fc.array(fc.integer({ min: -1, max: inp.members.length - 1 }), { minLength: partitions.length, maxLength: partitions.length }),
      generations: fc.array(fc.integer({ min: -1, max: 3 }), { minLength: inp.members.length, maxLength: inp.members.length }),
    })
    .map(({ owners, generations }) => {
      const owned: TopicPartition[][] = inp.members.map(() => []);
      owners.forEach((m, i) => m >= 0 && owned[m]!.push(partitions[i]!));
      return { inp, owned, generations };
    });
});

const runs = { numRuns: 150, seed: 20240605 };

describe('assignors: properties over random groups', () => {
  for (const name of ['range', 'roundrobin', 'sticky', 'cooperative-sticky']) {
    it(`${name}: every subscribed partition exactly once, to a subscriber`, () => {
      fc.assert(fc.property(groupArb, (inp) => assertValid(inp, assignorByName(name).assign(inp))), runs);
    });
  }

  it('roundrobin with equal subscriptions and range per topic: counts differ by at most one', () => {
    fc.assert(
      fc.property(groupArb, (inp) => {
        const same: AssignmentInput = { ...inp, members: inp.members.map((m) => ({ ...m, topics: TOPICS })) };
        const sizes = [...assignorByName('roundrobin').assign(same).values()].map((a) => a.partitions.length);
        assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1);
        const range = assignorByName('range').assign(inp);
        for (const [topic] of inp.partitionsPerTopic) {
          const perMember = inp.members.filter((m) => m.topics.includes(topic)).map((m) => range.get(m.memberId)!.partitions.filter((p) => p.topic === topic).length);
          if (perMember.length > 0) assert.ok(Math.max(...perMember) - Math.min(...perMember) <= 1);
        }
      }),
      runs,
    );
  });

  it('sticky: balanced, and feeding its own result back moves nothing', () => {
    fc.assert(
      fc.property(withHistory, ({ inp, owned, generations }) => {
        const members = inp.members.map((m, i) => ({ ...m, userData: encodeStickyUserData({ partitions: owned[i]!, generation: generations[i]! }) }));
        const withData = { ...inp, members };
        const result = assignorByName('sticky').assign(withData);
        assertValid(withData, result);
        assertBalanced(withData, result);
        const again = stickyFeedback(withData, result);
        assert.equal(movedPartitions(result, assignorByName('sticky').assign(again)), 0);
      }),
      runs,
    );
  });

  it('cooperative-sticky: never hands over a partition another member still claims; complete and balanced within three rounds', () => {
    fc.assert(
      fc.property(withHistory, ({ inp, owned, generations }) => {
        // Distinct owners per partition here (the conflict cases have their own tests), one generation.
        let members: MemberSubscription[] = inp.members.map((m, i) => ({ ...m, ownedPartitions: owned[i]!, generationId: Math.max(0, generations[0]!) }));
        let round = { ...inp, members };
        let rounds = 0;
        for (;;) {
          const result = assignorByName('cooperative-sticky').assign(round);
          assertValid(round, result, true);
          for (const m of round.members) {
            for (const p of result.get(m.memberId)!.partitions) {
              const claimedByOther = round.members.some((o) => o !== m && o.ownedPartitions.some((q) => q.topic === p.topic && q.partition === p.partition));
              assert.ok(!claimedByOther, `${p.topic}-${p.partition} handed to ${m.memberId} while another member owns it`);
            }
          }
          rounds++;
          if (complete(round, result)) {
            assertBalanced(round, result);
            break;
          }
          assert.ok(rounds < 3, 'cooperative rebalancing converges within three rounds');
          members = nextRound(round.members, result, round.members[0]!.generationId + 1);
          round = { ...inp, members };
        }
      }),
      runs,
    );
  });
});

function stickyFeedback(inp: AssignmentInput, result: Map<string, MemberAssignment>): AssignmentInput {
  return { ...inp, members: inp.members.map((m) => ({ ...m, userData: encodeStickyUserData({ partitions: result.get(m.memberId)!.partitions, generation: 10 }) })) };
}

function complete(inp: AssignmentInput, result: Map<string, MemberAssignment>): boolean {
  const subscribed = new Set(inp.members.flatMap((m) => m.topics));
  let expected = 0;
  for (const t of subscribed) expected += inp.partitionsPerTopic.get(t) ?? 0;
  let got = 0;
  for (const a of result.values()) got += a.partitions.length;
  return got === expected;
}
