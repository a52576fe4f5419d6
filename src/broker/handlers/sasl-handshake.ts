/**
 * SaslHandshake: the client names its SASL mechanism (sasl/sasl-authenticator.ts). v0 means
 * the tokens that follow come raw, without Kafka headers; v1 that they come as SaslAuthenticate
 * requests. A mechanism the listener does not enable gets UNSUPPORTED_SASL_MECHANISM with the
 * enabled ones, then the connection closes. As Kafka's KafkaApis, a connection that is not
 * authenticating (a non-SASL listener, or already authenticated) gets ILLEGAL_SASL_STATE.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { SaslHandshakeRequestData, SaslHandshakeResponseData } from '../../protocol/messages/sasl-handshake.js';
import { defineHandler } from '../handler.js';
import { exemptFromAuthorization } from '../authorization.js';

export const saslHandshakeHandler = defineHandler<SaslHandshakeRequestData, SaslHandshakeResponseData>({
  api: Api.SaslHandshake,
  authorization: exemptFromAuthorization('part of authenticating, as in Kafka'),
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, request) {
    if (ctx.sasl === null || ctx.sasl.state === 'complete') return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    return ctx.sasl.handshake(request.mechanism, ctx.apiVersion);
  },
});
