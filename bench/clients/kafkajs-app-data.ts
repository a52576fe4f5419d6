/**
 * The messages of the kafkajs scenario's application (kafkajs-app.ts): keyed (`user-N`, 10,000
 * keys, so partitions fill unevenly, as keyed data does), JSON text values of about
 * `valueBytes` whose bodies are slices of 1 MiB of pseudo-random text, so that gzip finds
 * no repeats between nearby messages and compresses them about 1.4:1, as it does text of
 * that alphabet (a pool of a few bodies would repeat inside gzip's 32 KiB window and compress
 * 15:1). The scenario loads its consume topics with the same messages.
 */

const CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ';
const TEXT_BYTES = 1 << 20;

/** Deterministic text (xorshift32), so that every run and both clients write the same bytes. */
function pseudoText(length: number): string {
  const out = Buffer.allocUnsafe(length);
  let x = 2463534242;
  for (let i = 0; i < length; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    out[i] = CHARS.charCodeAt(x % CHARS.length);
  }
  return out.toString('latin1');
}

/** Message `i` of a run; building one costs the application little, and the same for both clients. */
export function appMessages(valueBytes: number): (i: number) => { key: string; value: string } {
  const text = pseudoText(TEXT_BYTES);
  const body = Math.max(0, valueBytes - 45);
  // Consecutive messages take slices far apart in the text.
  return (i) => {
    const at = (i * 7_919 * 61) % (TEXT_BYTES - body);
    return { key: `user-${i % 10_000}`, value: JSON.stringify({ id: i, at: 1_700_000_000_000 + i, body: text.slice(at, at + body) }) };
  };
}
