/**
 * Wakes fetches parked on empty partitions when data arrives. A parked fetch registers one
 * waiter under each partition it reads; the first append to any of them wakes it.
 */
import type { AppendNotifier } from './broker-context.js';

interface Waiter {
  readonly keys: readonly string[];
  readonly wake: () => void;
  woken: boolean;
}

export function createAppendNotifier(): AppendNotifier {
  const byPartition = new Map<string, Set<Waiter>>();

  const remove = (waiter: Waiter): void => {
    for (const key of waiter.keys) {
      const set = byPartition.get(key);
      if (!set) continue;
      set.delete(waiter);
      if (set.size === 0) byPartition.delete(key);
    }
  };

  return {
    waitForAppend(keys, timeoutMs, stop) {
      return new Promise<void>((resolve) => {
        let timer: NodeJS.Timeout | null = null;
        const waiter: Waiter = {
          keys,
          woken: false,
          wake: () => {
            if (waiter.woken) return;
            waiter.woken = true;
            remove(waiter);
            if (timer !== null) clearTimeout(timer);
            resolve();
          },
        };
        for (const key of keys) {
          let set = byPartition.get(key);
          if (!set) byPartition.set(key, (set = new Set()));
          set.add(waiter);
        }
        timer = setTimeout(waiter.wake, timeoutMs);
        stop?.(waiter.wake);
      });
    },
    notifyAppend(topic, partition) {
      const set = byPartition.get(`${topic}/${partition}`);
      if (!set) return;
      for (const waiter of [...set]) waiter.wake();
    },
  };
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}/${partition}`;
}
