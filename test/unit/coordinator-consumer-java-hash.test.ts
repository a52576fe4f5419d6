/**
 * Java's HashMap/HashSet iteration order as consumer/java-hash.ts computes it, against
 * orders printed by Java 17 itself (java.util.HashMap, org.apache.kafka.common.Uuid) for
 * these inputs. The interop test server-assignors-java.test.ts checks the same through
 * Kafka's assignors on random inputs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareUuids, intHash, JavaHashSet, javaPutOrder, uuidHash } from '../../src/coordinator/consumer/java-hash.js';
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

  it('javaPutOrder is the order of JavaHashSet after the same puts and removal, at every size up to 2,000', () => {
    // Ids of few characters share buckets often, so the in-bucket order is exercised too.
    let seed = 42;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
    for (let size = 0; size <= 2000; size += size < 40 ? 1 : 97) {
      const keys = new Set<string>();
      while (keys.size < size) keys.add(random(4) === 0 ? String.fromCharCode(65 + random(26), 65 + random(26)) : `member-${random(1 << 30)}`);
      const list = [...keys];
      const existing = list.length > 0 && random(3) === 0 ? list[random(list.length)]! : undefined;
      const last = existing ?? `new-${random(1000)}`;
      const removed = list.length > 1 && random(2) === 0 ? list.find((k) => k !== last) : undefined;
      const set = JavaHashSet.empty(stringHash);
      for (const k of [...list].sort(byString)) set.add(k);
      set.add(last);
      if (removed !== undefined) set.delete(removed);
      assert.deepEqual(javaPutOrder(stringHash, list, byString, last, removed), set.values(), `size ${size}`);
    }
  });

  it("Kafka's Uuid.hashCode and compareTo", () => {
    assert.equal(uuidHash('csa-UDtz2em7roPNOzL1pA'), -920055344);
    assert.equal(uuidHash('vtPNpnxCE77HT5RT0phiHA'), -683268009);
    assert.equal(compareUuids(IDS[0]!, IDS[1]!), -1);
    assert.equal(compareUuids(IDS[2]!, IDS[3]!), -1);
    assert.equal(compareUuids(IDS[1]!, IDS[0]!), 1);
  });
});
