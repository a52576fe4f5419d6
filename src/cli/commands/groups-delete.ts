/** `brook groups delete GROUP`: DeleteGroups; only an Empty group can be deleted, as in Kafka. */
import type { CommandContext } from '../command.js';
import { parseArgs } from 'node:util';
import { withAdmin } from '../admin-session.js';
import { BrookError, ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { BOOTSTRAP_OPTIONS, connectionFrom, UsageError } from '../options.js';

class GroupNotEmptyError extends BrookError {
  readonly code = 'ERR_GROUP_NOT_EMPTY' as const;
}

export const GROUPS_DELETE_HELP = `Usage: brook groups delete GROUP [-b HOST:PORT]

Deletes the group and its committed offsets. Fails while the group has members.

  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  -h, --help                               show this help`;

export const GROUPS_DELETE_OPTIONS = { ...BOOTSTRAP_OPTIONS, help: { type: 'boolean', short: 'h' } } as const;

export async function groupsDelete(args: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: GROUPS_DELETE_OPTIONS });
  if (values.help) {
    process.stdout.write(`${GROUPS_DELETE_HELP}\n`);
    return 0;
  }
  const [group, extra] = positionals;
  if (!group || extra !== undefined) throw new UsageError('groups delete needs exactly one GROUP');
  try {
    await withAdmin(connectionFrom(values), context.interrupted, (admin) => admin.deleteGroup(group));
  } catch (err) {
    // Kafka's tool: "* Group 'G' could not be deleted due to: ...GroupNotEmptyException: The group is not empty."
    if (err instanceof KafkaProtocolError && err.errorCode === ErrorCode.NON_EMPTY_GROUP) {
      throw new GroupNotEmptyError(`Group '${group}' could not be deleted due to: NON_EMPTY_GROUP: The group is not empty.`, { cause: err });
    }
    throw err;
  }
  // Kafka's wording.
  process.stdout.write(`Deletion of requested consumer groups ('${group}') was successful.\n`);
  return 0;
}
