/**
 * ISO-8601 durations as Java's Duration.parse reads them (PnDTnHnMn.nS, each part and the
 * whole optionally signed, days of 24 hours, letters in either case): Kafka's
 * share.auto.offset.reset=by_duration:<duration> is one.
 */
const DURATION = /^([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i;

/** The duration in milliseconds (fractions below a millisecond dropped), or null when it is not one. */
export function isoDurationMs(text: string): number | null {
  const m = DURATION.exec(text);
  if (m === null) return null;
  const [, sign, days, t, hours, minutes, seconds, fraction] = m;
  // "P" alone, or a "T" with nothing after it, is not a duration.
  if (days === undefined && t === undefined) return null;
  if (t !== undefined && hours === undefined && minutes === undefined && seconds === undefined) return null;
  const n = (s: string | undefined): number => (s === undefined ? 0 : Number(s));
  let ms = n(days) * 86_400_000 + n(hours) * 3_600_000 + n(minutes) * 60_000 + n(seconds) * 1000;
  if (fraction !== undefined && fraction !== '') {
    const frac = Number(fraction.padEnd(3, '0').slice(0, 3));
    ms += seconds!.startsWith('-') ? -frac : frac;
  }
  return sign === '-' ? -ms : ms;
}
