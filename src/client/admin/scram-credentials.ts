/**
 * Users' SCRAM credentials: DescribeUserScramCredentials and AlterUserScramCredentials, as
 * Kafka's Admin.describeUserScramCredentials and alterUserScramCredentials. An upsertion
 * sends the salted password (Hi(password, salt, iterations), RFC 5802), never the password:
 * the client derives it, with a random salt, as Kafka's admin client does. A broker's
 * refusal of a user is thrown as KafkaProtocolError with its code and message.
 */
import { randomBytes } from 'node:crypto';
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { saltedPasswordAsync, scramMechanism, scramMechanismOfType, type ScramMechanismName } from '../../protocol/sasl/scram.js';
import type { AdminContext } from './requests.js';

export type { ScramMechanismName };

export interface ScramCredentialInfo {
  readonly mechanism: ScramMechanismName;
  readonly iterations: number;
}

export interface UserScramCredentialsDescription {
  readonly user: string;
  readonly credentials: readonly ScramCredentialInfo[];
}

export type UserScramCredentialAlteration =
  | { readonly op: 'upsert'; readonly user: string; readonly mechanism: ScramMechanismName; readonly password: string; readonly iterations?: number }
  | { readonly op: 'delete'; readonly user: string; readonly mechanism: ScramMechanismName };

/** Kafka's default iteration count (kafka-configs' `SCRAM-SHA-256=[password=...]` without `iterations=`). */
export const DEFAULT_SCRAM_ITERATIONS = 4096;

function mechanismOf(name: string): NonNullable<ReturnType<typeof scramMechanism>> {
  const m = scramMechanism(name);
  if (m === undefined) throw new KafkaProtocolError(ErrorCode.UNSUPPORTED_SASL_MECHANISM, `unknown SCRAM mechanism ${name}`);
  return m;
}

/** The named users' credentials (every SCRAM user when `users` is empty). */
export async function describeUserScramCredentials(ctx: AdminContext, users: readonly string[]): Promise<UserScramCredentialsDescription[]> {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  const response = await connection.request(Api.DescribeUserScramCredentials, { users: users.length === 0 ? null : users.map((name) => ({ name })) }, { signal: ctx.signal });
  if (response.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(response.errorCode, response.errorMessage ?? undefined);
  return response.results.map((r) => {
    if (r.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(r.errorCode, r.errorMessage ?? undefined);
    return {
      user: r.user,
      credentials: r.credentialInfos.flatMap((c) => {
        const m = scramMechanismOfType(c.mechanism);
        return m === undefined ? [] : [{ mechanism: m.name, iterations: c.iterations }];
      }),
    };
  });
}

/** Applies the alterations in one request; throws the first user's refusal. */
export async function alterUserScramCredentials(ctx: AdminContext, alterations: readonly UserScramCredentialAlteration[]): Promise<void> {
  const deletions = [];
  const upsertions = [];
  for (const a of alterations) {
    const m = mechanismOf(a.mechanism);
    if (a.op === 'delete') {
      deletions.push({ name: a.user, mechanism: m.type });
    } else {
      const iterations = a.iterations ?? DEFAULT_SCRAM_ITERATIONS;
      const salt = randomBytes(32);
      // Out of range: sent anyway, the broker refuses it with Kafka's UNACCEPTABLE_CREDENTIAL.
      const saltedPassword = iterations >= 1 ? await saltedPasswordAsync(m, a.password, salt, iterations) : Buffer.alloc(m.keyLength);
      upsertions.push({ name: a.user, mechanism: m.type, iterations, salt, saltedPassword });
    }
  }
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  const response = await connection.request(Api.AlterUserScramCredentials, { deletions, upsertions }, { signal: ctx.signal });
  for (const r of response.results) {
    if (r.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(r.errorCode, `${r.user}: ${r.errorMessage ?? ''}`);
  }
}
