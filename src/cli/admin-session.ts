/** The CLI's admin client: one per command run, closed when the work is done; an interrupt aborts its calls. */
import { Admin } from '../client/admin/index.js';
import type { ClientConnectionOptions } from './options.js';

export async function withAdmin<T>(connection: ClientConnectionOptions, interrupted: AbortSignal, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = await Admin.connect({ ...connection, clientId: 'brook-cli', signal: interrupted });
  try {
    return await work(admin);
  } finally {
    admin.close();
  }
}
