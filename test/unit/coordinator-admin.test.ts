import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeCoordinatorKey } from '../../src/protocol/coordinator-records/framing.js';
import { CoordinatorHarness, assignment, subscription } from '../support/coordinator/harness.js';
import { awaitJoins, commit, fetchedOffsets, fetchOffsets, formGroup, join, joinNew } from '../support/coordinator/requests.js';

const G = 'g';
const DAY = 24 * 60 * 60 * 1000;

function deleteGroups(h: CoordinatorHarness, names: string[]) {
  return h.send('DeleteGroups', 2, { groupsNames: names }).answer.results.map((r) => [r.groupId, r.errorCode]);
}

function offsetDelete(h: CoordinatorHarness, group: string, topics: Record<string, number[]>) {
  return h.send('OffsetDelete', 0, {
    groupId: group,
    topics: Object.entries(topics).map(([name, ps]) => ({ name, partitions: ps.map((partitionIndex) => ({ partitionIndex })) })),
  }).answer;
}

const tombstones = (h: CoordinatorHarness, from: number) =>
  h.log.slice(from).map((r) => {
    const k = decodeCoordinatorKey(r.key);
    assert.equal(r.value, null);
    return k.kind === 'offset-commit' ? `${k.key.topic}/${k.key.partition}` : k.kind === 'group-metadata' ? `group:${k.key.group}` : '?';
  });

describe('coordinator: DeleteGroups', () => {
  it('deletes Empty groups with tombstones for every offset and the group; refuses live and unknown ones', () => {
    const h = new CoordinatorHarness();
    formGroup(h, 'live', 1);
    commit(h, { group: 'idle', offsets: { t: { 0: 1, 1: 2 }, u: { 0: 3 } } });
    const before = h.log.length;
    assert.deepEqual(deleteGroups(h, ['live', 'idle', 'ghost', 'idle']), [
      ['live', ErrorCode.NON_EMPTY_GROUP],
      ['idle', ErrorCode.NONE],
      ['ghost', ErrorCode.GROUP_ID_NOT_FOUND],
    ]);
    assert.deepEqual(tombstones(h, before), ['t/0', 't/1', 'u/0', 'group:idle']);
    assert.equal(h.coordinator.group('idle'), undefined);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: 'idle', topics: { t: [0] } }).answer), { 't/0': -1 });
  });
});

describe('coordinator: OffsetDelete', () => {
  it('deletes offsets of an Empty group (tombstones only for offsets that exist)', () => {
    const h = new CoordinatorHarness();
    commit(h, { group: G, offsets: { t: { 0: 1, 1: 2 } } });
    const before = h.log.length;
    const r = offsetDelete(h, G, { t: [0, 7] });
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.deepEqual(r.topics[0].partitions.map((p) => p.errorCode), [ErrorCode.NONE, ErrorCode.NONE]);
    assert.deepEqual(tombstones(h, before), ['t/0']);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: G, topics: null }).answer), { 't/1': 2 });
  });

  it('GROUP_ID_NOT_FOUND for an unknown group', () => {
    const h = new CoordinatorHarness();
    assert.equal(offsetDelete(h, 'ghost', { t: [0] }).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(offsetDelete(h, '', { t: [0] }).errorCode, ErrorCode.INVALID_GROUP_ID);
  });

  it('in a live consumer group: GROUP_SUBSCRIBED_TO_TOPIC for subscribed topics, others deleted', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2, { topics: ['orders'] });
    commit(h, { group: G, generationId: g.generationId, memberId: g.leader, offsets: { orders: { 0: 1 }, old: { 0: 2 } } });
    const r = offsetDelete(h, G, { orders: [0], old: [0] });
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.deepEqual(r.topics.map((t) => [t.name, t.partitions[0].errorCode]), [
      ['orders', ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC],
      ['old', ErrorCode.NONE],
    ]);
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: G, topics: null }).answer), { 'orders/0': 1 });
  });

  it('NON_EMPTY_GROUP for a live group of another protocol type', () => {
    const h = new CoordinatorHarness();
    awaitJoins(h, [joinNew(h, { group: G, protocolType: 'connect', protocols: [{ name: 'v1', metadata: Buffer.from('x') }] })]);
    assert.equal(offsetDelete(h, G, { t: [0] }).errorCode, ErrorCode.NON_EMPTY_GROUP);
  });
});

describe('coordinator: offset expiration', () => {
  it('offsets of an Empty group expire offsets.retention after the group became Empty; then the group goes', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1);
    commit(h, { group: G, generationId: g.generationId, memberId: g.members[0], offsets: { orders: { 0: 5 } } });
    h.advance(10_000); // session expiry: Empty from now
    h.advance(7 * DAY - 1);
    assert.equal(h.apply(h.coordinator.expireOffsets(h.nowMs)).records.length, 0);
    h.advance(1);
    const before = h.log.length;
    h.apply(h.coordinator.expireOffsets(h.nowMs));
    assert.deepEqual(tombstones(h, before), ['orders/0', `group:${G}`]);
    assert.equal(h.coordinator.group(G), undefined);
  });

  it('simple groups expire by commit time; explicit (v2-4) retention by its expire timestamp', () => {
    const h = new CoordinatorHarness();
    commit(h, { group: 's', offsets: { t: { 0: 1 } } });
    commit(h, { group: 'r', offsets: { t: { 0: 1 } }, version: 3, retentionTimeMs: 60_000n });
    h.advance(60_000);
    h.apply(h.coordinator.expireOffsets(h.nowMs));
    assert.equal(h.coordinator.group('r'), undefined);
    assert.ok(h.coordinator.group('s'));
    h.advance(7 * DAY);
    h.apply(h.coordinator.expireOffsets(h.nowMs));
    assert.equal(h.coordinator.group('s'), undefined);
  });

  it('a Stable consumer group keeps offsets of subscribed topics; others expire by commit time', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 1, { topics: ['orders'], sessionTimeoutMs: 60_000 });
    commit(h, { group: G, generationId: g.generationId, memberId: g.members[0], offsets: { orders: { 0: 1 }, gone: { 0: 2 } } });
    // Keep the member alive across the retention period by committing the subscribed topic.
    for (let t = 0; t < 7 * DAY; t += 50_000) {
      h.advance(50_000);
      commit(h, { group: G, generationId: g.generationId, memberId: g.members[0], offsets: { orders: { 0: 1 } } });
    }
    h.apply(h.coordinator.expireOffsets(h.nowMs));
    assert.deepEqual(fetchedOffsets(fetchOffsets(h, { group: G, topics: null }).answer), { 'orders/0': 1 });
  });

  it('runs periodically once the coordinator is loaded', () => {
    const h = new CoordinatorHarness().restart();
    commit(h, { group: 's', offsets: { t: { 0: 1 } } });
    h.advance(7 * DAY + 600_000);
    assert.equal(h.coordinator.group('s'), undefined);
  });
});

describe('coordinator: DescribeGroups', () => {
  it('a Stable group: members with metadata and assignment, protocol name as protocolData', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2, { topics: ['orders'] });
    const [d] = h.send('DescribeGroups', 5, { groups: [G], includeAuthorizedOperations: true }).answer.groups;
    assert.equal(d.errorCode, ErrorCode.NONE);
    assert.equal(d.groupState, 'Stable');
    assert.equal(d.protocolType, 'consumer');
    assert.equal(d.protocolData, 'range');
    assert.equal(d.authorizedOperations, (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11), 'READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS (Kafka 4.4)');
    assert.deepEqual(d.members.map((m) => [m.memberId, m.clientId, m.clientHost]), [
      [g.members[0], 'c1', '/127.0.0.1'],
      [g.members[1], 'c2', '/127.0.0.1'],
    ]);
    assert.ok(d.members[0].memberMetadata.equals(subscription(['orders'])));
    assert.ok(d.members[1].memberAssignment.equals(assignment({ orders: [1] })));
  });

  it('other states: members without metadata, empty protocolData; unknown groups are Dead without error', () => {
    const h = new CoordinatorHarness();
    const g = formGroup(h, G, 2);
    join(h, { group: G, memberId: g.leader });
    commit(h, { group: 'simple', offsets: { t: { 0: 1 } } });
    const groups = h.send('DescribeGroups', 0, { groups: [G, 'simple', 'ghost'] }).answer.groups;
    assert.deepEqual(groups.map((d) => [d.groupId, d.errorCode, d.groupState, d.protocolType, d.protocolData, d.members.length]), [
      [G, 0, 'PreparingRebalance', 'consumer', '', 2],
      ['simple', 0, 'Empty', '', '', 0],
      ['ghost', 0, 'Dead', '', '', 0],
    ]);
    assert.equal(groups[0].members[0].memberMetadata.length, 0);
  });
});

describe('coordinator: ListGroups', () => {
  function threeGroups(): CoordinatorHarness {
    const h = new CoordinatorHarness();
    formGroup(h, 'stable', 1);
    awaitJoins(h, [joinNew(h, { group: 'completing' })]);
    commit(h, { group: 'simple', offsets: { t: { 0: 1 } } });
    return h;
  }

  it('lists every group with its protocol type (and state from v4, type from v5)', () => {
    const h = threeGroups();
    const all = h.send('ListGroups', 5, { statesFilter: [], typesFilter: [] }).answer;
    assert.deepEqual(all.groups.map((g) => [g.groupId, g.protocolType, g.groupState, g.groupType]), [
      ['stable', 'consumer', 'Stable', 'classic'],
      ['completing', 'consumer', 'CompletingRebalance', 'classic'],
      ['simple', '', 'Empty', 'classic'],
    ]);
    assert.deepEqual(h.send('ListGroups', 0, {}).answer.groups.map((g) => g.groupId), ['stable', 'completing', 'simple']);
  });

  it('filters by state (case-insensitive) and type', () => {
    const h = threeGroups();
    const list = (statesFilter: string[], typesFilter: string[] = []) =>
      h.send('ListGroups', 5, { statesFilter, typesFilter }).answer.groups.map((g) => g.groupId);
    assert.deepEqual(list(['stable', 'EMPTY']), ['stable', 'simple']);
    assert.deepEqual(list(['Dead']), []);
    assert.deepEqual(list(['nonsense']), []);
    assert.deepEqual(list([], ['Classic']), ['stable', 'completing', 'simple']);
    assert.deepEqual(list([], ['consumer']), []);
  });
});

describe('coordinator: FindCoordinator', () => {
  it('this node coordinates every group and transactional id', () => {
    const h = new CoordinatorHarness();
    const v3 = h.send('FindCoordinator', 3, { key: G, keyType: 0 }).answer;
    assert.deepEqual([v3.errorCode, v3.nodeId, v3.host, v3.port], [0, 1, 'localhost', 9092]);
    const v4 = h.send('FindCoordinator', 4, { keyType: 1, coordinatorKeys: ['a', 'b'] }).answer;
    assert.deepEqual(v4.coordinators!.map((c) => [c.key, c.errorCode, c.nodeId]), [['a', 0, 1], ['b', 0, 1]]);
    const bad = h.send('FindCoordinator', 6, { keyType: 2, coordinatorKeys: ['s'] }).answer;
    assert.equal(bad.coordinators![0].errorCode, ErrorCode.INVALID_REQUEST);
    const keys = ['g:AAAAAAAAAAAAAAAAAAAAAQ:0', 'a:b:AAAAAAAAAAAAAAAAAAAAAQ:7', ' :AAAAAAAAAAAAAAAAAAAAAQ:0', 'g:AAAA:0', 'g:AAAAAAAAAAAAAAAAAAAAAQ:x', 'g:AAAAAAAAAAAAAAAAAAAAAQ:0:'];
    const share = h.send('FindCoordinator', 6, { keyType: 2, coordinatorKeys: keys }).answer;
    assert.deepEqual(share.coordinators!.map((c) => c.errorCode), [0, 0, 42, 42, 42, 0], 'share-partition keys as Kafka parses them');
    assert.equal(h.send('FindCoordinator', 5, { keyType: 2, coordinatorKeys: [keys[0]!] }).answer.coordinators![0].errorCode, ErrorCode.INVALID_REQUEST);
    assert.equal(h.send('FindCoordinator', 0, { key: G }).answer.errorCode, ErrorCode.NONE);
  });
});
