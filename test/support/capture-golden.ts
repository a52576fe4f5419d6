/**
 * Refreshes test/fixtures/golden from live clients:
 *   node dist/test/support/capture-golden.js kcat kafkajs java
 */
import { startCaptureServer } from './capture-server.js';
import { captureKafkaJs, captureKcat, captureJava } from './capture-clients.js';
import { writeGolden } from './golden.js';
import { javaCommand } from './java-oracle.js';

const drivers: Record<string, (s: Awaited<ReturnType<typeof startCaptureServer>>) => Promise<void>> = {
  kcat: captureKcat,
  kafkajs: captureKafkaJs,
  java: (s) => captureJava(s, javaCommand('brook.conformance.ClientTraffic')),
};

for (const client of process.argv.slice(2)) {
  const driver = drivers[client];
  if (!driver) throw new Error(`unknown client ${client}`);
  const server = await startCaptureServer();
  await driver(server);
  await server.close();
  writeGolden(client, server.frames);
  const apis = [...new Set(server.frames.map((f) => `${f.apiName} v${f.apiVersion}`))];
  console.log(`${client}: ${server.frames.length} frames; ${apis.join(', ')}`);
}
