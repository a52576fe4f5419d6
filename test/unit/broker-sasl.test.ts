/**
 * SASL on Brook's broker with raw sockets: the SCRAM server against RFC 7677's example
 * exchange, Kafka's error codes for the wrong mechanism, the wrong state and requests before
 * authentication, SaslHandshake v0's raw tokens, hostile pre-authentication input (huge size
 * prefixes, garbage, endless exchanges, silence) closing only the offending connection,
 * start-up refusals, AlterUserScramCredentials' validation, and the credential store's
 * all-or-nothing writes. What a flood before authentication costs, and the bound on password
 * checks, are in broker-sasl-flood.test.ts; third-party clients over SASL in
 * test/interop/broker-sasl-clients.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrook, tempDir } from '../support/brook.js';
import { RawClient } from '../support/clients/raw-client.js';
import { saslBroker, saslPort, stillServes } from '../support/sasl-broker.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodePlain } from '../../src/protocol/sasl/plain.js';
import { SCRAM_SHA_256, credentialFromSaltedPassword, saltedPassword } from '../../src/protocol/sasl/scram.js';
import { ScramServerExchange } from '../../src/broker/sasl/scram-server.js';
import { SaslFailure } from '../../src/broker/sasl/sasl-failure.js';
import { CredentialStore, CREDENTIALS_FILE } from '../../src/broker/sasl/credential-store.js';
import { plainCredential } from '../../src/broker/sasl/plain-password.js';

// RFC 7677 section 3: user "user", password "pencil".
const RFC = {
  clientFirst: 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO',
  serverNonce: '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  serverFirst: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
  clientFinal: 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverFinal: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
};

function rfcCredential() {
  const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
  return credentialFromSaltedPassword(SCRAM_SHA_256, saltedPassword(SCRAM_SHA_256, 'pencil', salt, 4096), salt, 4096);
}

const exchange = () => new ScramServerExchange(SCRAM_SHA_256, (u) => (u === 'user' ? rfcCredential() : undefined), () => RFC.serverNonce);

test('the SCRAM-SHA-256 server answers RFC 7677 example exchange with its server-first and server-final messages', () => {
  const s = exchange();
  const first = s.step(Buffer.from(RFC.clientFirst));
  assert.equal(first.challenge.toString(), RFC.serverFirst);
  assert.equal(first.done, false);
  const final = s.step(Buffer.from(RFC.clientFinal));
  assert.deepEqual([final.done, final.challenge.toString(), final.done && final.user], [true, RFC.serverFinal, 'user']);
  assert.throws(() => s.step(Buffer.from(RFC.clientFinal)), SaslFailure, 'no step after the last');
});

test('the SCRAM server refuses a wrong proof, a wrong nonce or channel binding, p= binding, tokenauth, an unknown user', () => {
  const refusals: [string, string | null][] = [
    [RFC.clientFirst, RFC.clientFinal.replace('p=dHzb', 'p=dHzc')],
    [RFC.clientFirst, RFC.clientFinal.replace('r=rOpr', 'r=xOpr')],
    [RFC.clientFirst, RFC.clientFinal.replace('c=biws', 'c=eSws')],
    ['p=tls-unique,,n=user,r=abc', null],
    ['n,,n=user,r=abc,tokenauth=true', null],
    ['n,,n=nobody,r=abc', null],
    ['n,a=other,n=user,r=abc', null],
    ['garbage', null],
  ];
  for (const [first, final] of refusals) {
    const s = exchange();
    if (final === null) {
      assert.throws(() => s.step(Buffer.from(first)), SaslFailure, first);
    } else {
      s.step(Buffer.from(first));
      assert.throws(() => s.step(Buffer.from(final)), SaslFailure, final);
    }
  }
  // gs2 flag 'y' is fine, with its own channel binding c= (base64 of "y,,").
  const s = exchange();
  s.step(Buffer.from('y,,n=user,r=abc'));
  assert.throws(() => s.step(Buffer.from(`c=biws,r=abc${RFC.serverNonce},p=AAAA`)), SaslFailure);
});

test('on a SASL listener: Kafka error codes for a wrong mechanism, state or password; other requests before authentication close the connection', { timeout: 30_000 }, async (t) => {
  const broker = await saslBroker();
  t.after(() => broker.stop());
  const port = saslPort(broker);

  // ApiVersions is allowed first and lists the SASL APIs.
  let c = new RawClient(port);
  c.send(Api.ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  const versions = await c.response<{ apiKeys: { apiKey: number }[] }>(Api.ApiVersions, 3);
  assert.ok(versions.apiKeys.some((k) => k.apiKey === Api.SaslHandshake.apiKey) && versions.apiKeys.some((k) => k.apiKey === Api.SaslAuthenticate.apiKey));
  // Metadata before authenticating: no answer, the connection closes.
  c.send(Api.Metadata, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  assert.equal(await c.frame(), null);

  c = new RawClient(port);
  c.send(Api.SaslHandshake, 1, { mechanism: 'GSSAPI' });
  assert.deepEqual(await c.response(Api.SaslHandshake, 1), { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['PLAIN', 'SCRAM-SHA-256'] });
  await c.closed;

  c = new RawClient(port);
  c.send(Api.SaslAuthenticate, 1, { authBytes: encodePlain('bob', 'bob-secret') });
  assert.equal((await c.response<{ errorCode: number }>(Api.SaslAuthenticate, 1)).errorCode, ErrorCode.ILLEGAL_SASL_STATE);
  await c.closed;

  c = new RawClient(port);
  c.send(Api.SaslHandshake, 1, { mechanism: 'PLAIN' });
  await c.response(Api.SaslHandshake, 1);
  c.send(Api.SaslAuthenticate, 2, { authBytes: encodePlain('bob', 'wrong') });
  const refused = await c.response<{ errorCode: number; errorMessage: string }>(Api.SaslAuthenticate, 2);
  assert.deepEqual([refused.errorCode, refused.errorMessage], [ErrorCode.SASL_AUTHENTICATION_FAILED, 'Authentication failed: Invalid username or password']);
  await c.closed;

  c = new RawClient(port);
  c.send(Api.SaslHandshake, 1, { mechanism: 'SCRAM-SHA-256' });
  await c.response(Api.SaslHandshake, 1);
  c.send(Api.SaslAuthenticate, 2, { authBytes: Buffer.from('n,,n=bob,r=abcdef') });
  const scram = await c.response<{ errorCode: number; errorMessage: string }>(Api.SaslAuthenticate, 2);
  assert.deepEqual([scram.errorCode, scram.errorMessage],
    [ErrorCode.SASL_AUTHENTICATION_FAILED, 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256']);
  await c.closed;

  // After authentication: SaslHandshake again is ILLEGAL_SASL_STATE and the connection stays.
  c = new RawClient(port);
  c.send(Api.SaslHandshake, 1, { mechanism: 'PLAIN' });
  await c.response(Api.SaslHandshake, 1);
  c.send(Api.SaslAuthenticate, 2, { authBytes: encodePlain('bob', 'bob-secret') });
  const ok = await c.response<{ errorCode: number; sessionLifetimeMs: bigint }>(Api.SaslAuthenticate, 2);
  assert.deepEqual([ok.errorCode, ok.sessionLifetimeMs], [0, 0n]);
  c.send(Api.SaslHandshake, 1, { mechanism: 'PLAIN' });
  assert.equal((await c.response<{ errorCode: number }>(Api.SaslHandshake, 1)).errorCode, ErrorCode.ILLEGAL_SASL_STATE);
  assert.equal(broker.connectionInfo().find((i) => i.principal === 'User:bob')?.listener, 'SASL_PLAINTEXT');
  c.socket.destroy();

  // The PLAINTEXT listener: SaslHandshake is ILLEGAL_SASL_STATE (Kafka's KafkaApis), the connection stays.
  c = new RawClient(broker.port);
  c.send(Api.SaslHandshake, 1, { mechanism: 'PLAIN' });
  assert.equal((await c.response<{ errorCode: number }>(Api.SaslHandshake, 1)).errorCode, ErrorCode.ILLEGAL_SASL_STATE);
  c.send(Api.ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  await c.response(Api.ApiVersions, 3);
  c.socket.destroy();

  assert.equal(broker.stats.connections.failedAuthentication, 5);
  await stillServes(broker);
});

test('SaslHandshake v0: the PLAIN token comes raw and is answered raw; then the connection is authenticated', { timeout: 30_000 }, async (t) => {
  const broker = await saslBroker();
  t.after(() => broker.stop());
  const c = new RawClient(saslPort(broker));
  c.send(Api.SaslHandshake, 0, { mechanism: 'PLAIN' });
  assert.equal((await c.response<{ errorCode: number }>(Api.SaslHandshake, 0)).errorCode, 0);
  c.sendRaw(encodePlain('bob', 'bob-secret'));
  assert.deepEqual(await c.frame(), Buffer.alloc(0));
  c.send(Api.Metadata, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  assert.equal((await c.response<{ brokers: unknown[] }>(Api.Metadata, 12)).brokers.length, 1);
  c.socket.destroy();
  // A wrong raw token: closed without an answer.
  const bad = new RawClient(saslPort(broker));
  bad.send(Api.SaslHandshake, 0, { mechanism: 'PLAIN' });
  await bad.response(Api.SaslHandshake, 0);
  bad.sendRaw(encodePlain('bob', 'nope'));
  assert.equal(await bad.frame(), null);
});

test('hostile input before authentication: huge sizes, garbage, endless exchanges and silence close only those connections', { timeout: 60_000 }, async (t) => {
  const broker = await saslBroker({ connectionsMaxIdleMs: 400 });
  t.after(() => broker.stop());
  const port = saslPort(broker);

  // A size prefix above sasl.server.max.receive.size (524288) closes before anything is held.
  for (const size of [524_289, 0x7fffffff, -1]) {
    const c = new RawClient(port);
    const prefix = Buffer.alloc(8);
    prefix.writeInt32BE(size);
    c.socket.write(prefix);
    await c.closed;
  }
  // Endless SCRAM: the exchange fails at the first token that does not fit.
  for (let round = 0; round < 5; round++) {
    const c = new RawClient(port);
    c.send(Api.SaslHandshake, 1, { mechanism: 'SCRAM-SHA-256' });
    await c.response(Api.SaslHandshake, 1);
    for (let i = 0; i < 10; i++) c.send(Api.SaslAuthenticate, 2, { authBytes: randomBytes(64) });
    assert.equal((await c.response<{ errorCode: number }>(Api.SaslAuthenticate, 2)).errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
    await c.closed;
  }
  // Random bytes, random frames, and a silent client (closed by the authentication time limit).
  const silent = new RawClient(port);
  const clients: RawClient[] = [];
  for (let i = 0; i < 100; i++) {
    const c = new RawClient(port);
    const junk = randomBytes(1 + (i * 37) % 3000);
    // Half of them a well-formed size prefix with garbage after it.
    if (i % 2 === 0 && junk.length >= 4) junk.writeInt32BE(junk.length - 4, 0);
    c.socket.write(junk);
    clients.push(c);
  }
  await Promise.all(clients.map((c) => c.closed));
  await silent.closed;
  // What hostile connections hold is measured while they are open, in broker-sasl-flood.test.ts.
  await stillServes(broker);
  // Each one counted: undecodable frames as bad input, silent ones as idle, the rest as failed authentications.
  const { failedAuthentication, closedBadInput, closedIdle, closedIncompleteRequest } = broker.stats.connections;
  assert.ok(failedAuthentication >= 5);
  assert.equal(failedAuthentication + closedBadInput + closedIdle + closedIncompleteRequest, 3 + 5 + 100 + 1);
});

test('a SASL listener needs sasl.enabled.mechanisms; GSSAPI and OAUTHBEARER are refused at start-up', async () => {
  await assert.rejects(startBrook({ listeners: 'SASL_PLAINTEXT://127.0.0.1:0' }), /sasl\.enabled\.mechanisms is not set/);
  await assert.rejects(startBrook({ listeners: 'SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'GSSAPI' }), /GSSAPI, which Brook does not serve/);
  await assert.rejects(startBrook({ listeners: 'SASL_PLAINTEXT://127.0.0.1:0', listenerSaslEnabledMechanisms: { sasl_plaintext: 'OAUTHBEARER' } }), /OAUTHBEARER/);
});

test('AlterUserScramCredentials and DescribeUserScramCredentials answer with Kafka codes; changes survive a restart', { timeout: 30_000 }, async (t) => {
  const dir = tempDir();
  let broker = await startBrook({ dataDir: dir.path });
  t.after(async () => {
    await broker.stop();
    dir.remove();
  });
  const upsert = (name: string, mechanism: number, iterations: number, salt = randomBytes(16)) => ({ name, mechanism, iterations, salt, saltedPassword: randomBytes(32) });
  let c = new RawClient(broker.port);
  c.send(Api.AlterUserScramCredentials, 0, {
    deletions: [{ name: 'ghost', mechanism: 1 }],
    upsertions: [upsert('alice', 1, 4096), upsert('few', 1, 4095), upsert('many', 2, 16385), upsert('nosalt', 1, 4096, Buffer.alloc(0)),
      upsert('odd', 3, 4096), upsert('twice', 1, 4096), upsert('twice', 2, 4096)],
  });
  const altered = await c.response<{ results: { user: string; errorCode: number }[] }>(Api.AlterUserScramCredentials, 0);
  assert.deepEqual(Object.fromEntries(altered.results.map((r) => [r.user, r.errorCode])), {
    alice: 0, ghost: ErrorCode.RESOURCE_NOT_FOUND, few: ErrorCode.UNACCEPTABLE_CREDENTIAL, many: ErrorCode.UNACCEPTABLE_CREDENTIAL,
    nosalt: ErrorCode.UNACCEPTABLE_CREDENTIAL, odd: ErrorCode.UNSUPPORTED_SASL_MECHANISM, twice: ErrorCode.DUPLICATE_RESOURCE,
  });
  c.socket.destroy();
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path });
  c = new RawClient(broker.port);
  c.send(Api.DescribeUserScramCredentials, 0, { users: [{ name: 'alice' }, { name: 'nobody' }, { name: 'x' }, { name: 'x' }] });
  const described = await c.response<{ results: { user: string; errorCode: number; credentialInfos: { mechanism: number; iterations: number }[] }[] }>(Api.DescribeUserScramCredentials, 0);
  assert.deepEqual(described.results.map((r) => [r.user, r.errorCode, r.credentialInfos.map((i) => [i.mechanism, i.iterations])]), [
    ['alice', 0, [[1, 4096]]], ['nobody', ErrorCode.RESOURCE_NOT_FOUND, []], ['x', ErrorCode.DUPLICATE_RESOURCE, []],
  ]);
  c.socket.destroy();
  assert.ok(!readFileSync(join(dir.path, CREDENTIALS_FILE), 'utf8').includes('saltedPassword'));
});

test('a credential change whose write fails throws and changes nothing, on disk or in memory', async (t) => {
  const dir = tempDir();
  t.after(() => dir.remove());
  writeFileSync(join(dir.path, CREDENTIALS_FILE), '{"version":1,"users":{}}\n');
  const failing = { ...await import('node:fs'), fsyncSync: () => { throw new Error('EIO: injected'); } };
  const store = CredentialStore.open(dir.path, failing);
  assert.throws(() => store.apply([{ op: 'setPlain', user: 'bob', credential: { salt: Buffer.alloc(16), hash: Buffer.alloc(32), iterations: 1 } }]), /EIO: injected/);
  assert.equal(store.plain('bob'), undefined);
  assert.equal(readFileSync(join(dir.path, CREDENTIALS_FILE), 'utf8'), '{"version":1,"users":{}}\n');
});

test('a failed directory fsync after the rename: the change is refused, yet memory holds what a restart reads', async (t) => {
  const dir = tempDir();
  t.after(() => dir.remove());
  writeFileSync(join(dir.path, CREDENTIALS_FILE), '{"version":1,"users":{}}\n');
  const fs = await import('node:fs');
  let renamed = false;
  const failing = {
    ...fs,
    renameSync: (from: import('node:fs').PathLike, to: import('node:fs').PathLike) => {
      fs.renameSync(from, to);
      renamed = true;
    },
    fsyncSync: (fd: number) => {
      if (renamed) throw new Error('EIO: injected directory fsync');
      fs.fsyncSync(fd);
    },
  };
  const store = CredentialStore.open(dir.path, failing);
  const credential = await plainCredential('pw', 1);
  assert.throws(() => store.apply([{ op: 'setPlain', user: 'bob', credential }]), /cannot write .*EIO: injected directory fsync/);
  const restarted = CredentialStore.open(dir.path);
  assert.ok(restarted.plain('bob') !== undefined, 'the renamed file holds bob');
  assert.deepEqual(store.list().map(([name]) => name), restarted.list().map(([name]) => name));
  assert.deepEqual(store.plain('bob'), restarted.plain('bob'));
});
