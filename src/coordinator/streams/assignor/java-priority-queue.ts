/**
 * java.util.PriorityQueue's binary heap, step for step: the streams task assignor breaks
 * ties between equally loaded processes (and members) by whichever the heap happens to
 * hold at its root, so Brook's heap has to move elements exactly as Java's does. `add` is
 * offer (append, sift up), `poll` takes the root and sifts the last element down from it;
 * addAll is add in the collection's order.
 */
export class JavaPriorityQueue<T> {
  private readonly heap: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.heap.length;
  }

  isEmpty(): boolean {
    return this.heap.length === 0;
  }

  add(x: T): void {
    const heap = this.heap;
    let k = heap.length;
    heap.push(x);
    while (k > 0) {
      const parent = (k - 1) >>> 1;
      const e = heap[parent]!;
      if (this.compare(x, e) >= 0) break;
      heap[k] = e;
      k = parent;
    }
    heap[k] = x;
  }

  addAll(items: Iterable<T>): void {
    for (const item of items) this.add(item);
  }

  poll(): T | undefined {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const result = heap[0]!;
    const x = heap.pop()!;
    const n = heap.length;
    if (n > 0) {
      let k = 0;
      const half = n >>> 1;
      while (k < half) {
        let child = 2 * k + 1;
        let c = heap[child]!;
        const right = child + 1;
        if (right < n && this.compare(c, heap[right]!) > 0) c = heap[(child = right)]!;
        if (this.compare(x, c) <= 0) break;
        heap[k] = c;
        k = child;
      }
      heap[k] = x;
    }
    return result;
  }
}

/** Double.compare for the loads compared here (finite, never NaN or -0.0). */
export function compareDoubles(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
