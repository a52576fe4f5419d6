/**
 * Password checks are bounded: checks beyond the queue fail at once with the connection
 * closed unanswered (Kafka's answer when it cannot authenticate now, which clients retry);
 * unknown users wait and are answered like known ones.
 *
 * The password checks are held by the test itself, occupying the running slots through the
 * broker's own queue, as a flood of other checks would. Nothing here asserts a duration.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Broker } from '../../src/broker/broker.js';
import { MAX_RUNNING_PASSWORD_CHECKS, MAX_WAITING_PASSWORD_CHECKS } from '../../src/broker/sasl/password-checks.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Api } from '../../src/protocol/messages/index.js';
import { encodePlain } from '../../src/protocol/sasl/plain.js';
import { createLogger } from '../../src/util/log.js';
import { RawClient } from '../support/clients/raw-client.js';
import { saslBroker, saslPort, stillServes } from '../support/sasl-broker.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds; fails with `what` after `ms` (a bound for a hang, not a timing assertion). */
async function until(what: string, condition: () => boolean, state: () => unknown = () => '', ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting for: ${what} ${JSON.stringify(state())}`);
    await sleep(5);
  }
}

/** Occupies every running slot of the broker's password-check queue until `release`. */
function holdPasswordChecks(broker: Broker): { release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  for (let i = 0; i < MAX_RUNNING_PASSWORD_CHECKS; i++) broker.context.passwordChecks.run(() => gate).catch(() => undefined);
  assert.equal(broker.context.passwordChecks.running, MAX_RUNNING_PASSWORD_CHECKS);
  return { release };
}

/** SaslHandshake v1 (PLAIN) and SaslAuthenticate v2, written together without waiting. */
function login(c: RawClient, user: string, password: string): void {
  c.send(Api.SaslHandshake, 1, { mechanism: 'PLAIN' });
  c.send(Api.SaslAuthenticate, 2, { authBytes: encodePlain(user, password) });
}

test('password checks beyond the queue fail at once, closing the connection unanswered (counted, logged); the waiting ones, unknown users included, are answered in turn; a correct login works after', { timeout: 120_000 }, async (t) => {
  const lines: string[] = [];
  const broker = await saslBroker({ log: createLogger('broker', 'info', (line) => lines.push(line)) });
  const gate = holdPasswordChecks(broker);
  const waiting: { client: RawClient; user: string; password: string }[] = [];
  t.after(async () => {
    gate.release();
    for (const w of waiting) w.client.socket.destroy();
    await broker.stop();
  });
  for (let i = 0; i < MAX_WAITING_PASSWORD_CHECKS; i++) {
    // A third each: bob's password, a wrong one, an unknown user.
    const [user, password] = i % 3 === 0 ? ['bob', 'bob-secret'] : i % 3 === 1 ? ['bob', `wrong-${i}`] : [`nobody-${i}`, 'bob-secret'];
    const client = new RawClient(saslPort(broker));
    login(client, user, password);
    waiting.push({ client, user, password });
  }
  const checks = broker.context.passwordChecks;
  // Unknown users are queued like known ones: no early answer tells them apart.
  await until('the queue is full', () => checks.waiting === MAX_WAITING_PASSWORD_CHECKS, () => checks.waiting);

  // One more (SaslHandshake v1, then SaslHandshake v0 with a raw token): handshake answered, the token not, the connection closed.
  const extra = new RawClient(saslPort(broker));
  login(extra, 'bob', 'bob-secret');
  assert.equal((await extra.response<{ errorCode: number }>(Api.SaslHandshake, 1)).errorCode, ErrorCode.NONE);
  assert.equal(await extra.frame(), null, 'closed without a SaslAuthenticate response');
  const raw = new RawClient(saslPort(broker));
  raw.send(Api.SaslHandshake, 0, { mechanism: 'PLAIN' });
  assert.equal((await raw.response<{ errorCode: number }>(Api.SaslHandshake, 0)).errorCode, ErrorCode.NONE);
  raw.sendRaw(encodePlain('bob', 'bob-secret'));
  assert.equal(await raw.frame(), null, 'closed without a raw token');
  assert.equal(checks.waiting, MAX_WAITING_PASSWORD_CHECKS);
  assert.equal(broker.stats.connections.closedAuthenticationBusy, 2);
  assert.equal(broker.stats.connections.failedAuthentication, 0, 'not an authentication failure: the client may retry');
  assert.ok(lines.some((l) => l.includes('too many password checks waiting') && l.includes('listener=SASL_PLAINTEXT')), lines.join('\n'));

  gate.release();
  for (const { client, user, password } of waiting) {
    assert.equal((await client.response<{ errorCode: number }>(Api.SaslHandshake, 1)).errorCode, ErrorCode.NONE);
    const answer = await client.response<{ errorCode: number; errorMessage: string | null }>(Api.SaslAuthenticate, 2);
    if (user === 'bob' && password === 'bob-secret') {
      assert.equal(answer.errorCode, ErrorCode.NONE);
      client.socket.destroy();
    } else {
      // The same answer for an unknown user as for a wrong password.
      assert.deepEqual([answer.errorCode, answer.errorMessage], [ErrorCode.SASL_AUTHENTICATION_FAILED, 'Authentication failed: Invalid username or password'], user);
      await client.closed;
    }
  }
  assert.equal(checks.waiting, 0);
  await stillServes(broker);
});
