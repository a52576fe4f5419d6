/**
 * An in-process broker with a SASL_PLAINTEXT listener (PLAIN and SCRAM-SHA-256) beside a
 * PLAINTEXT one, and PLAIN user bob (password bob-secret) in its credential store; and a
 * check that it still serves (a login and a Metadata request on a fresh connection).
 */
import assert from 'node:assert/strict';
import type { Broker } from '../../src/broker/broker.js';
import { plainCredential } from '../../src/broker/sasl/plain-password.js';
import { Api } from '../../src/protocol/messages/index.js';
import { encodePlain } from '../../src/protocol/sasl/plain.js';
import { startBrook } from './brook.js';
import { RawClient } from './clients/raw-client.js';

export function saslPort(broker: Broker): number {
  return broker.listeners.find((l) => l.securityProtocol === 'SASL_PLAINTEXT')!.port;
}

export async function saslBroker(extra: Parameters<typeof startBrook>[0] = {}): Promise<Awaited<ReturnType<typeof startBrook>>> {
  const broker = await startBrook({
    listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-256', ...extra,
  });
  broker.context.credentials.apply([{ op: 'setPlain', user: 'bob', credential: await plainCredential('bob-secret') }]);
  return broker;
}

/** A client logged in as bob on the SASL listener (SaslHandshake v1, SaslAuthenticate v2). */
export async function loggedIn(broker: Broker): Promise<RawClient> {
  const c = new RawClient(saslPort(broker));
  c.send(Api.SaslHandshake, 1, { mechanism: 'PLAIN' });
  assert.equal((await c.response<{ errorCode: number }>(Api.SaslHandshake, 1)).errorCode, 0);
  c.send(Api.SaslAuthenticate, 2, { authBytes: encodePlain('bob', 'bob-secret') });
  assert.equal((await c.response<{ errorCode: number }>(Api.SaslAuthenticate, 2)).errorCode, 0);
  return c;
}

/** A Metadata request answered on a fresh authenticated connection: the broker still serves. */
export async function stillServes(broker: Broker): Promise<void> {
  const c = await loggedIn(broker);
  c.send(Api.Metadata, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  const metadata = await c.response<{ brokers: unknown[] }>(Api.Metadata, 12);
  assert.equal(metadata.brokers.length, 1);
  c.socket.destroy();
}
