/**
 * `brook groups describe GROUP` of a streams group (KIP-1071): `kafka-streams-groups
 * --describe`'s views (offsets, `--members`, `--state`, each with `--verbose`) under a line
 * with the group's state and epochs and a line with its topology's status.
 */
import type { CommandContext } from '../command.js';
import { withAdmin } from '../admin-session.js';
import { toJson } from '../format.js';
import { connectionFrom } from '../options.js';
import {
  streamsDescribeJson, streamsGroupOrNull, streamsGroupView, streamsMemberJson, streamsMembersTable, streamsOffsetsTable, streamsStateJson,
  streamsStateLine, streamsStateTable, topologyLine, type StreamsGroupView,
} from '../streams-group-views.js';

export interface StreamsDescribeValues {
  readonly members?: boolean | undefined;
  readonly state?: boolean | undefined;
  readonly verbose?: boolean | undefined;
  readonly json?: boolean | undefined;
}

/**
 * Describes GROUP as a streams group; throws `notFound` when it is none (so that the caller's
 * "does not exist" stands for every group type).
 */
export async function describeStreamsGroup(
  group: string, values: StreamsDescribeValues & Parameters<typeof connectionFrom>[0], context: CommandContext, notFound: Error,
): Promise<number> {
  const view = await withAdmin(connectionFrom(values), context.interrupted, async (admin): Promise<StreamsGroupView> => {
    const d = await streamsGroupOrNull(admin, group);
    if (d === null) throw notFound;
    return values.members || values.state ? { description: d, offsets: [], topology: { missingSourceTopics: [], missingInternalTopics: [] } } : streamsGroupView(admin, d);
  });
  const d = view.description;
  const verbose = values.verbose ?? false;
  if (values.json) {
    const json = values.members ? { group: d.group, state: d.state, members: streamsMemberJson(d) }
      : values.state ? streamsStateJson(d) : streamsDescribeJson(view);
    process.stdout.write(`${toJson(json)}\n`);
    return 0;
  }
  // Kafka's tool says so for an Empty streams group, before any table.
  if (d.state === 'Empty') process.stderr.write(`Streams group '${d.group}' has no active members.\n`);
  if (values.members || values.state) {
    process.stdout.write(`\n${values.members ? streamsMembersTable(d, verbose) : streamsStateTable(d, verbose)}\n`);
    return 0;
  }
  const table = view.offsets.length > 0 ? `\n${streamsOffsetsTable(view, verbose)}\n` : '';
  const members = d.members.length > 0 ? `\n${streamsMembersTable(d, verbose)}\n` : '';
  process.stdout.write(`${streamsStateLine(view)}\n${topologyLine(view)}\n${table}${members}`);
  return 0;
}
