/** A first-in first-out queue with O(1) shift (Array.prototype.shift is O(n) on long arrays). */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  last(): T | undefined {
    return this.length > 0 ? this.items[this.items.length - 1] : undefined;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes and returns everything. */
  drain(): T[] {
    const rest = this.items.slice(this.head) as T[];
    this.items = [];
    this.head = 0;
    return rest;
  }
}
