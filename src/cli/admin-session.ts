/** The CLI's admin client: one per command run, closed when the work is done; an interrupt aborts its calls. */
import { Admin } from '../client/admin/index.js';

export async function withAdmin<T>(bootstrap: string, interrupted: AbortSignal, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap, clientId: 'brook-cli', signal: interrupted });
  try {
    return await work(admin);
  } finally {
    admin.close();
  }
}
