/**
 * Start-up replay reduces `__consumer_offsets` to the last record of each key
 * (src/broker/offsets-replay.ts). These tests replay random logs both ways, every record
 * and the reduced ones, and compare the coordinators' groups and committed offsets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LatestRecordPerKey } from '../../src/broker/offsets-replay.js';
import { GroupCoordinator, type CoordinatorRecord } from '../../src/coordinator/index.js';
import { encodeGroupMetadataKey, encodeOffsetCommitKey } from '../../src/protocol/coordinator-records/index.js';
import { CoordinatorHarness, testConfig } from '../support/coordinator/harness.js';
import { commit, fetchOffsets, formGroup, leave } from '../support/coordinator/requests.js';
import { seededRandom } from '../support/random-message.js';

const GROUPS = ['g0', 'g1', 'g2', 'g3'];
const TOPICS = ['a', 'b'];

/**
 * A log as a busy coordinator writes it (groups formed and left, commits from members and
 * from simple groups), with group and offset tombstones (group deletion, offset expiration)
 * mixed in at random places.
 */
function randomLog(seed: number): CoordinatorRecord[] {
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const h = new CoordinatorHarness();
  const stable = new Map<string, { generationId: number; leader: string; members: string[] }>();
  for (let step = 0; step < 120; step++) {
    const group = pick(GROUPS);
    const roll = rnd();
    const offsets = { [pick(TOPICS)]: { [Math.floor(rnd() * 3)]: Math.floor(rnd() * 1000) } };
    const g = stable.get(group);
    if (roll < 0.1 && !g) {
      const formed = formGroup(h, group, 1 + Math.floor(rnd() * 2));
      stable.set(group, { generationId: formed.generationId, leader: formed.leader, members: formed.members });
    } else if (roll < 0.15 && g) {
      leave(h, { group, members: g.members.map((memberId) => ({ memberId })) });
      stable.delete(group);
    } else if (roll < 0.55) {
      commit(h, g ? { group, generationId: g.generationId, memberId: g.leader, offsets } : { group, offsets });
    } else if (roll < 0.65 && !g) {
      h.log.push({ key: encodeGroupMetadataKey({ group }), value: null });
    } else if (roll < 0.8) {
      const [topic, partitions] = Object.entries(offsets)[0]!;
      h.log.push({ key: encodeOffsetCommitKey({ group, topic, partition: Number(Object.keys(partitions)[0]) }), value: null });
    }
  }
  return h.log;
}

function replayed(records: readonly CoordinatorRecord[]): CoordinatorHarness {
  const coordinator = new GroupCoordinator(testConfig());
  for (const r of records) coordinator.replay(r);
  return new CoordinatorHarness(coordinator);
}

function reduced(records: readonly CoordinatorRecord[]): CoordinatorRecord[] {
  const latest = new LatestRecordPerKey();
  for (const r of records) {
    if (r.value === null) latest.add(r.key, 0, r.key.length, r.key, 0, -1);
    else latest.add(r.key, 0, r.key.length, r.value, 0, r.value.length);
  }
  assert.equal(latest.records, records.length);
  return latest.toReplay();
}

/** Groups (state, generation, leader, members) and every committed offset, comparable. */
function stateOf(h: CoordinatorHarness): unknown {
  return h.coordinator.groupIds().sort().map((id) => {
    const snap = h.coordinator.group(id)!;
    const fetched = fetchOffsets(h, { group: id, topics: null }).answer;
    const offsets = (fetched.groups?.[0]?.topics ?? []).flatMap((t) => t.partitions.map((p) => `${t.name}/${p.partitionIndex}=${p.committedOffset}:${p.metadata}`)).sort();
    return { id, state: snap.state, generation: snap.generationId, leader: snap.leaderId, protocol: snap.protocolName, members: snap.members.map((m) => m.memberId), offsets };
  });
}

describe('replay of the last record per key', () => {
  it('gives the state that replaying every record gives (300 random logs)', () => {
    let smaller = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const log = randomLog(seed);
      const less = reduced(log);
      if (less.length < log.length) smaller++;
      assert.deepEqual(stateOf(replayed(less)), stateOf(replayed(log)), `seed ${seed}: ${log.length} records, ${less.length} replayed`);
    }
    assert.equal(smaller, 300, 'every log has overwritten records');
  });

  it('keeps a tombstoned key\'s last value where it created the group', () => {
    // The commit created the simple group; the group tombstone dropped it; a later
    // commit of another partition recreated it; the first key is tombstoned at the end.
    const value = (offset: number): Buffer => {
      const h = new CoordinatorHarness();
      commit(h, { group: 'g', offsets: { t: { 0: offset } } });
      return h.log.at(-1)!.value!;
    };
    const k0 = encodeOffsetCommitKey({ group: 'g', topic: 't', partition: 0 });
    const k1 = encodeOffsetCommitKey({ group: 'g', topic: 't', partition: 1 });
    const gk = encodeGroupMetadataKey({ group: 'g' });
    const cases: CoordinatorRecord[][] = [
      [{ key: k0, value: value(1) }, { key: gk, value: null }, { key: k0, value: null }],
      [{ key: gk, value: null }, { key: k0, value: value(1) }, { key: k0, value: null }],
      [{ key: k0, value: value(1) }, { key: k0, value: value(2) }, { key: gk, value: null }, { key: k1, value: value(3) }, { key: k0, value: null }],
    ];
    for (const log of cases) assert.deepEqual(stateOf(replayed(reduced(log))), stateOf(replayed(log)));
    assert.deepEqual((stateOf(replayed(cases[1]!)) as { id: string }[]).map((g) => g.id), ['g']);
    assert.deepEqual(stateOf(replayed(cases[0]!)), []);
  });
});
