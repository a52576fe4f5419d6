/**
 * The clients' SASL side without a broker: the SCRAM client against RFC 7677's example
 * exchange (user "user", password "pencil") and the ways Kafka's ScramSaslClient refuses a
 * server; the SaslHandshake/SaslAuthenticate sequence against a scripted connection; the
 * `sasl` option's checks; and that a refused login fails the clients' calls at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScramClient } from '../../src/client/scram-client.js';
import { authenticate, resolveSasl, type SaslTransport } from '../../src/client/sasl.js';
import { SCRAM_SHA_256, SCRAM_SHA_512 } from '../../src/protocol/sasl/scram.js';
import type { ApiCodecs } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Admin, AuthenticationError, ConfigError, Consumer, Producer } from '../../src/index.js';

const TIMEOUT = { timeout: 10_000 };
const CLIENT_NONCE = 'rOprNGfwEbeRWgbNEkqO';
const SERVER_FIRST = `r=${CLIENT_NONCE}%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`;
const CLIENT_FINAL = `c=biws,r=${CLIENT_NONCE}%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=`;
const SERVER_FINAL = 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=';

const rfcClient = (): ScramClient => new ScramClient(SCRAM_SHA_256, 'user', 'pencil', CLIENT_NONCE);
const refusedWith = (pattern: RegExp) => (err: unknown): boolean =>
  err instanceof AuthenticationError && err.errorCode === ErrorCode.SASL_AUTHENTICATION_FAILED && !err.retriable && pattern.test(err.message);

test('SCRAM client: RFC 7677\'s example exchange, message for message', TIMEOUT, async () => {
  const client = rfcClient();
  assert.equal(client.clientFirst().toString(), `n,,n=user,r=${CLIENT_NONCE}`);
  assert.equal((await client.clientFinal(Buffer.from(SERVER_FIRST))).toString(), CLIENT_FINAL);
  client.verifyServerFinal(Buffer.from(SERVER_FINAL));
});

test('SCRAM client: user names with , and = are sent as saslnames', TIMEOUT, () => {
  assert.equal(new ScramClient(SCRAM_SHA_512, 'a,b=c', 'pw', 'N').clientFirst().toString(), 'n,,n=a=2Cb=3Dc,r=N');
});

test('SCRAM client: refuses a foreign nonce, too few iterations, a wrong server signature and e= errors', TIMEOUT, async () => {
  await assert.rejects(rfcClient().clientFinal(Buffer.from(`r=someoneElse%hvYD,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`)), refusedWith(/nonce/));
  // 4096 is Kafka's floor for both mechanisms (ScramMechanism.minIterations).
  await assert.rejects(rfcClient().clientFinal(Buffer.from(SERVER_FIRST.replace('i=4096', 'i=4095'))), refusedWith(/iterations 4095 is less than minimum 4096/));
  await assert.rejects(rfcClient().clientFinal(Buffer.from(SERVER_FIRST.replace('i=4096', 'i=x'))), refusedWith(/invalid server-first/));
  await assert.rejects(rfcClient().clientFinal(Buffer.from(`m=ext,${SERVER_FIRST}`)), refusedWith(/invalid server-first/));
  await assert.rejects(rfcClient().clientFinal(Buffer.from('e=unknown-user')), refusedWith(/unknown-user/));
  await assert.rejects(rfcClient().clientFinal(Buffer.from('garbage')), refusedWith(/invalid server-first/));

  const wrongSignature = rfcClient();
  await wrongSignature.clientFinal(Buffer.from(SERVER_FIRST));
  const otherSignature = Buffer.from(SERVER_FINAL.slice(2), 'base64');
  otherSignature[0]! ^= 1;
  assert.throws(() => wrongSignature.verifyServerFinal(Buffer.from(`v=${otherSignature.toString('base64')}`)), refusedWith(/server signature/));
  assert.throws(() => wrongSignature.verifyServerFinal(Buffer.from('e=invalid-proof')), refusedWith(/invalid-proof/));
  assert.throws(() => wrongSignature.verifyServerFinal(Buffer.from('x=1')), refusedWith(/invalid server-final/));
  // A server-final before the client-final proves nothing.
  assert.throws(() => rfcClient().verifyServerFinal(Buffer.from(SERVER_FINAL)), refusedWith(/before client-final/));
});

interface Scripted {
  readonly sent: { api: string; version: number; body: unknown }[];
  readonly transport: SaslTransport;
}

/** A connection that answers each API from a script (answers are taken in order) and records the requests. */
function scripted(versions: Partial<Record<string, number>>, answers: Record<string, unknown[]>): Scripted {
  const sent: Scripted['sent'] = [];
  const transport = {
    host: 'broker', port: 9092,
    supportedVersion: (api: ApiCodecs) => versions[api.name],
    request: async (api: ApiCodecs, body: unknown, options?: { version?: number }) => {
      sent.push({ api: api.name, version: options?.version ?? -1, body });
      const answer = answers[api.name]?.shift();
      if (answer === undefined) throw new Error(`no scripted answer for ${api.name}`);
      return answer;
    },
  } as unknown as SaslTransport;
  return { sent, transport };
}

const ok = (authBytes: Buffer, sessionLifetimeMs = 0n) => ({ errorCode: 0, errorMessage: null, authBytes, sessionLifetimeMs });

test('authenticate: SaslHandshake v1 names the mechanism, then one SaslAuthenticate with PLAIN\'s message; the session lifetime comes back', TIMEOUT, async () => {
  const s = scripted({ SaslHandshake: 1, SaslAuthenticate: 2 }, {
    SaslHandshake: [{ errorCode: 0, mechanisms: ['PLAIN'] }],
    SaslAuthenticate: [ok(Buffer.alloc(0), 3_600_000n)],
  });
  assert.equal(await authenticate(s.transport, { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' }), 3_600_000);
  assert.deepEqual(s.sent, [
    { api: 'SaslHandshake', version: 1, body: { mechanism: 'PLAIN' } },
    // RFC 4616: authzid NUL authcid NUL passwd.
    { api: 'SaslAuthenticate', version: 2, body: { authBytes: Buffer.from('\u0000alice\u0000alice-secret') } },
  ]);
});

test('authenticate: the broker\'s error code and message become AuthenticationError; a disabled mechanism names the enabled ones', TIMEOUT, async () => {
  const message = 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512';
  const failed = scripted({ SaslHandshake: 1, SaslAuthenticate: 2 }, {
    SaslHandshake: [{ errorCode: 0, mechanisms: ['SCRAM-SHA-512'] }],
    SaslAuthenticate: [{ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: message, authBytes: Buffer.alloc(0) }],
  });
  await assert.rejects(authenticate(failed.transport, { mechanism: 'SCRAM-SHA-512', username: 'u', password: 'p' }), (err: unknown) => {
    assert.ok(err instanceof AuthenticationError);
    assert.equal(err.errorCode, 58);
    assert.equal(err.errorName, 'SASL_AUTHENTICATION_FAILED');
    assert.equal(err.detail, message);
    assert.equal(err.retriable, false);
    return true;
  });
  assert.match((failed.sent[1]!.body as { authBytes: Buffer }).authBytes.toString(), /^n,,n=u,r=[^,]+$/);

  const disabled = scripted({ SaslHandshake: 1, SaslAuthenticate: 2 }, { SaslHandshake: [{ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['PLAIN', 'SCRAM-SHA-256'] }] });
  await assert.rejects(authenticate(disabled.transport, { mechanism: 'SCRAM-SHA-512', username: 'u', password: 'p' }),
    (err: unknown) => err instanceof AuthenticationError && err.errorCode === 33 && /enabled mechanisms are \[PLAIN, SCRAM-SHA-256\]/.test(err.message));

  const plaintext = scripted({ SaslHandshake: 1, SaslAuthenticate: 2 }, { SaslHandshake: [{ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] }] });
  await assert.rejects(authenticate(plaintext.transport, { mechanism: 'PLAIN', username: 'u', password: 'p' }),
    (err: unknown) => err instanceof AuthenticationError && err.errorCode === 34 && /not a SASL listener/.test(err.message));

  const noSasl = scripted({}, {});
  await assert.rejects(authenticate(noSasl.transport, { mechanism: 'PLAIN', username: 'u', password: 'p' }),
    (err: unknown) => err instanceof AuthenticationError && err.errorCode === 34 && /does not speak SASL/.test(err.message));
  assert.equal(noSasl.sent.length, 0);
});

test('the sasl option: needed by SASL_* protocols, refused with the others, GSSAPI and OAUTHBEARER refused by name', TIMEOUT, () => {
  const login = { mechanism: 'SCRAM-SHA-256', username: 'u', password: 'p' } as const;
  assert.deepEqual(resolveSasl('SASL_SSL', login), login);
  assert.equal(resolveSasl('SSL', undefined), null);
  assert.throws(() => resolveSasl('SASL_PLAINTEXT', undefined), /SASL_PLAINTEXT needs sasl/);
  assert.throws(() => resolveSasl('PLAINTEXT', login), /sasl is given but securityProtocol is PLAINTEXT/);
  for (const mechanism of ['GSSAPI', 'OAUTHBEARER', 'scram-sha-256']) {
    assert.throws(() => resolveSasl('SASL_SSL', { ...login, mechanism } as never), (err: unknown) => err instanceof ConfigError && err.message.includes(`sasl.mechanism ${mechanism} is not supported`));
  }
  assert.throws(() => resolveSasl('SASL_SSL', { ...login, password: '' }), /sasl.password/);
  assert.throws(() => resolveSasl('SASL_SSL', { mechanism: 'PLAIN', username: 'a\u0000b', password: 'p' }), /NUL/);
  assert.throws(() => new Producer({ bootstrapServers: 'b:9092', securityProtocol: 'SASL_PLAINTEXT', ssl: {}, sasl: login }), /ssl is given but securityProtocol is SASL_PLAINTEXT/);
});

test('a refused login fails Admin.connect, Producer.send and Consumer.poll at once with the AuthenticationError, after one attempt each', TIMEOUT, async () => {
  let attempts = 0;
  const refused = new AuthenticationError(ErrorCode.SASL_AUTHENTICATION_FAILED, 'Authentication failed: Invalid username or password');
  const options = {
    bootstrapServers: 'a:9092,b:9092', securityProtocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'u', password: 'wrong' },
    connectionFactory: async () => {
      attempts++;
      throw refused;
    },
  } as const;
  await assert.rejects(Admin.connect(options), (err) => err === refused);
  // The second bootstrap broker is not tried: the same cluster would refuse the same login.
  assert.equal(attempts, 1);

  const producer = new Producer({ ...options, maxBlockMs: 60_000 });
  try {
    await assert.rejects(producer.send({ topic: 't', value: 'v' }), (err) => err === refused);
  } finally {
    await producer.close(0);
  }

  const consumer = new Consumer({ ...options, groupId: 'g' });
  try {
    consumer.subscribe(['t']);
    await assert.rejects(consumer.poll({ timeoutMs: 30_000 }), (err) => err === refused);
  } finally {
    await consumer.close({ timeoutMs: 0 });
  }
});
