/** Options and errors shared by the client commands. */
export class UsageError extends Error {
  readonly code = 'ERR_USAGE' as const;
}

export const BOOTSTRAP_OPTIONS = {
  'bootstrap-server': { type: 'string', short: 'b' },
} as const;

export function bootstrapFrom(values: { 'bootstrap-server'?: string }): string {
  return values['bootstrap-server'] ?? 'localhost:9092';
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
