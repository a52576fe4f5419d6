/**
 * `__brook_group_timeline`: where the flight recorder keeps its entries. One partition (the
 * entries of all groups in the order they happened), keyed by group id, deleted by time and
 * size rather than compacted: a group's history is every entry, not the last one. The broker
 * creates it, as an internal topic, with the first entry it writes; any Kafka client can
 * read it.
 */
import { decodeRecords, encodeRecordBatch } from '../../protocol/records/index.js';
import type { PartitionLog, Storage } from '../../storage/types.js';
import type { Logger } from '../../util/log.js';
import type { AppendNotifier } from '../broker-context.js';
import { parseTimelineEntry, TIMELINE_TOPIC, type TimelineEntry } from './timeline-entry.js';

const SEGMENT_BYTES = 16 * 1024 * 1024;
/** Below the topic's default max.message.bytes (1 MiB and a batch header), with room for the key and record framing. */
const MAX_ENTRY_BYTES = 1_000_000;
const READ_BYTES = 1024 * 1024;

export interface TimelineLogOptions {
  readonly storage: Storage;
  readonly log: Logger;
  readonly retentionMs: number;
  readonly retentionBytes: number;
  /** Called once the topic was created. */
  readonly topicCreated: () => void;
}

export class TimelineLog {
  private appends: AppendNotifier | null = null;

  constructor(private readonly options: TimelineLogOptions) {}

  /** Long-poll fetches of the topic (`brook groups timeline --follow`) wake at each append. */
  connect(appends: AppendNotifier): void {
    this.appends = appends;
  }

  /** Appends the entries as one batch; a failure is logged (the groups carry on without their history). */
  append(entries: readonly TimelineEntry[], nowMs: number): void {
    if (entries.length === 0) return;
    try {
      const log = this.partition();
      const records = entries.map((e) => ({ key: Buffer.from(e.group, 'utf8'), value: Buffer.from(fit(e), 'utf8'), timestamp: nowMs }));
      const result = log.append(encodeRecordBatch({ records, baseTimestamp: nowMs }), { nowMs });
      this.appends?.notifyAppend(TIMELINE_TOPIC, 0);
      result.durable.catch((err: unknown) => this.options.log.error('group timeline write failed', { err }));
    } catch (err) {
      this.options.log.error('group timeline write failed', { err });
    }
  }

  /** Every entry still in the topic, oldest first (start-up). */
  readAll(): TimelineEntry[] {
    const log = this.options.storage.partition(TIMELINE_TOPIC, 0);
    const out: TimelineEntry[] = [];
    if (log === undefined) return out;
    let next = log.logStartOffset;
    while (next < log.highWatermark) {
      const read = log.read(next, READ_BYTES, { minOneBatch: true });
      if (read.records.length === 0) break;
      const before = next;
      for (const buf of read.records) {
        for (const r of decodeRecords(buf)) {
          if (r.offset < next) continue;
          next = r.offset + 1n;
          const entry = parseTimelineEntry(r.value);
          if (entry !== null) out.push(entry);
        }
      }
      if (next === before) break;
    }
    return out;
  }

  private partition(): PartitionLog {
    const { storage } = this.options;
    if (storage.topic(TIMELINE_TOPIC) === undefined) {
      storage.createTopic(TIMELINE_TOPIC, 1, {
        'cleanup.policy': 'delete',
        'retention.ms': String(this.options.retentionMs),
        'retention.bytes': String(this.options.retentionBytes),
        'segment.bytes': String(SEGMENT_BYTES),
      }, { isInternal: true });
      this.options.topicCreated();
    }
    const log = storage.partition(TIMELINE_TOPIC, 0);
    if (log === undefined) throw new Error(`${TIMELINE_TOPIC} has no partition 0`);
    return log;
  }
}

/** The entry as JSON; a huge group's entry leaves out the per-member assignments and moves to stay under the size limit. */
function fit(entry: TimelineEntry): string {
  const json = JSON.stringify(entry);
  if (Buffer.byteLength(json) <= MAX_ENTRY_BYTES) return json;
  const members = entry.members.map(({ assignment: _a, ...m }) => m);
  return JSON.stringify({ ...entry, members, moved: entry.moved.slice(0, 1000), reconciliation: [], truncated: true });
}
