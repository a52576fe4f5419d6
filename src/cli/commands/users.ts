/**
 * `brook users add|list|delete`: a broker's SASL users. Two modes:
 * - `--data-dir DIR`: offline, in a stopped broker's data directory (refused while a broker
 *   holds it), as Kafka's `kafka-storage format --add-scram` bootstraps the first users.
 *   SCRAM and PLAIN users.
 * - `-b HOST:PORT [--command-config FILE]`: online, through AlterUserScramCredentials and
 *   DescribeUserScramCredentials, as `kafka-configs --entity-type users` does. SCRAM users
 *   only: Kafka has no API for PLAIN users.
 */
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { withAdmin } from '../admin-session.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';
import { DEFAULT_SCRAM_ITERATIONS, type UserScramCredentialsDescription } from '../../client/admin/index.js';
import { scramMechanism, SCRAM_MECHANISMS, saltedPasswordAsync, credentialFromSaltedPassword, type ScramMechanismName } from '../../protocol/sasl/scram.js';
import { withOfflineCredentials } from '../../broker/sasl/offline-credentials.js';
import { plainCredential } from '../../broker/sasl/plain-password.js';
import type { CredentialChange } from '../../broker/sasl/credential-store.js';
import { randomBytes } from 'node:crypto';

export const USERS_HELP = `Usage:
  brook users add NAME --mechanism SCRAM-SHA-256|SCRAM-SHA-512|PLAIN --password P [--iterations N]
                  (--data-dir DIR | -b HOST:PORT [--command-config FILE])
  brook users list [--json] (--data-dir DIR | -b HOST:PORT [--command-config FILE])
  brook users delete NAME [--mechanism M] (--data-dir DIR | -b HOST:PORT [--command-config FILE])

A broker's SASL users. --data-dir works on a stopped broker's data directory (refused while a
broker runs there): SCRAM and PLAIN users. -b works online through Kafka's
AlterUserScramCredentials and DescribeUserScramCredentials: SCRAM users only. add replaces the
user's credential for that mechanism; delete without --mechanism removes every one of them.

Options:
  --data-dir DIR                           a stopped broker's data directory
  -b, --bootstrap-server HOST:PORT[,...]   a running broker
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*, sasl.*)
  --mechanism M                            SCRAM-SHA-256, SCRAM-SHA-512 or PLAIN
  --password P                             the user's password
  --iterations N                           SCRAM iterations, 4096..16384 (default 4096)
  --json                                   list: one JSON array
  -h, --help                               show this help`;

export const USERS_OPTIONS = {
  ...BOOTSTRAP_OPTIONS,
  'data-dir': { type: 'string' },
  mechanism: { type: 'string' },
  password: { type: 'string' },
  iterations: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Mechanism = ScramMechanismName | 'PLAIN';

interface UserListing {
  readonly user: string;
  readonly credentials: readonly { readonly mechanism: Mechanism; readonly iterations: number | null }[];
}

function mechanismFrom(value: string | undefined, required: boolean): Mechanism | undefined {
  if (value === undefined) {
    if (required) throw new UsageError('--mechanism is required (SCRAM-SHA-256, SCRAM-SHA-512 or PLAIN)');
    return undefined;
  }
  const name = value.toUpperCase();
  if (name === 'PLAIN' || scramMechanism(name) !== undefined) return name as Mechanism;
  throw new UsageError(`unknown --mechanism ${value} (SCRAM-SHA-256, SCRAM-SHA-512 or PLAIN)`);
}

function iterationsFrom(value: string | undefined): number {
  if (value === undefined) return DEFAULT_SCRAM_ITERATIONS;
  if (!/^\d+$/.test(value)) throw new UsageError(`--iterations needs a number, got '${value}'`);
  return Number(value);
}

function listingLines(users: readonly UserListing[]): string {
  return users.map((u) => `${u.user}\t${u.credentials.map((c) => (c.iterations === null ? c.mechanism : `${c.mechanism}=iterations=${c.iterations}`)).join(', ')}\n`).join('');
}

async function offline(action: string, name: string | undefined, values: Values): Promise<number> {
  const dataDir = values['data-dir']!;
  return withOfflineCredentials(dataDir, async (store) => {
    if (action === 'list') {
      const users: UserListing[] = store.list().map(([user, c]) => ({
        user,
        credentials: [
          ...SCRAM_MECHANISMS.filter((m) => c.scram.has(m.name)).map((m) => ({ mechanism: m.name, iterations: c.scram.get(m.name)!.iterations })),
          ...(c.plain !== null ? [{ mechanism: 'PLAIN' as const, iterations: null }] : []),
        ],
      }));
      process.stdout.write(values.json ? `${JSON.stringify(users)}\n` : listingLines(users));
      return 0;
    }
    const user = name!;
    const mechanism = mechanismFrom(values.mechanism, action === 'add');
    if (action === 'add') {
      const password = values.password!;
      let change: CredentialChange;
      if (mechanism === 'PLAIN') {
        change = { op: 'setPlain', user, credential: await plainCredential(password) };
      } else {
        const m = scramMechanism(mechanism!)!;
        const iterations = iterationsFrom(values.iterations);
        // Kafka's bounds, as AlterUserScramCredentials enforces them.
        if (iterations < m.minIterations || iterations > m.maxIterations) throw new UsageError(`--iterations must be between ${m.minIterations} and ${m.maxIterations}`);
        const salt = randomBytes(32);
        change = { op: 'upsertScram', user, mechanism: m.name, credential: credentialFromSaltedPassword(m, await saltedPasswordAsync(m, password, salt, iterations), salt, iterations) };
      }
      store.apply([change]);
      process.stdout.write(`Added ${mechanism} credential for user ${user} in ${dataDir}.\n`);
      return 0;
    }
    const current = store.list().find(([u]) => u === user)?.[1];
    const has = (m: Mechanism): boolean => (m === 'PLAIN' ? current?.plain != null : current?.scram.has(m) === true);
    const targets = mechanism !== undefined ? [mechanism] : (['SCRAM-SHA-256', 'SCRAM-SHA-512', 'PLAIN'] as const).filter(has);
    if (targets.length === 0 || !targets.every(has)) throw new Error(`user ${user} has no ${mechanism ?? 'SASL'} credential in ${dataDir}`);
    store.apply(targets.map((m): CredentialChange => (m === 'PLAIN' ? { op: 'deletePlain', user } : { op: 'deleteScram', user, mechanism: m })));
    process.stdout.write(`Deleted ${targets.join(', ')} credential${targets.length > 1 ? 's' : ''} of user ${user} in ${dataDir}.\n`);
    return 0;
  });
}

async function online(action: string, name: string | undefined, values: Values, interrupted: AbortSignal): Promise<number> {
  const mechanism = mechanismFrom(values.mechanism, action === 'add');
  if (mechanism === 'PLAIN') throw new UsageError('PLAIN users are managed offline (--data-dir): Kafka has no API for them');
  return withAdmin(connectionFrom(values), interrupted, async (admin) => {
    if (action === 'list') {
      const described: UserScramCredentialsDescription[] = await admin.describeUserScramCredentials();
      const users: UserListing[] = described.map((d) => ({ user: d.user, credentials: d.credentials }))
        .sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : 0));
      process.stdout.write(values.json ? `${JSON.stringify(users)}\n` : listingLines(users));
      return 0;
    }
    const user = name!;
    if (action === 'add') {
      await admin.alterUserScramCredentials([{ op: 'upsert', user, mechanism: mechanism as ScramMechanismName, password: values.password!, iterations: iterationsFrom(values.iterations) }]);
      process.stdout.write(`Added ${mechanism} credential for user ${user}.\n`);
      return 0;
    }
    const targets = mechanism !== undefined
      ? [mechanism as ScramMechanismName]
      : (await admin.describeUserScramCredentials([user]))[0]!.credentials.map((c) => c.mechanism);
    await admin.alterUserScramCredentials(targets.map((m) => ({ op: 'delete' as const, user, mechanism: m })));
    process.stdout.write(`Deleted ${targets.join(', ')} credential${targets.length > 1 ? 's' : ''} of user ${user}.\n`);
    return 0;
  });
}

type Values = ReturnType<typeof parse>['values'];

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, options: USERS_OPTIONS });
}

export const usersCommand: Command = {
  name: 'users',
  gracefulStopMs: 5_000,
  async run(args, context) {
    const { values, positionals } = parse(args);
    const [action, name, extra] = positionals;
    if (values.help || action === undefined) {
      process.stdout.write(`${USERS_HELP}\n`);
      return values.help ? 0 : 2;
    }
    if (action !== 'add' && action !== 'list' && action !== 'delete') throw new UsageError(`unknown users action '${action}' (add, list, delete)`);
    if (action === 'list' ? name !== undefined : extra !== undefined) throw new UsageError(`unexpected argument '${action === 'list' ? name : extra}'`);
    if (action !== 'list' && (name === undefined || name === '')) throw new UsageError(`users ${action} needs a user NAME`);
    if (action === 'add' && values.password === undefined) throw new UsageError('users add needs --password');
    if (action !== 'add' && (values.password !== undefined || values.iterations !== undefined)) throw new UsageError('--password and --iterations belong to users add');
    const offlineMode = values['data-dir'] !== undefined;
    if (offlineMode && (values['bootstrap-server'] !== undefined || values['command-config'] !== undefined)) {
      throw new UsageError('give either --data-dir (a stopped broker) or -b/--bootstrap-server (a running one), not both');
    }
    if (!offlineMode && values['bootstrap-server'] === undefined) throw new UsageError('give --data-dir DIR (a stopped broker) or -b HOST:PORT (a running one)');
    return offlineMode ? offline(action, name, values) : online(action, name, values, context.interrupted);
  },
};
