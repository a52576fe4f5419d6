/**
 * KafkaJS's instrumentation events: `client.on(client.events.X, listener)` returns a function
 * that removes the listener; every event is { id, type, timestamp, payload }. REQUEST and
 * REQUEST_TIMEOUT events come from Brook's `brook:client:request` diagnostics channel, for
 * requests of this client id: as KafkaJS, REQUEST for each request answered, REQUEST_TIMEOUT for
 * each that timed out (other failures, such as a lost connection, are neither).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CLIENT_CHANNELS, type RequestMessage } from '../client/diagnostics.js';
import { RequestTimeoutError } from '../client/errors.js';
import { KafkaJSNonRetriableError } from './errors.js';

export interface InstrumentationEvent<T> {
  /** A number at run time, as KafkaJS's (whose declarations say string). */
  id: number;
  type: string;
  timestamp: number;
  payload: T;
}

export type RemoveInstrumentationEventListener = () => void;

let eventId = 0;

export class Instrumentation {
  private readonly listeners = new Map<string, Set<(event: InstrumentationEvent<unknown>) => void>>();
  private requestSubscriber: ((message: unknown) => void) | null = null;

  private readonly requestTimeoutEvent: string | null;

  constructor(private readonly events: Readonly<Record<string, string>>, private readonly requestEvent: string | null, private readonly clientId: () => string) {
    this.requestTimeoutEvent = requestEvent === null ? null : events['REQUEST_TIMEOUT'] ?? null;
  }

  private isRequestEvent(eventName: string): boolean {
    return eventName === this.requestEvent || eventName === this.requestTimeoutEvent;
  }

  on(eventName: string, listener: (event: InstrumentationEvent<any>) => void): RemoveInstrumentationEventListener { // eslint-disable-line @typescript-eslint/no-explicit-any
    if (!Object.values(this.events).includes(eventName)) {
      // KafkaJS names them as the application writes them: producer.events.CONNECT, ...
      const client = Object.values(this.events)[0]?.split('.')[0] ?? '';
      throw new KafkaJSNonRetriableError(`Event name should be one of ${Object.keys(this.events).map((k) => `${client}.events.${k}`).join(', ')}`);
    }
    let set = this.listeners.get(eventName);
    if (!set) this.listeners.set(eventName, set = new Set());
    set.add(listener);
    if (this.isRequestEvent(eventName)) this.watchRequests();
    return () => {
      set.delete(listener);
      const watched = [this.requestEvent, this.requestTimeoutEvent].some((e) => e !== null && (this.listeners.get(e)?.size ?? 0) > 0);
      if (this.isRequestEvent(eventName) && !watched) this.unwatchRequests();
    };
  }

  emit(type: string, payload: unknown = null): void {
    const set = this.listeners.get(type);
    if (!set || set.size === 0) return;
    const event = { id: eventId++, type, timestamp: Date.now(), payload };
    for (const l of [...set]) {
      try {
        l(event);
      } catch {
        // A listener's failure is its own: KafkaJS's emitter does not stop the client for it.
      }
    }
  }

  private watchRequests(): void {
    if (this.requestSubscriber) return;
    this.requestSubscriber = (message) => {
      const m = message as RequestMessage;
      if (m.clientId !== this.clientId() || this.requestEvent === null) return;
      const now = Date.now();
      const broker = `${m.broker.host}:${m.broker.port}`;
      // Brook's connections send at once (no queue of their own), so a request is sent as it is created.
      const sentAt = now - m.durationMs;
      if (m.error === null) {
        // `size` is the response's, as KafkaJS's.
        this.emit(this.requestEvent, {
          broker, clientId: m.clientId, correlationId: m.correlationId, size: m.responseBytes, createdAt: sentAt, sentAt, pendingDuration: 0,
          duration: m.durationMs, apiName: m.api, apiKey: m.apiKey, apiVersion: m.apiVersion,
        });
      } else if (m.error instanceof RequestTimeoutError && this.requestTimeoutEvent !== null) {
        this.emit(this.requestTimeoutEvent, {
          broker, clientId: m.clientId, correlationId: m.correlationId, createdAt: sentAt, sentAt, pendingDuration: 0, apiName: m.api, apiKey: m.apiKey, apiVersion: m.apiVersion,
        });
      }
    };
    subscribe(CLIENT_CHANNELS.request, this.requestSubscriber);
  }

  unwatchRequests(): void {
    if (this.requestSubscriber) unsubscribe(CLIENT_CHANNELS.request, this.requestSubscriber);
    this.requestSubscriber = null;
  }
}
