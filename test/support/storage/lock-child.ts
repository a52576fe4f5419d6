/**
 * Child process of the data-directory lock tests: waits (spinning, for a sharp start) until
 * the wall-clock time argv[3], opens the file storage of `<dataDir>` (argv[2]) and prints
 * "won" or "lost <error message>"; a winner keeps the directory open until its stdin ends,
 * then closes it and exits.
 */
import { openFileStorage } from '../../../src/storage/index.js';

const [dataDir, startAt] = [process.argv[2]!, Number(process.argv[3])];
while (Date.now() < startAt) { /* spin: every child starts its open in the same millisecond */ }
try {
  const storage = await openFileStorage(dataDir);
  process.stdout.write('won\n');
  process.stdin.resume();
  process.stdin.on('end', () => void storage.close().then(() => process.exit(0)));
} catch (err) {
  process.stdout.write(`lost ${(err as Error).message}\n`);
  process.exit(0);
}
