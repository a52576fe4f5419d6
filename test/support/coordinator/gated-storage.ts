/**
 * A memory storage whose `__consumer_offsets` appends can be held as a slow fsync holds
 * them: while `gate.hold` is set, each append's records are in the log at once, but its
 * `durable` promise waits in `gate.pending` until the test resolves it (the fsync done) or
 * rejects it (the fsync failed). For tests of the coordinator runtime's ordering of replies
 * and durability.
 */
import type { RequestContext } from '../../../src/broker/handler.js';
import { openMemoryStorage, type PartitionLog, type Storage } from '../../../src/storage/index.js';

export interface Deferred {
  resolve(): void;
  reject(err: unknown): void;
}

export interface Gate {
  hold: boolean;
  readonly pending: Deferred[];
}

/** Memory storage; while `hold` is set, `__consumer_offsets` appends wait in `pending` for the test. */
export function gatedStorage(): { storage: Storage; gate: Gate } {
  const inner = openMemoryStorage({ clock: () => 0 });
  const gate: Gate = { hold: false, pending: [] };
  const gated = (log: PartitionLog): PartitionLog => new Proxy(log, {
    get(target, prop) {
      if (prop === 'append') {
        return (records: Buffer, options: Parameters<PartitionLog['append']>[1]) => {
          const result = target.append(records, options);
          if (!gate.hold) return result;
          const durable = new Promise<void>((resolve, reject) => gate.pending.push({ resolve, reject }));
          return { ...result, durable };
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const storage = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'partition') {
        return (topic: string, partition: number) => {
          const log = target.partition(topic, partition);
          return log && topic === '__consumer_offsets' ? gated(log) : log;
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { storage, gate };
}

/** A handler's request context as the group coordinator service reads it (no authorizer). */
export function requestContext(signal: AbortSignal, apiKey = 8, apiVersion = 8): RequestContext {
  return {
    header: { requestApiKey: apiKey, requestApiVersion: apiVersion, correlationId: 1, clientId: 'test' },
    apiVersion,
    clientHost: '/127.0.0.1',
    signal,
    // No authorizer: the runtime gives the coordinator no topic filter.
    broker: { acls: null },
  } as unknown as RequestContext;
}

/** Lets promise chains and immediates run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}
