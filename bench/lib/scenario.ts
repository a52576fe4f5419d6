/**
 * What a scenario is and what it reports. A scenario measures metrics for (case, client,
 * broker) triples over several runs; the report shows medians and the two ratios the
 * performance targets are stated in, computed the same way everywhere:
 *   - broker ratio: on Brook's broker vs on Kafka's, same case/client/metric;
 *   - client ratio: Brook's client vs each peer client, same case/broker/metric (appears
 *     once Brook's adapters are registered).
 * Ratios are oriented so that above 1x means Brook is better.
 */
import type { GroupProtocolName } from '../clients/types.js';
import type { BrokerKind, BrokerStartOptions, BrokerUnderTest } from './brokers.js';
import { brokerUnavailable, startBroker } from './brokers.js';
import { connect, ensureCoordinator } from './commits.js';
import { progress } from './progress.js';
import { spread } from './stats.js';

export interface Metric {
  name: string;
  unit: string;
  lowerIsBetter: boolean;
}

export interface Measurement {
  case: string;
  client: string;
  broker: BrokerKind | 'none';
  metric: string;
  unit: string;
  lowerIsBetter: boolean;
  /** One value per run. */
  values: number[];
  median: number;
  min: number;
  max: number;
  /**
   * The case this one is compared with in the same run (same client, broker and metric), in
   * the report's `caseRatio` column: e.g. a consumer-protocol case against its classic one.
   */
  vsCase?: string;
  /**
   * The client this one is compared with in the same case (same broker and metric), in the
   * same `caseRatio` column: e.g. one application run over two client libraries.
   */
  vsClient?: string;
}

export interface TargetCheck {
  /** The scenario's target, in words. */
  text: string;
  /** true met, false missed, null not measurable in this run. */
  met: boolean | null;
  detail: string;
}

export interface ScenarioReport {
  name: string;
  title: string;
  measurements: Measurement[];
  targets: TargetCheck[];
  /** Lines printed under the table (settings, caveats). */
  notes: string[];
  /** Parts that could not run, with why. */
  skipped: string[];
  /** Parts that failed, with the error. */
  errors: string[];
  /** Header of the column comparing each measurement with its `vsCase` / `vsClient` (none when absent). */
  caseRatio?: string;
}

export interface RunOptions {
  quick: boolean;
  runs: number;
  /** Brokers to run against (default both). */
  brokers: BrokerKind[];
  /** Restrict client adapters by name (default all). */
  clients: string[] | null;
  /**
   * The heartbeat interval of the group and rebalance scenarios: heartbeat.interval.ms of
   * every classic member, and both brokers' group.consumer.heartbeat.interval.ms (the
   * consumer protocol's, which the broker decides).
   */
  heartbeatIntervalMs: number;
  /** Group protocols of the group and rebalance scenarios (`--group-protocol`, default both). */
  groupProtocols: GroupProtocolName[];
  /** Member counts of the group scenario (`--group-sizes`); null: its defaults. */
  groupSizes: number[] | null;
  /** Members x partitions of the server-assignors scenario (`--assignor-sizes`); null: its defaults. */
  assignorSizes: [number, number][] | null;
  /**
   * Groups of the groups-many scenario (`--many-groups H,C`): H groups heartbeating, C groups
   * committing every second; null: its defaults.
   */
  manyGroups: { heartbeating: number; committing: number } | null;
  /** Both brokers' group.consumer.assignment.interval.ms (KIP-1263; `--assignment-interval-ms`). */
  assignmentIntervalMs: number;
  /** Extra server.properties for Kafka's broker (`--kafka-config`), e.g. to make it fsync as Brook does. */
  kafkaConfig: Record<string, string>;
  /** CPUs the brokers are pinned to (`--broker-cpus`), null for no pinning. */
  brokerCpus: string | null;
  /** CPUs the harness and every client are pinned to (`--client-cpus`), null for no pinning. */
  clientCpus: string | null;
  /**
   * Another built checkout of Brook (`--baseline DIR`): scenarios that support it run its
   * broker too, interleaved with this build's, for before/after ratios from the same run.
   */
  baseline: string | null;
}

/**
 * With the classic protocol a member learns of a rebalance from its next heartbeat's
 * answer, so a rebalance cannot take less than about one interval: Kafka's default (3 s)
 * would measure the client's timer, not the broker or the protocol. 100 ms for every client.
 */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 100;

/**
 * group.consumer.assignment.interval.ms of both brokers (Kafka 4.4's default: 1000). A
 * consumer group computes a new target assignment at most this often, so a formation or a
 * rebalance of the consumer protocol takes at least about this long after the first change
 * (see BENCHMARKS.md, Method).
 */
export const DEFAULT_ASSIGNMENT_INTERVAL_MS = 0;

/**
 * The group settings both brokers get, so that the consumer protocol runs with the same
 * heartbeat interval as the classic members' heartbeat.interval.ms (the broker decides it
 * for the consumer protocol; its min/max bounds are widened only as far as needed).
 */
export function groupBrokerConfig(o: Pick<RunOptions, 'heartbeatIntervalMs' | 'assignmentIntervalMs'>): Record<string, string> {
  return {
    'group.consumer.heartbeat.interval.ms': String(o.heartbeatIntervalMs),
    'group.consumer.min.heartbeat.interval.ms': String(Math.min(o.heartbeatIntervalMs, 5000)),
    'group.consumer.max.heartbeat.interval.ms': String(Math.max(o.heartbeatIntervalMs, 15_000)),
    'group.consumer.assignment.interval.ms': String(o.assignmentIntervalMs),
    'group.consumer.max.assignment.interval.ms': String(Math.max(o.assignmentIntervalMs, 15_000)),
  };
}

/** Brokers shared by the scenarios of one run, started on first use. */
export class BrokerPool {
  private readonly live = new Map<BrokerKind, Promise<BrokerUnderTest>>();

  /**
   * `groupConfig` goes to both brokers (groupBrokerConfig), `kafkaConfig` (`--kafka-config`)
   * to Kafka's only, after it, and `brookConfig` (`--brook-config`) to Brook's only.
   */
  constructor(
    private readonly kafkaConfig: Record<string, string> = {},
    private readonly cpus: string | null = null,
    private readonly groupConfig: Record<string, string> = {},
    /** Another built checkout whose broker runs as 'brook' (`--brook-root`), null for this one. */
    private readonly brookRoot: string | null = null,
    private readonly brookConfig: Record<string, string> = {},
  ) {}

  /** How `kind` is started by this run (fresh brokers of a scenario too). */
  options(kind: BrokerKind): BrokerStartOptions {
    if (kind === 'kafka') return { config: { ...this.groupConfig, ...this.kafkaConfig }, cpus: this.cpus };
    return { config: { ...this.groupConfig, ...this.brookConfig }, cpus: this.cpus, ...(this.brookRoot !== null ? { root: this.brookRoot } : {}) };
  }

  get(kind: BrokerKind): Promise<BrokerUnderTest> {
    let b = this.live.get(kind);
    if (b === undefined) {
      progress(`starting ${kind} broker`);
      b = startBroker(kind, this.options(kind)).then(async (broker) => {
        progress(`${kind} broker up at ${broker.bootstrap} in ${broker.startupMs.toFixed(0)} ms`);
        // Both brokers create __consumer_offsets on the first FindCoordinator (Kafka: 50
        // partitions, hundreds of ms on a fresh broker); done here, so that whichever client
        // forms the first group of a run does not pay for it in its time to first record.
        try {
          const conn = await connect(broker.bootstrap, 'brook-bench-warmup');
          try {
            await ensureCoordinator(conn, 'brook-bench-warmup');
          } finally {
            conn.close();
          }
        } catch (err) {
          await broker.stop();
          throw err;
        }
        return broker;
      });
      this.live.set(kind, b);
    }
    return b;
  }

  async stopAll(): Promise<void> {
    for (const [kind, b] of this.live) {
      progress(`stopping ${kind} broker`);
      await (await b).stop().catch(() => undefined);
    }
    this.live.clear();
  }
}

export interface ScenarioContext extends RunOptions {
  pool: BrokerPool;
}

export interface Scenario {
  name: string;
  title: string;
  run(ctx: ScenarioContext): Promise<ScenarioReport>;
}

/** Collects measurements, skips and errors while a scenario runs. */
export class Recorder {
  readonly measurements: Measurement[] = [];
  readonly skipped: string[] = [];
  readonly errors: string[] = [];
  readonly notes: string[] = [];
  /** Header of the column comparing measurements with their `vsCase`; set by scenarios that use it. */
  caseRatio: string | undefined;

  constructor(readonly name: string, readonly title: string) {}

  add(where: { case: string; client: string; broker: BrokerKind | 'none'; vsCase?: string; vsClient?: string }, metric: Metric, values: number[]): void {
    const clean = values.filter((v) => Number.isFinite(v));
    if (clean.length === 0) return;
    const s = spread(clean);
    const { vsCase, vsClient, ...at } = where;
    this.measurements.push({
      ...at, metric: metric.name, unit: metric.unit, lowerIsBetter: metric.lowerIsBetter, values: clean, median: s.median, min: s.min, max: s.max,
      ...(vsCase !== undefined ? { vsCase } : {}), ...(vsClient !== undefined ? { vsClient } : {}),
    });
  }

  find(where: Partial<Pick<Measurement, 'case' | 'client' | 'broker' | 'metric'>>): Measurement | undefined {
    return this.measurements.find((m) => (Object.keys(where) as (keyof typeof where)[]).every((k) => m[k] === where[k]));
  }

  /** Runs `body`; a failure is recorded (and shown) instead of ending the scenario. */
  async attempt(what: string, body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (err) {
      const message = `${what}: ${(err as Error).message}`.slice(0, 1500);
      progress(`FAILED ${message}`);
      this.errors.push(message);
    }
  }

  report(targets: TargetCheck[] = []): ScenarioReport {
    return { name: this.name, title: this.title, measurements: this.measurements, targets, notes: this.notes, skipped: this.skipped, errors: this.errors, ...(this.caseRatio !== undefined ? { caseRatio: this.caseRatio } : {}) };
  }
}

/** The brokers of this run that can start here; the others are recorded as skipped. */
export function usableBrokers(ctx: ScenarioContext, rec: Recorder): BrokerKind[] {
  return ctx.brokers.filter((kind) => {
    const why = brokerUnavailable(kind);
    if (why !== null) rec.skipped.push(`${kind} broker: ${why}`);
    return why === null;
  });
}

/**
 * Whether client `clientIndex` runs on broker `brokerIndex` (of this run's brokers). Full runs
 * take every pair; quick runs (CI: does the harness still work?) take client i on broker
 * i mod brokers only, so every adapter and every broker is exercised once in little time.
 */
export function pairWanted(ctx: RunOptions, clientIndex: number, brokerIndex: number): boolean {
  return !ctx.quick || clientIndex % ctx.brokers.length === brokerIndex;
}

/** A target check from a measurement (null when it was not measured). */
export function checkTarget(text: string, m: Measurement | undefined, ok: (median: number) => boolean, show: (median: number) => string): TargetCheck {
  if (m === undefined) return { text, met: null, detail: 'not measured' };
  return { text, met: ok(m.median), detail: show(m.median) };
}
