/**
 * Sends `total` records in chunks of `chunk` with at most `inFlight` chunks outstanding: how
 * the in-process (Node) clients are driven for produce throughput, the same for each.
 */
export const NODE_PRODUCE_CHUNK = 1000;
export const NODE_PRODUCE_IN_FLIGHT = 4;

export async function sendWindowed(total: number, send: (from: number, count: number) => Promise<void>, chunk = NODE_PRODUCE_CHUNK, inFlight = NODE_PRODUCE_IN_FLIGHT): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      const from = next;
      const count = Math.min(chunk, total - from);
      next += count;
      await send(from, count);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}
