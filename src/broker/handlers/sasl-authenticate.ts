/**
 * SaslAuthenticate: one token of the SASL exchange after a SaslHandshake v1
 * (sasl/sasl-authenticator.ts). Bad credentials get SASL_AUTHENTICATION_FAILED with Kafka's
 * message, then the connection closes. SessionLifetimeMs (v1+) is 0: Brook does not implement
 * connections.max.reauth.ms, so sessions do not expire and clients never re-authenticate.
 * As Kafka's KafkaApis, a connection that is not authenticating gets ILLEGAL_SASL_STATE.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { SaslAuthenticateRequestData, SaslAuthenticateResponseData } from '../../protocol/messages/sasl-authenticate.js';
import { defineHandler } from '../handler.js';
import { exemptFromAuthorization } from '../authorization.js';
import type { SaslStepResult } from '../sasl/sasl-authenticator.js';

const EMPTY = Buffer.alloc(0);

function response(step: SaslStepResult): SaslAuthenticateResponseData {
  return { errorCode: step.errorCode, errorMessage: step.errorMessage, authBytes: step.challenge, sessionLifetimeMs: 0n };
}

export const saslAuthenticateHandler = defineHandler<SaslAuthenticateRequestData, SaslAuthenticateResponseData>({
  api: Api.SaslAuthenticate,
  authorization: exemptFromAuthorization('part of authenticating, as in Kafka'),
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, request) {
    if (ctx.sasl === null || ctx.sasl.state === 'complete') {
      return {
        errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: 'SaslAuthenticate request received after successful authentication',
        authBytes: EMPTY, sessionLifetimeMs: 0n,
      };
    }
    const step = ctx.sasl.authenticate(request.authBytes, ctx.signal);
    return step instanceof Promise ? step.then(response) : response(step);
  },
});
