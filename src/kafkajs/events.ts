/**
 * KafkaJS's instrumentation events: `client.on(client.events.X, listener)` returns a function
 * that removes the listener; every event is { id, type, timestamp, payload }. REQUEST events
 * come from Brook's `brook:client:request` diagnostics channel, for requests of this client id.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CLIENT_CHANNELS, type RequestMessage } from '../client/diagnostics.js';
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

  constructor(private readonly events: Readonly<Record<string, string>>, private readonly requestEvent: string | null, private readonly clientId: () => string) {}

  on(eventName: string, listener: (event: InstrumentationEvent<any>) => void): RemoveInstrumentationEventListener { // eslint-disable-line @typescript-eslint/no-explicit-any
    if (!Object.values(this.events).includes(eventName)) {
      // KafkaJS names them as the application writes them: producer.events.CONNECT, ...
      const client = Object.values(this.events)[0]?.split('.')[0] ?? '';
      throw new KafkaJSNonRetriableError(`Event name should be one of ${Object.keys(this.events).map((k) => `${client}.events.${k}`).join(', ')}`);
    }
    let set = this.listeners.get(eventName);
    if (!set) this.listeners.set(eventName, set = new Set());
    set.add(listener);
    if (eventName === this.requestEvent) this.watchRequests();
    return () => {
      set.delete(listener);
      if (eventName === this.requestEvent && set.size === 0) this.unwatchRequests();
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
      this.emit(this.requestEvent, {
        broker: `${m.broker.host}:${m.broker.port}`, clientId: m.clientId, apiName: m.api, apiKey: m.apiKey, apiVersion: m.apiVersion,
        duration: m.durationMs, createdAt: now - m.durationMs, sentAt: now - m.durationMs, pendingDuration: 0,
      });
    };
    subscribe(CLIENT_CHANNELS.request, this.requestSubscriber);
  }

  unwatchRequests(): void {
    if (this.requestSubscriber) unsubscribe(CLIENT_CHANNELS.request, this.requestSubscriber);
    this.requestSubscriber = null;
  }
}
