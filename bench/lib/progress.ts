/**
 * Progress on stderr while a benchmark runs (stdout carries only the result tables), with
 * the time since the run started, so a slow step is visible.
 */
const started = performance.now();
let quiet = false;

export function setQuiet(value: boolean): void {
  quiet = value;
}

export function progress(message: string): void {
  if (quiet) return;
  const s = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${s}s] ${message}\n`);
}
