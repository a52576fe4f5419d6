/**
 * `brook consume TOPIC --share-group G`: what kafka-console-share-consumer.sh does, over
 * Brook's ShareConsumer. The member joins share group G and acknowledges every record once
 * it is printed (ACCEPT; RELEASE with --release, REJECT with --reject), so a record is never
 * acknowledged before it was written out; records a poll gave beyond --max-messages are
 * released. A share group starts at the log end (share.auto.offset.reset=latest), so only
 * records produced after the group first read the topic are printed.
 */
import { ShareConsumer } from '../../client/share/share-consumer.js';
import type { ShareConsumerRecord } from '../../client/share/share-completed-fetch.js';
import type { AcknowledgeType } from '../../client/share/acknowledgements.js';
import type { RawRecord } from '../../client/consumer/record-decoding.js';
import { Writer } from '../../protocol/primitives/writer.js';
import { INTERRUPTED_CLOSE_TIMEOUT_MS } from '../command.js';
import type { ClientConnectionOptions } from '../options.js';
import { BufferedOutput } from '../output.js';
import type { RecordFormatter } from '../record-format.js';

/** With a share group, the longest wait for a first assignment before --timeout-ms starts counting anyway. */
const JOIN_GRACE_MS = 30_000;
/** Records per poll and per ShareFetch (Kafka's console share consumer keeps max.poll.records' 500). */
const CLI_MAX_POLL_RECORDS = 500;

export interface ShareConsumeSettings {
  readonly topic: string;
  readonly group: string;
  readonly connection: ClientConnectionOptions;
  readonly format: RecordFormatter;
  readonly maxMessages: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly acknowledge: Exclude<AcknowledgeType, 'RENEW'>;
}

/** The record as the formatters read it: spans of one buffer holding its key, value and headers (as a record batch encodes them). */
export function rawRecordOf(r: ShareConsumerRecord): RawRecord {
  const w = new Writer();
  for (const h of r.headers) {
    const key = Buffer.from(h.key, 'utf8');
    w.writeVarint(key.length).writeRaw(key);
    if (h.value === null) w.writeVarint(-1);
    else w.writeVarint(h.value.length).writeRaw(h.value);
  }
  const headers = w.toBuffer();
  const key = r.key ?? Buffer.alloc(0);
  const value = r.value ?? Buffer.alloc(0);
  return {
    topic: r.topic, partition: r.partition, offset: Number(r.offset), buffer: Buffer.concat([key, value, headers]),
    keyStart: 0, keyLength: r.key === null ? -1 : key.length, valueStart: key.length, valueLength: r.value === null ? -1 : value.length,
    headersStart: key.length + value.length, headerCount: r.headers.length,
    timestamp: r.timestamp, timestampType: r.timestampType, leaderEpoch: r.leaderEpoch,
  };
}

export async function consumeShare(s: ShareConsumeSettings, stop: AbortSignal): Promise<number> {
  const consumer = await ShareConsumer.connect({
    ...s.connection, groupId: s.group, clientId: 'brook-console-share-consumer', acknowledgementMode: 'explicit',
    maxPollRecords: s.maxMessages === undefined ? CLI_MAX_POLL_RECORDS : Math.max(1, Math.min(CLI_MAX_POLL_RECORDS, s.maxMessages)),
  }, { signal: stop });
  const out = new BufferedOutput();
  let count = 0;
  const startedAt = Date.now();
  let lastRecordAt = startedAt;
  let assigned = false;
  try {
    consumer.subscribe([s.topic]);
    while (!stop.aborted && (s.maxMessages === undefined || count < s.maxMessages) && !out.closed) {
      // --timeout-ms counts from the first assignment, as with --group: joining is not idle time.
      if (!assigned && consumer.assignment().length > 0) {
        assigned = true;
        lastRecordAt = Date.now();
      } else if (!assigned && Date.now() - startedAt >= JOIN_GRACE_MS) {
        assigned = true;
        lastRecordAt = startedAt + JOIN_GRACE_MS;
      }
      const waitMs = s.timeoutMs === undefined || !assigned ? 1_000 : Math.max(0, Math.min(1_000, lastRecordAt + s.timeoutMs - Date.now()));
      let records: ShareConsumerRecord[];
      try {
        records = await consumer.poll({ timeoutMs: waitMs, signal: stop });
      } catch (err) {
        if (stop.aborted) break;
        throw err;
      }
      const printed: ShareConsumerRecord[] = [];
      for (const r of records) {
        if ((s.maxMessages !== undefined && count >= s.maxMessages) || out.closed) {
          consumer.acknowledge(r, 'RELEASE');
          continue;
        }
        s.format(rawRecordOf(r), out);
        printed.push(r);
        count++;
      }
      if (records.length > 0) {
        lastRecordAt = Date.now();
        await out.flush();
        // Written out (or the reader went away, and then they go back to the group).
        for (const r of printed) consumer.acknowledge(r, out.closed ? 'RELEASE' : s.acknowledge);
      } else if (assigned && s.timeoutMs !== undefined && Date.now() - lastRecordAt >= s.timeoutMs) {
        break;
      }
    }
    await out.flush();
    return 0;
  } finally {
    out.close();
    // close() sends the last acknowledgements with the final session epoch and leaves the group.
    await consumer.close({ timeoutMs: stop.aborted ? INTERRUPTED_CLOSE_TIMEOUT_MS : undefined });
  }
}
