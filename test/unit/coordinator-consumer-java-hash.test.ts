/**
 * Java's HashMap/HashSet iteration order as consumer/java-hash.ts computes it, against
 * orders printed by Java 17 itself (java.util.HashMap, org.apache.kafka.common.Uuid) for
 * these inputs. The interop test server-assignors-java.test.ts checks the same through
 * Kafka's assignors on random inputs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareUuids, intHash, JavaHashSet, uuidHash } from '../../src/coordinator/consumer/java-hash.js';
import { stringHash } from '../../src/util/string-hash.js';

const IDS = ['vtPNpnxCE77HT5RT0phiHA', 'csa-UDtz2em7roPNOzL1pA', 'C0csWUPMDdP9nUm9aWTq7w', 'ZVFj-MnJoPnyiH5A86ntNQ', 'ToFhEXu3aLuc-zArh4X3dw'];

describe("coordinator: Java's hash iteration order", { timeout: 5000 }, () => {
  it('String keys put into a new HashMap', () => {
    const set = JavaHashSet.empty(stringHash);
    for (const s of ['member-c', 'consumer-1-a8f', 'zeta', 'Aa', 'BB', 'x', 'consumer-2-0c1', 'm']) set.add(s);
    // "Aa" and "BB" share a hash: the bucket keeps insertion order.
    assert.deepEqual(set.values(), ['zeta', 'Aa', 'BB', 'consumer-1-a8f', 'x', 'member-c', 'consumer-2-0c1', 'm']);
  });

  it('new HashSet<>(List.of(20, 5, 36, 4, 17, 1))', () => {
    assert.deepEqual(JavaHashSet.copyOf(intHash, [20, 5, 36, 4, 17, 1]).values(), [17, 1, 20, 36, 4, 5]);
  });

  it('Uuid keys: put into new HashSet<>() vs computeIfAbsent (twice per key) into new HashMap<>(0)', () => {
    const put = JavaHashSet.empty(uuidHash);
    for (const id of IDS) put.add(id);
    assert.deepEqual(put.values(), IDS);
    const computed = JavaHashSet.withCapacity(uuidHash, 0);
    for (const id of IDS) for (let p = 0; p < 2; p++) computed.addFirst(id);
    assert.deepEqual(computed.values(), ['csa-UDtz2em7roPNOzL1pA', 'vtPNpnxCE77HT5RT0phiHA', 'C0csWUPMDdP9nUm9aWTq7w', 'ZVFj-MnJoPnyiH5A86ntNQ', 'ToFhEXu3aLuc-zArh4X3dw']);
  });

  it("Kafka's Uuid.hashCode and compareTo", () => {
    assert.equal(uuidHash('csa-UDtz2em7roPNOzL1pA'), -920055344);
    assert.equal(uuidHash('vtPNpnxCE77HT5RT0phiHA'), -683268009);
    assert.equal(compareUuids(IDS[0]!, IDS[1]!), -1);
    assert.equal(compareUuids(IDS[2]!, IDS[3]!), -1);
    assert.equal(compareUuids(IDS[1]!, IDS[0]!), 1);
  });
});
