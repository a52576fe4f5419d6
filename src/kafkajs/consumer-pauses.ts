/**
 * What the application paused, kept as KafkaJS keeps it: per topic, apart from the assignment.
 * A topic paused as a whole stays paused for every partition the member gets later (one made
 * before the group join, or after a rebalance, included), except partitions resumed one by one;
 * partitions paused one by one stay paused until resumed. The run applies it to Brook's
 * consumer whenever it changes or partitions are assigned.
 */
import type { TopicPartition } from '../assignors/types.js';

interface TopicPauses {
  all: boolean;
  readonly paused: Set<number>;
  /** Partitions resumed one by one while the whole topic is paused. */
  readonly resumed: Set<number>;
}

export interface TopicPartitionsArg {
  topic: string;
  partitions?: number[];
}

export class PauseState {
  private readonly topics = new Map<string, TopicPauses>();

  private state(topic: string): TopicPauses {
    let s = this.topics.get(topic);
    if (!s) this.topics.set(topic, s = { all: false, paused: new Set(), resumed: new Set() });
    return s;
  }

  pause(list: readonly TopicPartitionsArg[]): void {
    for (const { topic, partitions } of list) {
      const s = this.state(topic);
      if (partitions === undefined) {
        s.paused.clear();
        s.resumed.clear();
        s.all = true;
      } else {
        for (const p of partitions) {
          s.paused.add(p);
          s.resumed.delete(p);
        }
        s.all = false;
      }
    }
  }

  resume(list: readonly TopicPartitionsArg[]): void {
    for (const { topic, partitions } of list) {
      const s = this.state(topic);
      if (partitions === undefined) {
        s.paused.clear();
        s.resumed.clear();
        s.all = false;
      } else {
        for (const p of partitions) {
          s.paused.delete(p);
          if (s.all) s.resumed.add(p);
        }
      }
    }
  }

  isPaused(tp: TopicPartition): boolean {
    const s = this.topics.get(tp.topic);
    if (!s) return false;
    return (s.all && !s.resumed.has(tp.partition)) || s.paused.has(tp.partition);
  }
}
