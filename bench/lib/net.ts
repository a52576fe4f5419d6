/**
 * Free ports and a raw loopback TCP throughput probe (the physical ceiling any broker on this
 * machine shares: one stream, 64 KiB writes, the receiver discarding).
 */
import { createServer, connect, type AddressInfo } from 'node:net';

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Bytes per second through one loopback TCP connection for about `durationMs`. */
export async function loopbackThroughput(durationMs: number): Promise<number> {
  let received = 0;
  const server = createServer((socket) => socket.on('data', (d: Buffer) => { received += d.length; }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const client = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => client.once('connect', resolve).once('error', reject));
  const chunk = Buffer.alloc(64 * 1024, 1);
  const start = performance.now();
  let stop = false;
  const timer = setTimeout(() => { stop = true; }, durationMs);
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      while (!stop) {
        if (!client.write(chunk)) {
          client.once('drain', pump);
          return;
        }
      }
      resolve();
    };
    pump();
  });
  clearTimeout(timer);
  const seconds = (performance.now() - start) / 1000;
  client.destroy();
  await new Promise((resolve) => server.close(resolve));
  return received / seconds;
}
