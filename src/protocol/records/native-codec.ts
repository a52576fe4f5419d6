/**
 * The native codec packages (zstd-napi, lz4-napi, snappy) are loaded on first use, not
 * when the module graph loads: an application that never meets a zstd, lz4 or snappy
 * batch never loads (or needs) their binaries. Decoding is synchronous, so they are
 * required synchronously (createRequire), once, and cached.
 */
import { createRequire } from 'node:module';

const requireFromHere = createRequire(import.meta.url);

/** A getter that requires `specifier` the first time it is called. */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireFromHere(specifier) as T);
}
