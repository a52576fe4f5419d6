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
