/** Options and errors shared by the client commands. */
import { clientSecurityFromFile, type ClientSecurity } from './client-config.js';

export class UsageError extends Error {
  readonly code = 'ERR_USAGE' as const;
}

/** Where a client command connects, and how: every client command takes these. */
export const BOOTSTRAP_OPTIONS = {
  'bootstrap-server': { type: 'string', short: 'b' },
  'command-config': { type: 'string' },
} as const;

export function bootstrapFrom(values: { 'bootstrap-server'?: string }): string {
  return values['bootstrap-server'] ?? 'localhost:9092';
}

/** The client options of BOOTSTRAP_OPTIONS: the bootstrap servers and --command-config's security settings. */
export interface ClientConnectionOptions extends ClientSecurity {
  readonly bootstrapServers: string;
}

export function connectionFrom(values: { 'bootstrap-server'?: string; 'command-config'?: string }): ClientConnectionOptions {
  return { bootstrapServers: bootstrapFrom(values), ...clientSecurityFromFile(values['command-config']) };
}

/**
 * `--shift-by -2` → `--shift-by=-2`, for the options whose value may be a negative number
 * (node's parseArgs calls the first form ambiguous).
 */
export function joinNegativeValues(args: readonly string[], numericOptions: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const next = args[i + 1];
    if (numericOptions.has(args[i]!) && next !== undefined && /^-\d+$/.test(next)) {
      // `-o -2` → `-o-2` (a short option's value follows it directly).
      out.push(args[i]!.startsWith('--') ? `${args[i]}=${next}` : `${args[i]}${next}`);
      i++;
    } else {
      out.push(args[i]!);
    }
  }
  return out;
}
