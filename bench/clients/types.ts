/**
 * What a client under test must do for the benchmark scenarios. One adapter per client
 * (KafkaJS, @platformatic/kafka, Java, franz-go, kcat/librdkafka, and Brook's own client
 * later): adding a client to a scenario is one file implementing one of these interfaces and
 * one line in ./registry.ts.
 *
 * Times are measured by the adapter as close to the client as it can get (the JVM and the Go
 * program time themselves, so process start-up is not counted; kcat cannot, see kcat.ts).
 */

export interface ThroughputRun {
  /** Records the client reports it produced or consumed. */
  records: number;
  /** From the client's start of work (subscribe / first send) to the last record (or ack). */
  ms: number;
  /** Consume: from the start of work to the first record (group join included); null when the client cannot tell (kcat). */
  firstRecordMs?: number | null;
  /** Peak RSS of the client process (tree) while it ran, bytes; null when not measurable. */
  clientRssBytes: number | null;
}

export interface ConsumeSpec {
  bootstrap: string;
  topic: string;
  /** A fresh group: the client subscribes in it and reads from the earliest offsets. */
  group: string;
  /** Stop after this many records. */
  records: number;
  timeoutMs: number;
  /** Called with the client's pid when it runs in its own process (for RSS sampling). */
  onPid?: (pid: number) => void;
}

export interface ProduceSpec {
  bootstrap: string;
  topic: string;
  partitions: number;
  records: number;
  valueBytes: number;
  /** -1 (all) or 1. */
  acks: -1 | 1;
  timeoutMs: number;
  onPid?: (pid: number) => void;
}

/** Scenarios 1 and 2: one consumer in a group, one producer. */
export interface ThroughputClient {
  readonly name: string;
  /** Why it cannot run here (missing tool), or null. */
  unavailable(): string | null;
  /** Whether it runs in the benchmark's own Node process (then its RSS is not separable). */
  readonly inProcess: boolean;
  consume(spec: ConsumeSpec): Promise<ThroughputRun>;
  produce(spec: ProduceSpec): Promise<ThroughputRun>;
}

/**
 * Classic protocol: the client's assignor (range, cooperative-sticky). Consumer protocol
 * (KIP-848): the broker's (group.remote.assignor: uniform, range).
 */
export type AssignorName = 'range' | 'cooperative-sticky' | 'uniform';

/** The group protocol: classic (JoinGroup/SyncGroup) or consumer (KIP-848, ConsumerGroupHeartbeat). */
export type GroupProtocolName = 'classic' | 'consumer';

/**
 * Scenarios 4 and 5: many members of one group in one client process. The adapter starts
 * them and reports every change of each member's owned partitions as an event; the scenario
 * computes stability from the events (./group-events.ts), the same way for every client.
 */
export interface GroupSpec {
  bootstrap: string;
  topic: string;
  group: string;
  members: number;
  assignor: AssignorName;
  timeoutMs: number;
  /**
   * Classic protocol: heartbeat.interval.ms (session.timeout.ms is 45 s for every client).
   * The consumer protocol has no client setting for either: the broker's
   * group.consumer.heartbeat.interval.ms and group.consumer.session.timeout.ms apply.
   */
  heartbeatIntervalMs: number;
  protocol: GroupProtocolName;
}

/** Events in epoch microseconds, as the client process saw them. */
export type GroupEvent =
  | { ev: 'start'; t: number }
  | { ev: 'owned'; t: number; m: number; p: number[] }
  | { ev: 'leave'; t: number; m: number }
  | { ev: 'join'; t: number; m: number }
  | { ev: 'left'; t: number; m: number }
  | { ev: 'error'; t: number; m: number; message: string };

export interface GroupSession {
  /** Every event so far, in arrival order. */
  readonly events: readonly GroupEvent[];
  /** Resolves at the next event (or after `ms`). */
  nextEvent(ms: number): Promise<void>;
  /** Member `m` leaves the group (close()). */
  leave(m: number): void;
  /** One more member joins; its index is returned. */
  join(): number;
  /** Peak RSS of the client process so far. */
  rssBytes(): number | null;
  close(): Promise<void>;
}

export interface GroupClient {
  readonly name: string;
  unavailable(): string | null;
  /** Why it cannot run with this group protocol here, or null. */
  protocolUnavailable(protocol: GroupProtocolName): string | null;
  /** Starts `members` members at once (all constructed first, then subscribed together). */
  start(spec: GroupSpec): Promise<GroupSession>;
}
