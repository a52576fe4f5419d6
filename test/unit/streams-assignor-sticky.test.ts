/**
 * The sticky streams task assignor on hand-made groups. Every expected assignment (and the
 * failure message) was captured from Apache Kafka 4.4.0's StickyTaskAssignor, run on the
 * same input through test/support/java StreamsAssignorOracle; the interop test
 * streams-assignor-java compares random groups with Kafka's live.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stickyTaskAssignor, TaskAssignorError } from '../../src/coordinator/streams/assignor/sticky.js';
import type { KafkaStreamsAssignment } from '../support/java-oracle.js';
import { asOracleReply, brookGroup, type Scenario, type ScenarioMember } from '../support/streams-assignor.js';

const T = { timeout: 10_000 };

function member(memberId: string, processId: string, state: Partial<ScenarioMember> = {}): ScenarioMember {
  return { memberId, processId, rackId: null, clientTags: {}, activeTasks: {}, standbyTasks: {}, warmupTasks: {}, taskOffsets: {}, taskEndOffsets: {}, ...state };
}

function assign(s: Scenario): KafkaStreamsAssignment {
  const { group, topology } = brookGroup(s);
  return asOracleReply(stickyTaskAssignor.assign(group, topology));
}

const stateful = (id: string, partitions: number): Scenario['subtopologies'][number] => ({ id, partitions, stateful: true });
const stateless = (id: string, partitions: number): Scenario['subtopologies'][number] => ({ id, partitions, stateful: false });

describe('sticky streams task assignor (expected values from Kafka 4.4)', () => {
  it('is named sticky', T, () => {
    assert.equal(stickyTaskAssignor.name, 'sticky');
  });

  it('a new group: actives range-like over processes in Java hash order, each standby on the other process', T, () => {
    // "p2" comes before "p1" in the HashMap of processes, so it takes task 0.
    const s: Scenario = { numStandbyReplicas: 1, rackAwareAssignmentTags: [], subtopologies: [stateful('0', 4)], members: [member('m1', 'p1'), member('m2', 'p2')] };
    assert.deepEqual(assign(s), {
      m1: { activeTasks: { '0': [1, 3] }, standbyTasks: { '0': [0, 2] } },
      m2: { activeTasks: { '0': [0, 2] }, standbyTasks: { '0': [1, 3] } },
    });
  });

  it('a joining member gets what the previous owner has beyond its share, the owner keeps the rest', T, () => {
    const s: Scenario = {
      numStandbyReplicas: 0,
      rackAwareAssignmentTags: [],
      subtopologies: [stateless('0', 3), stateless('1', 3)],
      members: [member('m1', 'p1', { activeTasks: { '0': [0, 1, 2], '1': [0, 1, 2] } }), member('m2', 'p2')],
    };
    assert.deepEqual(assign(s), {
      m1: { activeTasks: { '0': [0, 1], '1': [0] }, standbyTasks: {} },
      m2: { activeTasks: { '0': [2], '1': [1, 2] }, standbyTasks: {} },
    });
  });

  it('a previous standby over its active quota keeps the task as a standby; the active goes to the new member', T, () => {
    const s: Scenario = {
      numStandbyReplicas: 1,
      rackAwareAssignmentTags: [],
      subtopologies: [stateful('0', 2)],
      members: [member('m2', 'p2', { activeTasks: { '0': [1] }, standbyTasks: { '0': [0] } }), member('m3', 'p3')],
    };
    assert.deepEqual(assign(s), {
      m2: { activeTasks: { '0': [1] }, standbyTasks: { '0': [0] } },
      m3: { activeTasks: { '0': [0] }, standbyTasks: { '0': [1] } },
    });
  });

  it('restarted members (offsets only): the most caught-up state gets the active task', T, () => {
    const s: Scenario = {
      numStandbyReplicas: 1,
      rackAwareAssignmentTags: [],
      subtopologies: [stateful('0', 2)],
      members: [member('a', 'pa', { taskOffsets: { '0': { '0': '100', '1': '900' } } }), member('b', 'pb', { taskOffsets: { '0': { '0': '500', '1': '200' } } })],
    };
    assert.deepEqual(assign(s), {
      a: { activeTasks: { '0': [1] }, standbyTasks: { '0': [0] } },
      b: { activeTasks: { '0': [0] }, standbyTasks: { '0': [1] } },
    });
  });

  it('one process: no standby, as it would sit beside its active', T, () => {
    const s: Scenario = { numStandbyReplicas: 1, rackAwareAssignmentTags: [], subtopologies: [stateful('0', 3)], members: [member('m1', 'p'), member('m2', 'p'), member('m3', 'p')] };
    assert.deepEqual(assign(s), {
      m1: { activeTasks: { '0': [0] }, standbyTasks: {} },
      m2: { activeTasks: { '0': [2] }, standbyTasks: {} },
      m3: { activeTasks: { '0': [1] }, standbyTasks: {} },
    });
  });

  it('equally loaded processes: the heap and computeIfAbsent order decide ("Aa" before "zz", same bucket)', T, () => {
    const s: Scenario = { numStandbyReplicas: 0, rackAwareAssignmentTags: [], subtopologies: [stateless('0', 2)], members: [member('x', 'zz'), member('y', 'Aa'), member('z', 'b')] };
    assert.deepEqual(assign(s), {
      x: { activeTasks: {}, standbyTasks: {} },
      y: { activeTasks: { '0': [0] }, standbyTasks: {} },
      z: { activeTasks: { '0': [1] }, standbyTasks: {} },
    });
  });

  it('no members but tasks to assign: TaskAssignorError with Kafka message', T, () => {
    const s: Scenario = { numStandbyReplicas: 2, rackAwareAssignmentTags: [], subtopologies: [stateful('0', 1)], members: [] };
    const { group, topology } = brookGroup(s);
    assert.throws(
      () => stickyTaskAssignor.assign(group, topology),
      (e: unknown) => e instanceof TaskAssignorError && e.code === 'TASK_ASSIGNOR_ERROR' && e.message === 'No process available to assign active task 0_0.',
    );
  });
});
