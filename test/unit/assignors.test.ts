import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AssignorError,
  assignorByName,
  builtInAssignors,
  BUILT_IN_ASSIGNOR_NAMES,
  decodeCooperativeStickyUserData,
  decodeStickyUserData,
  encodeCooperativeStickyUserData,
  encodeStickyUserData,
  RangeAssignor,
  RoundRobinAssignor,
  StickyAssignor,
  CooperativeStickyAssignor,
} from '../../src/assignors/index.js';
import { Writer } from '../../src/protocol/primitives/writer.js';
import { input, member, simplify, tp } from '../support/assignors.js';

const range = new RangeAssignor();
const roundrobin = new RoundRobinAssignor();

// Expected results below are those of Apache Kafka's RangeAssignorTest and RoundRobinAssignorTest.
describe('assignors: range (Java RangeAssignor)', () => {
  it('no topics, nonexistent topics, one consumer', () => {
    assert.deepEqual(simplify(range.assign(input([member('c1', [])], {}))), { c1: [] });
    assert.deepEqual(simplify(range.assign(input([member('c1', ['t'])], {}))), { c1: [] });
    assert.deepEqual(simplify(range.assign(input([member('c1', ['t'])], { t: 3, other: 3 }))), { c1: ['t-0', 't-1', 't-2'] });
  });

  it('two consumers, one topic of three partitions: the first takes the extra one', () => {
    assert.deepEqual(simplify(range.assign(input([member('c2', ['t']), member('c1', ['t'])], { t: 3 }))), { c2: ['t-2'], c1: ['t-0', 't-1'] });
    assert.deepEqual(simplify(range.assign(input([member('c1', ['t']), member('c2', ['t'])], { t: 1 }))), { c1: ['t-0'], c2: [] });
  });

  it('mixed topics: ranges are per topic, over that topic\'s subscribers', () => {
    const result = range.assign(input([member('c1', ['t1']), member('c2', ['t1', 't2']), member('c3', ['t1'])], { t1: 3, t2: 2 }));
    assert.deepEqual(simplify(result), { c1: ['t1-0'], c2: ['t1-1', 't2-0', 't2-1'], c3: ['t1-2'] });
  });

  it('two topics of three partitions: co-partitioned ranges land on the same consumer', () => {
    const result = range.assign(input([member('c1', ['t1', 't2']), member('c2', ['t2', 't1'])], { t1: 3, t2: 3 }));
    assert.deepEqual(simplify(result), { c1: ['t1-0', 't1-1', 't2-0', 't2-1'], c2: ['t1-2', 't2-2'] });
  });

  it('static members are ordered by group instance id, before dynamic ones', () => {
    const members = [
      member('consumer-b', ['t1', 't2'], { groupInstanceId: 'instance1' }),
      member('consumer-a', ['t1', 't2'], { groupInstanceId: 'instance2' }),
      member('consumer-0', ['t1', 't2']),
    ];
    const result = range.assign(input(members, { t1: 3, t2: 3 }));
    assert.deepEqual(simplify(result), { 'consumer-b': ['t1-0', 't2-0'], 'consumer-a': ['t1-1', 't2-1'], 'consumer-0': ['t1-2', 't2-2'] });
  });

  it('ignores rack ids (no replica racks in the input: Java falls back to the same ranges)', () => {
    const plain = range.assign(input([member('a', ['t']), member('b', ['t'])], { t: 5 }));
    const racked = range.assign(input([member('a', ['t'], { rackId: 'r1' }), member('b', ['t'], { rackId: 'r2' })], { t: 5 }));
    assert.deepEqual(simplify(racked), simplify(plain));
  });

  it('refuses duplicate member ids', () => {
    assert.throws(() => range.assign(input([member('a', ['t']), member('a', ['t'])], { t: 1 })), AssignorError);
  });
});

describe('assignors: roundrobin (Java RoundRobinAssignor)', () => {
  it('only assigns partitions of subscribed topics', () => {
    assert.deepEqual(simplify(roundrobin.assign(input([member('c', ['t'])], { t: 3, other: 2 }))), { c: ['t-0', 't-1', 't-2'] });
  });

  it('mixed topics: members not subscribed are skipped', () => {
    const result = roundrobin.assign(input([member('c1', ['t1']), member('c2', ['t1', 't2']), member('c3', ['t1'])], { t1: 3, t2: 2 }));
    assert.deepEqual(simplify(result), { c1: ['t1-0'], c2: ['t1-1', 't2-0', 't2-1'], c3: ['t1-2'] });
  });

  it('two consumers, two topics of three partitions', () => {
    const result = roundrobin.assign(input([member('c1', ['t1', 't2']), member('c2', ['t1', 't2'])], { t1: 3, t2: 3 }));
    assert.deepEqual(simplify(result), { c1: ['t1-0', 't1-2', 't2-1'], c2: ['t1-1', 't2-0', 't2-2'] });
  });

  it('static members by instance id (testTwoStaticConsumersTwoTopicsSixPartitions)', () => {
    const members = [
      member('consumer-b', ['t1', 't2'], { groupInstanceId: 'instance1' }),
      member('consumer-a', ['t1', 't2'], { groupInstanceId: 'instance2' }),
    ];
    const result = roundrobin.assign(input(members, { t1: 3, t2: 3 }));
    assert.deepEqual(simplify(result), { 'consumer-b': ['t1-0', 't1-2', 't2-1'], 'consumer-a': ['t1-1', 't2-0', 't2-2'] });
  });

  it('static members keep their partitions when a dynamic member is replaced (testStaticMemberRoundRobinAssignmentPersistent)', () => {
    const statics = [1, 2, 3].map((i) => member(`consumer${i}`, ['t1', 't2'], { groupInstanceId: `instance${i}` }));
    const expected = { consumer1: ['t1-0', 't2-1'], consumer2: ['t1-1', 't2-2'], consumer3: ['t1-2'] };
    const first = roundrobin.assign(input([...statics, member('consumer4', ['t1', 't2'])], { t1: 3, t2: 3 }));
    assert.deepEqual(simplify(first), { ...expected, consumer4: ['t2-0'] });
    const second = roundrobin.assign(input([...statics, member('consumer5', ['t1', 't2'])], { t1: 3, t2: 3 }));
    assert.deepEqual(simplify(second), { ...expected, consumer5: ['t2-0'] });
  });

  it('deals across topics continuing after the member that took the last partition', () => {
    // a: t1,t2  b: t2  c: t1,t2 -> t1-0 a, t1-1 c, t1-2 a, t2-0 b, t2-1 c, t2-2 a
    const result = roundrobin.assign(input([member('a', ['t1', 't2']), member('b', ['t2']), member('c', ['t2', 't1'])], { t1: 3, t2: 3 }));
    assert.deepEqual(simplify(result), { a: ['t1-0', 't1-2', 't2-2'], b: ['t2-0'], c: ['t1-1', 't2-1'] });
  });
});

describe('assignors: registry', () => {
  it('names and protocols as in Java', () => {
    assert.deepEqual(BUILT_IN_ASSIGNOR_NAMES, ['range', 'roundrobin', 'sticky', 'cooperative-sticky']);
    const byName = Object.fromEntries(builtInAssignors().map((a) => [a.name, a.supportedProtocols]));
    assert.deepEqual(byName, { range: ['eager'], roundrobin: ['eager'], sticky: ['eager'], 'cooperative-sticky': ['cooperative', 'eager'] });
    assert.ok(assignorByName('sticky') instanceof StickyAssignor);
    assert.ok(assignorByName('cooperative-sticky') instanceof CooperativeStickyAssignor);
    assert.throws(() => assignorByName('toString'), AssignorError);
    assert.throws(() => assignorByName('uniform'), /unknown partition assignor/);
  });

  it('gives fresh instances: sticky state is per consumer', () => {
    const a = assignorByName('sticky');
    a.onAssignment({ partitions: [tp('t', 0)], userData: null }, 3);
    assert.equal(assignorByName('sticky').subscriptionUserData({ topics: ['t'], ownedPartitions: [], generationId: -1 }), null);
    assert.ok(a.subscriptionUserData({ topics: ['t'], ownedPartitions: [], generationId: 3 }) !== null);
  });
});

describe('assignors: sticky user data (Java StickyAssignorUserData v0/v1, CooperativeStickyAssignor generation)', () => {
  const partitions = [tp('t1', 0), tp('t2', 4), tp('t1', 2)];

  it('v1 round trip, grouped by topic', () => {
    const bytes = encodeStickyUserData({ partitions, generation: 7 });
    const expected = new Writer()
      .writeInt32(2)
      .writeString('t1').writeInt32(2).writeInt32(0).writeInt32(2)
      .writeString('t2').writeInt32(1).writeInt32(4)
      .writeInt32(7)
      .toBuffer();
    assert.deepEqual(bytes, expected);
    assert.deepEqual(decodeStickyUserData(bytes), { partitions: [tp('t1', 0), tp('t1', 2), tp('t2', 4)], generation: 7 });
  });

  it('v0 (no generation) decodes with no generation; unreadable bytes mean nothing owned, generation -1', () => {
    const v1 = encodeStickyUserData({ partitions, generation: 7 });
    assert.deepEqual(decodeStickyUserData(v1.subarray(0, v1.length - 4)).generation, null);
    assert.equal(decodeStickyUserData(v1.subarray(0, v1.length - 4)).partitions.length, 3);
    assert.deepEqual(decodeStickyUserData(v1.subarray(0, 7)), { partitions: [], generation: -1 });
    assert.deepEqual(decodeStickyUserData(Buffer.from([0xff, 0xff, 0xff, 0xff])), { partitions: [], generation: -1 });
    assert.deepEqual(decodeStickyUserData(null), { partitions: [], generation: null });
    assert.deepEqual(decodeStickyUserData(Buffer.alloc(0)), { partitions: [], generation: null });
  });

  it('the sticky assignor reports what it was given, with the generation', () => {
    const a = new StickyAssignor();
    assert.equal(a.subscriptionUserData(), null);
    a.onAssignment({ partitions, userData: null }, 12);
    assert.deepEqual(decodeStickyUserData(a.subscriptionUserData()), { partitions: [tp('t1', 0), tp('t1', 2), tp('t2', 4)], generation: 12 });
  });

  it('cooperative-sticky carries only the generation', () => {
    const a = new CooperativeStickyAssignor();
    assert.deepEqual(a.subscriptionUserData(), Buffer.from([0xff, 0xff, 0xff, 0xff]));
    a.onAssignment({ partitions, userData: null }, 5);
    assert.deepEqual(a.subscriptionUserData(), encodeCooperativeStickyUserData(5));
    assert.equal(decodeCooperativeStickyUserData(encodeCooperativeStickyUserData(5)), 5);
    assert.equal(decodeCooperativeStickyUserData(Buffer.from([1])), -1);
    assert.equal(decodeCooperativeStickyUserData(null), null);
  });
});
