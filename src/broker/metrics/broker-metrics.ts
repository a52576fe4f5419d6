/**
 * The broker's metrics: the counters the request path keeps (per API, per topic) and the
 * exposition of everything else, read at scrape time from what the broker already tracks
 * (connection counters, storage counters and partition offsets, the groups).
 *
 * Counting is cheap on purpose: each API's counter and histogram exist from start-up
 * (`request(apiKey)` is an array index), a topic's traffic counters are created at its first
 * produce or fetch; no label string is built while counting.
 */
import type { ApiCodecs } from '../../protocol/messages/index.js';
import { Histogram, REQUEST_SECONDS_BOUNDS } from '../../util/histogram.js';
import type { LogCleanerStats, PartitionLog, Storage } from '../../storage/types.js';
import type { ConnectionStats } from '../connection-stats.js';
import type { GroupCoordinatorService } from '../group-coordinator-service.js';
import { escapeLabelValue, Exposition } from './exposition.js';
import { renderGroupMetrics } from './group-metrics.js';
import { renderShareMetrics } from './share-metrics.js';
import type { SharePartitionManager } from '../share/share-partition-manager.js';

/** One API's requests: how many were handled and how long their responses took. */
export class RequestMetrics {
  /** Requests decoded and handed to the API's handler. */
  count = 0;
  /** From the request's frame being taken up to its response being ready to write. */
  readonly duration = new Histogram(REQUEST_SECONDS_BOUNDS);
  readonly pairs: string;

  constructor(readonly api: string) {
    this.pairs = `api="${escapeLabelValue(api)}"`;
  }
}

/** A topic's traffic through Produce and Fetch. */
export interface TopicTraffic {
  /** Record batch bytes appended by Produce requests (Kafka's BytesInPerSec). */
  bytesIn: number;
  /** Records appended by Produce requests, duplicates of an idempotent producer's retries not counted. */
  recordsIn: number;
  /** Record batch bytes sent in Fetch responses (Kafka's BytesOutPerSec). */
  bytesOut: number;
}

interface CleanerCounters {
  passes: number;
  failures: number;
  partitionsCleaned: number;
  recordsRemoved: number;
  bytesBefore: number;
  bytesAfter: number;
  last: { readonly seconds: number; readonly endedAtMs: number; readonly stats: LogCleanerStats } | null;
}

/** What a scrape reads besides the counters kept here. */
export interface MetricsSource {
  readonly connections: Readonly<ConnectionStats>;
  readonly storage: Storage;
  readonly groups: GroupCoordinatorService;
  readonly shares: SharePartitionManager;
}

export class BrokerMetrics {
  private readonly byApiKey: (RequestMetrics | undefined)[] = [];
  private readonly requests: RequestMetrics[] = [];
  private readonly topics = new Map<string, TopicTraffic>();
  private readonly cleaner: CleanerCounters = {
    passes: 0, failures: 0, partitionsCleaned: 0, recordsRemoved: 0, bytesBefore: 0, bytesAfter: 0, last: null,
  };

  /** `apis`: the APIs the broker serves (their names are Kafka's, from the protocol tables). */
  constructor(apis: readonly ApiCodecs[]) {
    for (const api of [...apis].sort((a, b) => a.apiKey - b.apiKey)) {
      const m = new RequestMetrics(api.name);
      this.byApiKey[api.apiKey] = m;
      this.requests.push(m);
    }
  }

  /** The API's counters; undefined for an API the broker does not serve. */
  request(apiKey: number): RequestMetrics | undefined {
    return this.byApiKey[apiKey];
  }

  topic(name: string): TopicTraffic {
    let t = this.topics.get(name);
    if (t === undefined) this.topics.set(name, (t = { bytesIn: 0, recordsIn: 0, bytesOut: 0 }));
    return t;
  }

  /** One pass of the log cleaner ended (`stats` null: it failed). */
  cleanerPass(stats: LogCleanerStats | null, seconds: number, endedAtMs: number): void {
    const c = this.cleaner;
    if (stats === null) {
      c.failures++;
      return;
    }
    c.passes++;
    c.partitionsCleaned += stats.partitionsCleaned;
    c.recordsRemoved += stats.recordsRemoved;
    c.bytesBefore += stats.bytesBefore;
    c.bytesAfter += stats.bytesAfter;
    c.last = { seconds, endedAtMs, stats };
  }

  /** Everything, in the exposition format. */
  render(source: MetricsSource, into: Exposition = new Exposition()): Exposition {
    const e = into;
    this.renderRequests(e);
    renderConnections(e, source.connections);
    this.renderTopics(e, source.storage);
    renderStorage(e, source.storage);
    this.renderCleaner(e);
    renderGroupMetrics(e, source.groups.coordinator, source.groups.lifecycle.rebalances, source.storage, source.groups.recorder);
    renderShareMetrics(e, source.shares, source.storage);
    return e;
  }

  private renderRequests(e: Exposition): void {
    e.family('brook_requests_total', 'counter', 'Requests handled, by API (Kafka\'s API names).');
    for (const m of this.requests) e.sample('brook_requests_total', m.pairs, m.count);
    e.family('brook_request_duration_seconds', 'histogram', 'Time from a request being read to its response being ready, by API (a long-poll Fetch and a parked JoinGroup include their wait).');
    for (const m of this.requests) e.histogram('brook_request_duration_seconds', m.pairs, m.duration.snapshot());
  }

  private renderTopics(e: Exposition, storage: Storage): void {
    const topics = storage.topics();
    const live = new Set(topics.map((t) => t.name));
    // A deleted topic's counters go with it (a topic created again under its name starts at 0).
    for (const name of this.topics.keys()) if (!live.has(name)) this.topics.delete(name);
    const pairs = topics.map((t) => `topic="${escapeLabelValue(t.name)}"`);
    const traffic = topics.map((t) => this.topics.get(t.name));
    const perTopic = (name: string, help: string, value: (t: TopicTraffic) => number): void => {
      e.family(name, 'counter', help);
      topics.forEach((_, i) => e.sample(name, pairs[i]!, traffic[i] === undefined ? 0 : value(traffic[i])));
    };
    perTopic('brook_topic_bytes_in_total', 'Record batch bytes appended to the topic by Produce requests.', (t) => t.bytesIn);
    perTopic('brook_topic_records_in_total', 'Records appended to the topic by Produce requests.', (t) => t.recordsIn);
    perTopic('brook_topic_bytes_out_total', 'Record batch bytes of the topic sent in Fetch responses.', (t) => t.bytesOut);

    const partitions: { pairs: string; log: PartitionLog }[] = [];
    topics.forEach((t, i) => {
      for (let p = 0; p < t.partitions; p++) {
        const log = storage.partition(t.name, p);
        if (log !== undefined) partitions.push({ pairs: `${pairs[i]!},partition="${p}"`, log });
      }
    });
    const perPartition = (name: string, help: string, value: (log: PartitionLog) => number | bigint): void => {
      e.family(name, 'gauge', help);
      for (const p of partitions) e.sample(name, p.pairs, value(p.log));
    };
    perPartition('brook_partition_log_end_offset', 'The offset the next record appended to the partition gets.', (log) => log.logEndOffset);
    perPartition('brook_partition_log_start_offset', 'The partition\'s first offset (retention moves it).', (log) => log.logStartOffset);
    perPartition('brook_partition_size_bytes', 'Bytes in the partition\'s segments.', (log) => log.sizeInBytes);
  }

  private renderCleaner(e: Exposition): void {
    const c = this.cleaner;
    e.single('brook_log_cleaner_passes_total', 'counter', 'Passes of the log cleaner over the compacted partitions.', c.passes);
    e.single('brook_log_cleaner_failures_total', 'counter', 'Passes of the log cleaner that failed.', c.failures);
    e.single('brook_log_cleaner_partitions_cleaned_total', 'counter', 'Partitions compacted, over all passes.', c.partitionsCleaned);
    e.single('brook_log_cleaner_records_removed_total', 'counter', 'Records the log cleaner removed (superseded by a newer record of their key, expired tombstones).', c.recordsRemoved);
    e.single('brook_log_cleaner_bytes_before_total', 'counter', 'Size of the partitions the log cleaner compacted, before, over all passes.', c.bytesBefore);
    e.single('brook_log_cleaner_bytes_after_total', 'counter', 'Size of the partitions the log cleaner compacted, after, over all passes.', c.bytesAfter);
    if (c.last === null) return;
    e.single('brook_log_cleaner_last_pass_duration_seconds', 'gauge', 'How long the last completed pass of the log cleaner took.', c.last.seconds);
    e.single('brook_log_cleaner_last_pass_bytes_before', 'gauge', 'Size of the partitions the last pass compacted, before.', c.last.stats.bytesBefore);
    e.single('brook_log_cleaner_last_pass_bytes_after', 'gauge', 'Size of the partitions the last pass compacted, after.', c.last.stats.bytesAfter);
    e.single('brook_log_cleaner_last_pass_timestamp_seconds', 'gauge', 'When the last completed pass of the log cleaner ended (Unix time).', c.last.endedAtMs / 1000);
  }
}

function renderConnections(e: Exposition, c: Readonly<ConnectionStats>): void {
  e.single('brook_connections_open', 'gauge', 'Client connections open now.', c.open);
  e.single('brook_connections_accepted_total', 'counter', 'Client connections accepted.', c.accepted);
  e.single('brook_connections_rejected_total', 'counter', 'Client connections closed at once because max.connections were open.', c.rejected);
  e.single('brook_connections_closed_total', 'counter', 'Client connections closed, by either side, for any reason.', c.closed);
  e.family('brook_connections_closed_by_broker_total', 'counter', 'Client connections the broker closed: idle (connections.max.idle.ms), incomplete_request (a request that never completed), bad_input (an undecodable or oversized frame, an unknown API or version), authentication_busy (too many SASL password checks waiting).');
  e.sample('brook_connections_closed_by_broker_total', 'reason="idle"', c.closedIdle);
  e.sample('brook_connections_closed_by_broker_total', 'reason="incomplete_request"', c.closedIncompleteRequest);
  e.sample('brook_connections_closed_by_broker_total', 'reason="bad_input"', c.closedBadInput);
  e.sample('brook_connections_closed_by_broker_total', 'reason="authentication_busy"', c.closedAuthenticationBusy);
  e.single('brook_connections_failed_authentication_total', 'counter', 'Connections refused while authenticating (Kafka\'s failed-authentication-total): TLS handshakes that failed or timed out, SASL authentications that failed.', c.failedAuthentication);
  e.single('brook_connections_throttled_total', 'counter', 'Times a connection stopped reading requests until the client read its responses.', c.throttled);
}

function renderStorage(e: Exposition, storage: Storage): void {
  const s = storage.stats;
  e.single('brook_storage_fsyncs_total', 'counter', 'fsync calls (files and directories).', s.fsyncs);
  e.single('brook_storage_flush_rounds_total', 'counter', 'Group-commit rounds: each fsyncs every dirty file once, in parallel.', s.flushRounds);
  e.family('brook_storage_flush_duration_seconds', 'histogram', 'How long each group-commit round\'s fsyncs took: what an acks=all append waits for the disk.');
  e.histogram('brook_storage_flush_duration_seconds', '', s.flushRoundSeconds);
  e.single('brook_storage_fsync_errors_total', 'counter', 'fsyncs that failed: of appended data (the partition goes offline until recovered) or of a cleaned segment (the log clean is abandoned).', s.fsyncErrors);
  e.single('brook_storage_write_errors_total', 'counter', 'Writes that failed (disk full, I/O error, read-only): each refused its append, or abandoned a log clean (a write, create or rename of the log cleaner).', s.writeErrors);
  e.single('brook_storage_partitions_taken_offline_total', 'counter', 'Partitions taken offline after a failed fsync (or a log cleaner swap that failed half way and could not be undone).', s.partitionsTakenOffline);
  e.single('brook_storage_partition_recoveries_total', 'counter', 'Offline partitions recovered and serving again.', s.partitionRecoveries);
}
