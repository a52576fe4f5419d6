/**
 * The SASL state of one connection on a SASL_PLAINTEXT or SASL_SSL listener, as Kafka's
 * SaslServerAuthenticator keeps it: HANDSHAKE (ApiVersions and SaslHandshake allowed), then
 * AUTHENTICATE (the mechanism's tokens: SaslAuthenticate requests after a SaslHandshake v1,
 * raw length-prefixed tokens without a Kafka header after a v0 one), then COMPLETE (the
 * principal is `User:<name>`) or FAILED (the connection closes once its answer is written).
 *
 * The exchange cannot go on for ever: PLAIN takes one token and SCRAM two; any token after
 * the last, or a second SaslHandshake, fails the authentication.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { decodePlain } from '../../protocol/sasl/plain.js';
import { scramMechanism } from '../../protocol/sasl/scram.js';
import { Api } from '../../protocol/messages/index.js';
import type { SaslHandshakeResponseData } from '../../protocol/messages/sasl-handshake.js';
import type { CredentialStore } from './credential-store.js';
import { verifyPlain, type PlainCredential } from './plain-password.js';
import { ScramServerExchange } from './scram-server.js';
import { PasswordChecksBusyError, type PasswordCheckQueue } from './password-checks.js';
import { SaslFailure } from './sasl-failure.js';
import type { SaslMechanismName } from './sasl-config.js';

export type SaslState = 'handshake' | 'authenticate' | 'complete' | 'failed';

/** One step's outcome: the token to send back, or Kafka's error code and message. */
export type SaslStepResult =
  | { readonly errorCode: 0; readonly errorMessage: null; readonly challenge: Buffer }
  | { readonly errorCode: number; readonly errorMessage: string; readonly challenge: Buffer };

const EMPTY = Buffer.alloc(0);

interface Mechanism {
  /**
   * The answer to the client's next token; the user's name once authentication is complete.
   * `signal`: the connection closed (a password check still waiting is dropped).
   */
  step(token: Buffer, signal: AbortSignal): { challenge: Buffer; user: string | null } | Promise<{ challenge: Buffer; user: string | null }>;
}

/** What a SASL listener's connections authenticate against, besides the credential store. */
export interface SaslListenerAuth {
  readonly mechanisms: readonly SaslMechanismName[];
  /** The PLAIN users of the listener's `listener.name.<l>.plain.sasl.jaas.config`; over the store's of the same name. */
  readonly jaasPlain: ReadonlyMap<string, PlainCredential>;
}

function plainMechanism(credentials: CredentialStore, jaasPlain: ReadonlyMap<string, PlainCredential>, checks: PasswordCheckQueue): Mechanism {
  let used = false;
  return {
    async step(token, signal) {
      if (used) throw new SaslFailure('authentication', 'PLAIN takes one token');
      used = true;
      const plain = decodePlain(token);
      if (plain === null) throw new SaslFailure('authentication', 'invalid SASL/PLAIN response');
      // Kafka's PlainSaslServer: an authorization id, when given, must be the user name.
      if (plain.authorizationId !== '' && plain.authorizationId !== plain.username) {
        throw new SaslFailure('authorization', 'Authentication failed: Client requested an authorization id that is different from username');
      }
      // Queued before the user is looked up: known and unknown users wait, and cost, the same.
      const matches = await checks.run(() => verifyPlain(jaasPlain.get(plain.username) ?? credentials.plain(plain.username), plain.password), signal);
      if (!matches) {
        throw new SaslFailure('authorization', 'Authentication failed: Invalid username or password');
      }
      return { challenge: EMPTY, user: plain.username };
    },
  };
}

function scramMechanismServer(name: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', credentials: CredentialStore): Mechanism {
  const exchange = new ScramServerExchange(scramMechanism(name)!, (user) => credentials.scram(user, name));
  return {
    step(token) {
      const r = exchange.step(token);
      return { challenge: r.challenge, user: r.done ? r.user : null };
    },
  };
}

export class SaslAuthenticator {
  state: SaslState = 'handshake';
  /** A SaslHandshake v0 was accepted: the tokens come raw, without Kafka headers. */
  rawTokens = false;
  mechanismName: SaslMechanismName | null = null;
  /** `User:<name>` once complete. */
  principal: string | null = null;
  /** Why authentication failed (for the log; the client gets Kafka's sentence). */
  failure: string | null = null;
  /** A step is being worked on (PLAIN's password check runs in the thread pool). */
  busy = false;
  private mechanism: Mechanism | null = null;

  readonly enabled: readonly SaslMechanismName[];

  constructor(
    private readonly listener: SaslListenerAuth,
    private readonly credentials: CredentialStore,
    private readonly passwordChecks: PasswordCheckQueue,
  ) {
    this.enabled = listener.mechanisms;
  }

  /** What the connection may send before it has authenticated (Kafka's SaslServerAuthenticator). */
  allowsBeforeAuthentication(apiKey: number): boolean {
    if (apiKey === Api.SaslHandshake.apiKey || apiKey === Api.SaslAuthenticate.apiKey) return true;
    return apiKey === Api.ApiVersions.apiKey && this.state === 'handshake';
  }

  /** SaslHandshake: picks the mechanism. Kafka closes the connection after a refusal; so does the caller. */
  handshake(mechanism: string, version: number): SaslHandshakeResponseData {
    if (this.state !== 'handshake') {
      this.fail(`SaslHandshake received in state ${this.state}`);
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    }
    const chosen = this.enabled.find((m) => m === mechanism);
    if (chosen === undefined) {
      this.fail(`unsupported SASL mechanism ${JSON.stringify(mechanism)}`);
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: [...this.enabled] };
    }
    this.mechanismName = chosen;
    this.mechanism = chosen === 'PLAIN' ? plainMechanism(this.credentials, this.listener.jaasPlain, this.passwordChecks) : scramMechanismServer(chosen, this.credentials);
    this.rawTokens = version === 0;
    this.state = 'authenticate';
    return { errorCode: ErrorCode.NONE, mechanisms: [...this.enabled] };
  }

  /**
   * One token of the exchange (a SaslAuthenticate request's bytes, or a raw token after a v0
   * handshake). Rejects with PasswordChecksBusyError when the password check cannot even wait
   * (the connection then closes without an answer), and with the signal's reason when the
   * connection closed while the check waited.
   */
  authenticate(token: Buffer, signal: AbortSignal): SaslStepResult | Promise<SaslStepResult> {
    if (this.state !== 'authenticate' || this.busy) {
      const reason = `SaslAuthenticate received in state ${this.busy ? 'authenticate (a step in progress)' : this.state}`;
      this.fail(reason);
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: `Unexpected SaslAuthenticate request in state ${this.state}`, challenge: EMPTY };
    }
    let step;
    try {
      step = this.mechanism!.step(token, signal);
    } catch (err) {
      return this.refused(err);
    }
    if (!(step instanceof Promise)) return this.stepped(step);
    this.busy = true;
    return step.then((s) => {
      this.busy = false;
      return this.stepped(s);
    }, (err: unknown) => {
      this.busy = false;
      return this.refused(err);
    });
  }

  private stepped(step: { challenge: Buffer; user: string | null }): SaslStepResult {
    if (step.user !== null) {
      this.state = 'complete';
      this.principal = `User:${step.user}`;
      this.mechanism = null;
    }
    return { errorCode: 0, errorMessage: null, challenge: step.challenge };
  }

  private refused(err: unknown): SaslStepResult {
    if (err instanceof PasswordChecksBusyError) this.fail('too many password checks waiting');
    if (!(err instanceof SaslFailure)) throw err;
    this.fail(err.message);
    const errorMessage = err.kind === 'authorization'
      ? err.message
      : `Authentication failed during authentication due to invalid credentials with SASL mechanism ${this.mechanismName}`;
    return { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage, challenge: EMPTY };
  }

  private fail(reason: string): void {
    this.state = 'failed';
    this.failure ??= reason;
    this.mechanism = null;
  }
}
