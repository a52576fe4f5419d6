/**
 * DescribeUserScramCredentials: each user's SCRAM mechanisms and iteration counts (never the
 * keys), from the credential store. No users, or null, means every user with a SCRAM
 * credential; a named user without one gets RESOURCE_NOT_FOUND, one named twice
 * DUPLICATE_RESOURCE: Kafka's codes and messages. PLAIN users are not SCRAM users and are
 * not listed (Kafka has no API for its PLAIN users either). It needs DESCRIBE on the cluster:
 * without it the whole request, and each named user, answers CLUSTER_AUTHORIZATION_FAILED.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { scramMechanism } from '../../protocol/sasl/scram.js';
import type {
  CredentialInfo, DescribeUserScramCredentialsRequestData, DescribeUserScramCredentialsResponseData, DescribeUserScramCredentialsResult,
} from '../../protocol/messages/describe-user-scram-credentials.js';
import type { UserCredentials } from '../sasl/credential-store.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

function infos(user: UserCredentials | undefined): CredentialInfo[] {
  return [...(user?.scram ?? [])]
    .map(([name, c]) => ({ mechanism: scramMechanism(name)!.type, iterations: c.iterations }))
    .sort((a, b) => a.mechanism - b.mechanism);
}

export const describeUserScramCredentialsHandler = defineHandler<DescribeUserScramCredentialsRequestData, DescribeUserScramCredentialsResponseData>({
  api: Api.DescribeUserScramCredentials,
  authorization: authorizes({ CLUSTER: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, request) {
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE)) {
      // As Kafka's error response: one result per named user, the error in it, and no user
      // name (Kafka leaves it unset). With `users` null Kafka 4.4 fails to build that
      // response and never answers; Brook answers with no results.
      const errorMessage = errorInfo(ErrorCode.CLUSTER_AUTHORIZATION_FAILED).message;
      const results = (request.users ?? []).map(() => ({ user: '', errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage, credentialInfos: [] }));
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage, results };
    }
    const store = ctx.broker.credentials;
    const users = new Map(store.list());
    const results: DescribeUserScramCredentialsResult[] = [];
    if (request.users === null || request.users.length === 0) {
      for (const [name, u] of users) {
        const credentialInfos = infos(u);
        if (credentialInfos.length > 0) results.push({ user: name, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos });
      }
    } else {
      const counts = new Map<string, number>();
      for (const { name } of request.users) counts.set(name, (counts.get(name) ?? 0) + 1);
      for (const [name, count] of counts) {
        const credentialInfos = infos(users.get(name));
        if (count > 1) {
          results.push({
            user: name, errorCode: ErrorCode.DUPLICATE_RESOURCE, credentialInfos: [],
            errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${name}`,
          });
        } else if (credentialInfos.length === 0) {
          results.push({
            user: name, errorCode: ErrorCode.RESOURCE_NOT_FOUND, credentialInfos: [],
            errorMessage: `Attempt to describe a user credential that does not exist: ${name}`,
          });
        } else {
          results.push({ user: name, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos });
        }
      }
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results };
  },
});
