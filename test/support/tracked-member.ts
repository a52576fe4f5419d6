/**
 * A Brook consumer as one member of a group in interop tests: it records its ownership events
 * (the rebalance callbacks, test/support/ownership.ts) and the records it read, and with
 * `manualCommits` commits what it read after every poll and, for the rest, on revocation
 * (the contract of test/support/java GroupConsumer.java), so a hand-over is exact.
 */
import { Consumer, type ConsumerOptions } from '../../src/index.js';
import type { OwnershipEvent } from './ownership.js';

export interface TrackedMemberOptions {
  /** Commit after every poll and on revocation; else the consumer's own (auto-)commits. */
  readonly manualCommits: boolean;
  /** 10 ms of work per record after each poll, so rebalances land while records are in flight. */
  readonly slow?: boolean;
}

export class TrackedMember {
  readonly events: OwnershipEvent[] = [];
  readonly records: [number, number][] = [];
  readonly errors: string[] = [];
  readonly consumer: Consumer;
  private readonly pending = new Map<number, bigint>();
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(consumerOptions: ConsumerOptions, private readonly topic: string, private readonly options: TrackedMemberOptions) {
    this.consumer = new Consumer(consumerOptions);
    this.consumer.subscribe([topic], {
      onPartitionsAssigned: (ps) => { this.event('assigned', ps.map((p) => p.partition)); },
      onPartitionsRevoked: async (ps) => {
        if (this.options.manualCommits) await this.commit(ps.map((p) => p.partition));
        this.event('revoked', ps.map((p) => p.partition));
      },
      onPartitionsLost: (ps) => { this.event('lost', ps.map((p) => p.partition)); },
    });
  }

  private event(type: OwnershipEvent['type'], partitions: number[]): void {
    this.events.push({ t: Date.now(), type, partitions: [...partitions].sort((a, b) => a - b) });
  }

  private async commit(only: number[]): Promise<void> {
    const offsets = only.filter((p) => this.pending.has(p)).map((p) => ({ topic: this.topic, partition: p, offset: this.pending.get(p)! }));
    if (offsets.length === 0) return;
    try {
      await this.consumer.commitSync(offsets);
      for (const o of offsets) if (this.pending.get(o.partition) === o.offset) this.pending.delete(o.partition);
    } catch (err) {
      this.errors.push(`commitSync ${JSON.stringify(offsets.map((o) => [o.partition, Number(o.offset)]))}: ${(err as Error).message}`);
    }
  }

  /** Polls (and commits) until `stop()` says so or close() is called; errors of a poll are recorded, not thrown. */
  async run(stop: () => boolean = () => false): Promise<void> {
    while (!this.stopped && !stop()) {
      try {
        const records = await this.consumer.poll({ timeoutMs: 100 });
        for (const r of records) {
          this.records.push([r.partition, Number(r.offset)]);
          this.pending.set(r.partition, r.offset + 1n);
        }
        if (this.options.slow && records.length > 0) await new Promise((r) => setTimeout(r, 10 * records.length));
      } catch (err) {
        this.errors.push(`poll: ${(err as Error).message}`);
      }
      if (this.options.manualCommits) await this.commit([...this.pending.keys()]);
    }
  }

  /** run() in the background, until close(). */
  start(): void {
    this.loop = this.run();
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.loop;
    this.event('closing', this.consumer.assignment().map((p) => p.partition));
    await this.consumer.close();
    this.event('closed', []);
  }
}
