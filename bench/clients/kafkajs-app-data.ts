/**
 * The messages of the kafkajs scenario's application (kafkajs-app.ts): keyed (`user-N`, 10,000
 * keys, so partitions fill unevenly, as keyed data does), JSON text values of about
 * `valueBytes` with pseudo-random bodies (gzip compresses them about 1.3:1, as text does,
 * not 100:1 as a run of one character would). The scenario loads its consume topics with the
 * same messages.
 */

const CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ';

/** Deterministic text, so that every run (and both clients) writes the same bytes. */
function pseudoText(length: number, seed: number): string {
  let x = (seed * 2654435761) >>> 0 || 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    out += CHARS[x % CHARS.length];
  }
  return out;
}

/** Message `i` of a run: a function over a pool of 64 bodies, so building one costs little and the same for both clients. */
export function appMessages(valueBytes: number): (i: number) => { key: string; value: string } {
  const bodies = Array.from({ length: 64 }, (_, i) => pseudoText(Math.max(0, valueBytes - 45), i + 1));
  return (i) => ({ key: `user-${i % 10_000}`, value: JSON.stringify({ id: i, at: 1_700_000_000_000 + i, body: bodies[i % bodies.length] }) });
}
