/**
 * AlterUserScramCredentials: adds, replaces and deletes users' SCRAM credentials, checked
 * as Kafka's ScramControlManager checks them (its codes and messages): an unknown mechanism
 * is UNSUPPORTED_SASL_MECHANISM; iterations outside the mechanism's bounds (4096..16384), an
 * empty salt or salted password, or an empty user name are UNACCEPTABLE_CREDENTIAL; deleting
 * a credential that does not exist is RESOURCE_NOT_FOUND; a user named twice in one request
 * is DUPLICATE_RESOURCE. The client sends the salted password (Hi), never the password; the
 * broker keeps StoredKey and ServerKey. The accepted changes are written durably together
 * before the response; a failed write answers KAFKA_STORAGE_ERROR for each of them. It needs
 * ALTER on the cluster: without it every named user gets CLUSTER_AUTHORIZATION_FAILED.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { credentialFromSaltedPassword, scramMechanismOfType } from '../../protocol/sasl/scram.js';
import type {
  AlterUserScramCredentialsRequestData, AlterUserScramCredentialsResponseData, AlterUserScramCredentialsResult,
  ScramCredentialDeletion, ScramCredentialUpsertion,
} from '../../protocol/messages/alter-user-scram-credentials.js';
import type { CredentialChange } from '../sasl/credential-store.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

interface ApiError { readonly code: number; readonly message: string }

const DUPLICATE: ApiError = { code: ErrorCode.DUPLICATE_RESOURCE, message: 'A user credential cannot be altered twice in the same request' };

function validateUpsertion(u: ScramCredentialUpsertion): ApiError | null {
  if (u.name === '') return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Username must not be empty' };
  const m = scramMechanismOfType(u.mechanism);
  if (m === undefined) return { code: ErrorCode.UNSUPPORTED_SASL_MECHANISM, message: 'Unknown SCRAM mechanism' };
  if (u.iterations < m.minIterations) return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Too few iterations' };
  if (u.iterations > m.maxIterations) return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Too many iterations' };
  if (u.salt.length === 0) return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Salt must not be empty' };
  if (u.saltedPassword.length === 0) return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'SaltedPassword must not be empty' };
  return null;
}

export const alterUserScramCredentialsHandler = defineHandler<AlterUserScramCredentialsRequestData, AlterUserScramCredentialsResponseData>({
  api: Api.AlterUserScramCredentials,
  authorization: authorizes({ CLUSTER: ['ALTER'] }),
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, request) {
    if (!authorizeCluster(ctx, AclOperation.ALTER)) {
      const refused = (user: string): AlterUserScramCredentialsResult => ({ user, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null });
      return { throttleTimeMs: 0, results: [...request.deletions.map((d) => refused(d.name)), ...request.upsertions.map((u) => refused(u.name))] };
    }
    const store = ctx.broker.credentials;
    // Insertion-ordered, as the results list them: deletions, upsertions, then refusals.
    const deletions = new Map<string, ScramCredentialDeletion>();
    const upsertions = new Map<string, ScramCredentialUpsertion>();
    const errors = new Map<string, ApiError>();
    for (const d of request.deletions) {
      if (errors.has(d.name)) continue;
      if (deletions.delete(d.name)) {
        errors.set(d.name, DUPLICATE);
        continue;
      }
      const m = scramMechanismOfType(d.mechanism);
      if (d.name === '') errors.set(d.name, { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Username must not be empty' });
      else if (m === undefined) errors.set(d.name, { code: ErrorCode.UNSUPPORTED_SASL_MECHANISM, message: 'Unknown SCRAM mechanism' });
      else if (store.scram(d.name, m.name) === undefined) errors.set(d.name, { code: ErrorCode.RESOURCE_NOT_FOUND, message: 'Attempt to delete a user credential that does not exist' });
      else deletions.set(d.name, d);
    }
    for (const u of request.upsertions) {
      if (errors.has(u.name)) continue;
      if (deletions.delete(u.name) || upsertions.delete(u.name)) {
        errors.set(u.name, DUPLICATE);
        continue;
      }
      const error = validateUpsertion(u);
      if (error !== null) errors.set(u.name, error);
      else upsertions.set(u.name, u);
    }
    const changes: CredentialChange[] = [];
    for (const d of deletions.values()) changes.push({ op: 'deleteScram', user: d.name, mechanism: scramMechanismOfType(d.mechanism)!.name });
    for (const u of upsertions.values()) {
      const m = scramMechanismOfType(u.mechanism)!;
      changes.push({ op: 'upsertScram', user: u.name, mechanism: m.name, credential: credentialFromSaltedPassword(m, u.saltedPassword, u.salt, u.iterations) });
    }
    let writeError: ApiError | null = null;
    if (changes.length > 0) {
      try {
        store.apply(changes);
        ctx.broker.log.info('SCRAM credentials altered', { deleted: [...deletions.keys()].join(','), upserted: [...upsertions.keys()].join(',') });
      } catch (err) {
        ctx.broker.log.error('SCRAM credentials not altered: the credential store could not be written', { err });
        writeError = { code: ErrorCode.KAFKA_STORAGE_ERROR, message: `The credentials could not be stored: ${(err as Error).message}` };
      }
    }
    const ok = (user: string): AlterUserScramCredentialsResult => (writeError === null
      ? { user, errorCode: ErrorCode.NONE, errorMessage: null }
      : { user, errorCode: writeError.code, errorMessage: writeError.message });
    const results: AlterUserScramCredentialsResult[] = [
      ...[...deletions.keys()].map(ok),
      ...[...upsertions.keys()].map(ok),
      ...[...errors].map(([user, e]) => ({ user, errorCode: e.code, errorMessage: e.message })),
    ];
    return { throttleTimeMs: 0, results };
  },
});
