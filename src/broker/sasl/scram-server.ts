/**
 * The server side of one SCRAM exchange (RFC 5802, RFC 7677), as Kafka's ScramSaslServer
 * runs it: client-first (`n,,n=user,r=nonce`) → server-first (`r=nonce+ours,s=salt,i=n`) →
 * client-final (`c=biws,r=nonce,p=proof`) → server-final (`v=signature`). The iteration
 * count is the stored credential's. Refused, as SaslFailure:
 * - a user without a credential for the mechanism (Kafka fails at client-first too);
 * - channel binding: only the gs2 flags `n` and `y` (Kafka serves no `p=`), and the final
 *   message's `c=` must repeat the gs2 header (`biws` for `n,,`);
 * - an authorization id other than the user name, as Kafka's;
 * - extensions: Kafka's `tokenauth` (delegation tokens, which Brook does not have) and any other;
 * - a final nonce other than the one the server sent, and a proof that does not verify.
 * Sans-I/O: no sockets, no clock.
 */
import { Buffer } from 'node:buffer';
import {
  hash, hmac, nonce as newNonce, parseAttributes, sameBytes, unescapeSaslName, xor,
  type ScramCredential, type ScramMechanism,
} from '../../protocol/sasl/scram.js';
import { SaslFailure } from './sasl-failure.js';

export type ScramStep =
  | { readonly done: false; readonly challenge: Buffer }
  | { readonly done: true; readonly challenge: Buffer; readonly user: string };

const GS2_HEADER = /^([ny]),(?:a=([^,]*))?,(.*)$/s;

export class ScramServerExchange {
  private state: 'first' | 'final' | 'done' = 'first';
  private user = '';
  private credential: ScramCredential | null = null;
  private gs2Header = '';
  private clientFirstBare = '';
  private serverFirst = '';
  private fullNonce = '';

  constructor(
    private readonly mechanism: ScramMechanism,
    private readonly lookup: (user: string) => ScramCredential | undefined,
    private readonly serverNonce: () => string = () => newNonce(),
  ) {}

  /** The answer to the client's next message; throws SaslFailure when authentication fails. */
  step(message: Buffer): ScramStep {
    const text = message.toString('utf8');
    if (this.state === 'first') return this.first(text);
    if (this.state === 'final') return this.final(text);
    throw new SaslFailure('authentication', 'SCRAM exchange already complete');
  }

  private first(text: string): ScramStep {
    const m = GS2_HEADER.exec(text);
    if (m === null) throw new SaslFailure('authentication', 'invalid SCRAM client-first message (gs2 header)');
    const [, , authzid, bare] = m as unknown as [string, string, string | undefined, string];
    const attributes = parseAttributes(bare);
    if (attributes === null) throw new SaslFailure('authentication', 'invalid SCRAM client-first message');
    const keys = [...attributes.keys()];
    if (keys[0] !== 'n' || keys[1] !== 'r') throw new SaslFailure('authentication', 'invalid SCRAM client-first message (n= and r= first)');
    if (keys.length > 2) {
      // Kafka's SCRAM extensions (`tokenauth=true`, ...) come after the nonce.
      throw new SaslFailure('authentication', `SCRAM extensions are not supported: ${keys.slice(2).join(', ')}`);
    }
    const user = unescapeSaslName(attributes.get('n')!);
    const clientNonce = attributes.get('r')!;
    if (user === null || user === '' || clientNonce === '' || /[^\x21-\x2b\x2d-\x7e]/.test(clientNonce)) {
      throw new SaslFailure('authentication', 'invalid SCRAM client-first message (user name or nonce)');
    }
    if (authzid !== undefined && authzid !== '' && unescapeSaslName(authzid) !== user) {
      throw new SaslFailure('authorization', 'Authentication failed: Client requested an authorization id that is different from username');
    }
    const credential = this.lookup(user);
    if (credential === undefined) throw new SaslFailure('authentication', `no ${this.mechanism.name} credential for user ${user}`);
    this.user = user;
    this.credential = credential;
    this.gs2Header = text.slice(0, text.length - bare.length);
    this.clientFirstBare = bare;
    this.fullNonce = clientNonce + this.serverNonce();
    this.serverFirst = `r=${this.fullNonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
    this.state = 'final';
    return { done: false, challenge: Buffer.from(this.serverFirst, 'utf8') };
  }

  private final(text: string): ScramStep {
    this.state = 'done';
    const at = text.lastIndexOf(',p=');
    if (at < 0) throw new SaslFailure('authentication', 'invalid SCRAM client-final message (no proof)');
    const withoutProof = text.slice(0, at);
    const attributes = parseAttributes(text);
    if (attributes === null) throw new SaslFailure('authentication', 'invalid SCRAM client-final message');
    const keys = [...attributes.keys()];
    if (keys.length !== 3 || keys[0] !== 'c' || keys[1] !== 'r' || keys[2] !== 'p') {
      throw new SaslFailure('authentication', 'invalid SCRAM client-final message (c=, r=, p= expected)');
    }
    if (attributes.get('c') !== Buffer.from(this.gs2Header, 'utf8').toString('base64')) {
      throw new SaslFailure('authentication', 'invalid channel binding in the SCRAM client-final message');
    }
    if (attributes.get('r') !== this.fullNonce) throw new SaslFailure('authentication', 'Invalid client nonce in the final client message.');
    const m = this.mechanism;
    const credential = this.credential!;
    const proof = Buffer.from(attributes.get('p')!, 'base64');
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const clientSignature = hmac(m, credential.storedKey, authMessage);
    if (proof.length !== clientSignature.length || !sameBytes(hash(m, xor(proof, clientSignature)), credential.storedKey)) {
      throw new SaslFailure('authentication', 'invalid SCRAM client proof');
    }
    const serverSignature = hmac(m, credential.serverKey, authMessage);
    return { done: true, challenge: Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8'), user: this.user };
  }
}

