/**
 * Why a SASL client was refused. `authentication`: bad credentials or a malformed exchange,
 * answered with Kafka's fixed sentence (the reason is only logged, as Kafka does not tell the
 * client whether the user or the password was wrong); `authorization`: a message Kafka sends
 * as it is (a SaslAuthenticationException's own text, e.g. PLAIN's "Invalid username or password").
 */
export class SaslFailure extends Error {
  constructor(readonly kind: 'authentication' | 'authorization', message: string) {
    super(message);
    this.name = 'SaslFailure';
  }
}
