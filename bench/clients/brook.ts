/**
 * Brook's own client, in the benchmark's own process (like KafkaJS and @platformatic/kafka).
 * Consume: one Consumer in a fresh group (earliest offsets), a pollViews loop counting
 * records and their value bytes (zero-copy views, as franz-go's records are slices of its
 * fetch), with the defaults (maxPollRecords 500, as Kafka's max.poll.records; the other
 * clients run with theirs too). Produce: sendBatch of 1,000 records, 4 in flight, as the
 * other Node clients are driven (window.ts); the producer batches per partition itself.
 * Groups (scenarios 4, 5): N Consumers in this process, each polled in its own loop; each
 * rebalance callback reports the member's assignment.
 */
import { Consumer } from '../../src/client/consumer/index.js';
import { Producer } from '../../src/client/producer/index.js';
import type { GroupClient, GroupEvent, GroupSession, GroupSpec, ThroughputClient, ThroughputRun } from './types.js';
import { sendWindowed } from './window.js';

const nowUs = (): number => Math.round((performance.timeOrigin + performance.now()) * 1000);

export const brookClient: ThroughputClient = {
  name: 'brook',
  inProcess: true,
  unavailable: () => null,
  async consume(spec): Promise<ThroughputRun> {
    const consumer = new Consumer({
      bootstrapServers: spec.bootstrap, clientId: 'brook-bench-brook', groupId: spec.group,
      autoOffsetReset: 'earliest',
    });
    const start = performance.now();
    let count = 0;
    let bytes = 0;
    let first: number | null = null;
    try {
      consumer.subscribe([spec.topic]);
      const deadline = start + spec.timeoutMs;
      while (count < spec.records) {
        if (performance.now() > deadline) throw new Error(`brook consumed ${count} of ${spec.records} in ${spec.timeoutMs} ms`);
        // Zero-copy views (Consumer.pollViews); the bytes are counted from each view's
        // valueSize, as franz-go's adapter counts len(record.Value).
        const records = await consumer.pollViews({ timeoutMs: 1_000 });
        if (records.length > 0) first ??= performance.now() - start;
        for (const r of records) bytes += Math.max(0, r.valueSize);
        count += records.length;
      }
      if (bytes === 0 && count > 0) throw new Error('brook consumed records without values');
      return { records: count, ms: performance.now() - start, firstRecordMs: first, clientRssBytes: null };
    } finally {
      await consumer.close();
    }
  },
  async produce(spec): Promise<ThroughputRun> {
    const producer = new Producer({ bootstrapServers: spec.bootstrap, clientId: 'brook-bench-brook', acks: spec.acks, idempotent: spec.acks === -1 });
    try {
      const value = Buffer.alloc(spec.valueBytes, 'x');
      const start = performance.now();
      // The same shape as the other Node clients: 1,000-record sends, 4 in flight.
      await sendWindowed(spec.records, async (_from, count) => {
        await producer.sendBatch(Array.from({ length: count }, () => ({ topic: spec.topic, value })));
      });
      return { records: spec.records, ms: performance.now() - start, clientRssBytes: null };
    } finally {
      await producer.close();
    }
  },
};

export const brookGroupClient: GroupClient = {
  name: 'brook',
  unavailable: () => null,
  protocolUnavailable: () => null,
  async start(spec: GroupSpec): Promise<GroupSession> {
    const events: GroupEvent[] = [];
    let waiters: (() => void)[] = [];
    const emit = (e: GroupEvent): void => {
      events.push(e);
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    };
    const members: (Consumer | null)[] = [];
    const loops: Promise<void>[] = [];
    // Consumer protocol: the broker's assignor, heartbeat interval and session timeout.
    const make = (m: number): Consumer => new Consumer({
      bootstrapServers: spec.bootstrap, clientId: `brook-bench-group-${m}`, groupId: spec.group, enableAutoCommit: false,
      ...(spec.protocol === 'consumer'
        ? { groupProtocol: 'consumer' as const, groupRemoteAssignor: spec.assignor }
        : { assignors: [spec.assignor as 'range' | 'cooperative-sticky'], sessionTimeoutMs: 45_000, heartbeatIntervalMs: spec.heartbeatIntervalMs }),
    });
    const run = (m: number, consumer: Consumer): void => {
      // Inside the revoke callbacks the consumer may still hold the partitions it gives up.
      const report = (gone: readonly { partition: number }[] = []): void => {
        const without = new Set(gone.map((tp) => tp.partition));
        emit({ ev: 'owned', t: nowUs(), m, p: consumer.assignment().map((tp) => tp.partition).filter((p) => !without.has(p)).sort((a, b) => a - b) });
      };
      consumer.subscribe([spec.topic], { onPartitionsAssigned: () => report(), onPartitionsRevoked: (p) => { if (p.length > 0) report(p); }, onPartitionsLost: (p) => { if (p.length > 0) report(p); } });
      loops.push((async () => {
        while (members[m] === consumer) {
          try {
            await consumer.poll({ timeoutMs: 100 });
          } catch (err) {
            if (members[m] !== consumer) return;
            emit({ ev: 'error', t: nowUs(), m, message: (err as Error).message });
            return;
          }
        }
      })());
    };
    for (let m = 0; m < spec.members; m++) members.push(make(m));
    emit({ ev: 'start', t: nowUs() });
    for (let m = 0; m < spec.members; m++) run(m, members[m]!);
    return {
      events,
      nextEvent: (ms) => new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        waiters.push(() => { clearTimeout(timer); resolve(); });
      }),
      leave: (m) => {
        const consumer = members[m];
        if (!consumer) return;
        members[m] = null;
        emit({ ev: 'leave', t: nowUs(), m });
        void consumer.close().then(() => emit({ ev: 'left', t: nowUs(), m }), (err: unknown) => emit({ ev: 'error', t: nowUs(), m, message: (err as Error).message }));
      },
      join: () => {
        const m = members.length;
        const consumer = make(m);
        members.push(consumer);
        emit({ ev: 'join', t: nowUs(), m });
        run(m, consumer);
        return m;
      },
      rssBytes: () => null,
      close: async () => {
        const open = members.filter((c): c is Consumer => c !== null);
        members.fill(null);
        await Promise.allSettled(open.map((c) => c.close()));
        await Promise.allSettled(loops);
      },
    };
  },
};
