/**
 * The groups' own configs (Kafka keeps them in its controller's metadata log): with a data
 * directory, the file `group-configs.json` there; without one, in memory. As the ACLs
 * (../authorizer/acl-store.ts), a change writes the whole set to a temporary file, fsyncs
 * it, renames it over the old one and fsyncs the directory, and only then is it what
 * `get` returns: a client told its change was made finds it after a restart, and a failed
 * write changes nothing. Changes are applied one at a time, in the order they arrive.
 */
import { join } from 'node:path';
import { readIfExists, writeAtomic, type FileSystem } from '../../storage/index.js';

export const GROUP_CONFIG_FILE = 'group-configs.json';
const FORMAT_VERSION = 1;

export type GroupConfigs = Readonly<Record<string, string>>;

const NONE: GroupConfigs = Object.freeze({});

export class GroupConfigStore {
  private readonly groups = new Map<string, GroupConfigs>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners: ((groupId: string) => void)[] = [];

  private constructor(private readonly path: string | null, private readonly fs: FileSystem) {}

  /** Opens the store, reading `group-configs.json` from `dataDir` (none: in memory only). */
  static open(dataDir: string | null, fs: FileSystem): GroupConfigStore {
    const store = new GroupConfigStore(dataDir === null ? null : join(dataDir, GROUP_CONFIG_FILE), fs);
    if (store.path !== null) {
      const bytes = readIfExists(fs, store.path);
      if (bytes !== null) for (const [groupId, configs] of parseFile(bytes.toString('utf8'), store.path)) store.groups.set(groupId, configs);
    }
    return store;
  }

  /** The group's configs as set (none: every one is the broker's). */
  get(groupId: string): GroupConfigs {
    return this.groups.get(groupId) ?? NONE;
  }

  /** Every group with configs of its own, and its configs. */
  entries(): [string, GroupConfigs][] {
    return [...this.groups];
  }

  /** Called after each change that took effect. */
  onChange(listener: (groupId: string) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Replaces the group's configs once they are durable. `change` runs against the configs
   * as they are when its turn comes (so that changes made meanwhile count), and gives the
   * new configs or the error to answer with. Resolves to that error, or null when done.
   */
  alter<E>(
    groupId: string, change: (current: GroupConfigs) => { readonly configs: GroupConfigs } | { readonly error: E },
    validateOnly: boolean, writeFailed: (message: string) => E,
  ): Promise<E | null> {
    return this.serialized(async () => {
      const outcome = change(this.get(groupId));
      if ('error' in outcome) return outcome.error;
      if (validateOnly) return null;
      const { configs } = outcome;
      const all = new Map(this.groups);
      if (Object.keys(configs).length === 0) all.delete(groupId);
      else all.set(groupId, Object.freeze({ ...configs }));
      if (this.path !== null) {
        try {
          await writeAtomic(this.fs, this.path, formatFile(all));
        } catch (err) {
          return writeFailed(`cannot write ${GROUP_CONFIG_FILE}: ${(err as Error).message}`);
        }
      }
      if (all.has(groupId)) this.groups.set(groupId, all.get(groupId)!);
      else this.groups.delete(groupId);
      for (const l of this.listeners) l(groupId);
      return null;
    });
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function formatFile(groups: ReadonlyMap<string, GroupConfigs>): string {
  const lines = [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([g, c]) => `${JSON.stringify(g)}:${JSON.stringify(c)}`);
  return `{"version":${FORMAT_VERSION},"groups":{\n${lines.join(',\n')}\n}}\n`;
}

function parseFile(text: string, path: string): [string, GroupConfigs][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  const file = parsed as { version?: unknown; groups?: unknown };
  if (file.version !== FORMAT_VERSION || typeof file.groups !== 'object' || file.groups === null) {
    throw new Error(`${path}: unknown format (version ${String(file.version)})`);
  }
  return Object.entries(file.groups as Record<string, unknown>).map(([groupId, configs]) => {
    const ok = typeof configs === 'object' && configs !== null && Object.values(configs).every((v) => typeof v === 'string');
    if (!ok) throw new Error(`${path}: malformed configs of group ${JSON.stringify(groupId)}`);
    return [groupId, Object.freeze({ ...(configs as Record<string, string>) })];
  });
}
