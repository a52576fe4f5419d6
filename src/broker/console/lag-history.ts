/**
 * Each group's lag per partition over the recent past, for the console's chart: every
 * `intervalMs` of the broker's clock (its timers are unref'd; a test's ManualScheduler drives
 * them) a sample of every committed offset's lag (group-lag.ts), kept per group in a ring of
 * the last `capacity` samples (5 s x 360: the last 30 minutes). Memory is bounded by
 * capacity x the committed partitions; a group with no committed offset left is forgotten.
 */
import type { Scheduler } from '../broker-context.js';
import type { TimerHandle } from '../../util/clock.js';
import type { GroupCoordinatorService } from '../group-coordinator-service.js';
import type { Storage } from '../../storage/types.js';
import type { Logger } from '../../util/log.js';
import { committedLags } from '../group-lag.js';

export const LAG_SAMPLE_INTERVAL_MS = 5_000;
export const LAG_HISTORY_SAMPLES = 360;

/** One sample of a group: when, and the lag by partition ("topic/partition"). */
export interface LagSample {
  readonly timeMs: number;
  readonly lag: Readonly<Record<string, number>>;
}

export interface LagHistoryOptions {
  readonly clock: Scheduler;
  readonly groups: GroupCoordinatorService;
  readonly storage: Storage;
  readonly log: Logger;
  readonly intervalMs?: number;
  readonly capacity?: number;
}

export class LagHistory {
  private readonly byGroup = new Map<string, LagSample[]>();
  private timer: TimerHandle | null = null;
  private readonly intervalMs: number;
  private readonly capacity: number;

  constructor(private readonly options: LagHistoryOptions) {
    this.intervalMs = options.intervalMs ?? LAG_SAMPLE_INTERVAL_MS;
    this.capacity = Math.max(1, options.capacity ?? LAG_HISTORY_SAMPLES);
  }

  /** Takes a first sample now, then one every interval until `stop`. */
  start(): void {
    this.sample();
    this.arm();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** The group's samples, oldest first. */
  samples(groupId: string): readonly LagSample[] {
    return this.byGroup.get(groupId) ?? [];
  }

  get sampleIntervalMs(): number {
    return this.intervalMs;
  }

  private arm(): void {
    this.timer = this.options.clock.schedule(this.intervalMs, () => {
      this.timer = null;
      this.sample();
      this.arm();
    });
  }

  /** One sample of every group's committed partitions (a failure is logged; the next sample tries again). */
  sample(): void {
    const timeMs = this.options.clock.nowMs();
    let lags;
    try {
      lags = committedLags(this.options.groups.coordinator, this.options.storage);
    } catch (err) {
      this.options.log.warn('lag sample failed', { err });
      return;
    }
    const now = new Map<string, Record<string, number>>();
    for (const l of lags) {
      let lag = now.get(l.groupId);
      if (lag === undefined) now.set(l.groupId, (lag = {}));
      lag[`${l.topic}/${l.partition}`] = Number(l.lag);
    }
    for (const groupId of this.byGroup.keys()) if (!now.has(groupId)) this.byGroup.delete(groupId);
    for (const [groupId, lag] of now) {
      let ring = this.byGroup.get(groupId);
      if (ring === undefined) this.byGroup.set(groupId, (ring = []));
      ring.push({ timeMs, lag });
      if (ring.length > this.capacity) ring.splice(0, ring.length - this.capacity);
    }
  }
}
