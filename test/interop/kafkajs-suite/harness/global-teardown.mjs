/** Stops the broker global-setup.mjs started. */
export default async function globalTeardown() {
  const broker = globalThis.__kafkajsSuiteBroker
  globalThis.__kafkajsSuiteBroker = undefined
  if (broker) await broker.stop()
}
