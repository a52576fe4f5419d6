/**
 * `brook groups list|describe|lag|reset-offsets|delete-offsets|delete`: what `kafka-consumer-groups.sh` does,
 * over the admin client; `brook groups timeline`: the broker's flight recorder of a group's
 * rebalances. Each action lives in its own groups-*.ts file.
 */
import type { Command, CommandContext } from '../command.js';
import { UsageError } from '../options.js';
import { groupsList } from './groups-list.js';
import { groupsDescribe } from './groups-describe.js';
import { groupsResetOffsets } from './groups-reset.js';
import { groupsDelete } from './groups-delete.js';
import { groupsDeleteOffsets } from './groups-delete-offsets.js';
import { groupsLag } from './groups-lag.js';
import { groupsTimeline } from './groups-timeline.js';

export const GROUPS_HELP = `Usage:
  brook groups list [--type classic|consumer|share|streams] [--state STATE] [--json]
  brook groups describe GROUP [--offsets | --members | --state] [--verbose] [--json]
  brook groups lag [GROUP] [--watch [--interval S]] [--json]
  brook groups reset-offsets GROUP (--topic T[:P,P...] ... | --all-topics)
      (--to-earliest | --to-latest | --to-offset N | --shift-by N | --to-datetime ISO8601
       | --by-duration PnDTnHnMnS | --to-current | --from-file CSV) [--execute] [--export]
  brook groups delete-offsets GROUP --topic T[:P,P...] ...
  brook groups delete GROUP
  brook groups timeline GROUP [--json] [--since DURATION|TIME] [--follow]

Common options:
  -b, --bootstrap-server HOST:PORT[,...]   broker(s) to contact (default localhost:9092)
  --command-config FILE                    Kafka client properties (security.protocol, ssl.*)
  -h, --help                               show help (also per action: brook groups describe --help)`;

const ACTIONS: Record<string, (args: string[], context: CommandContext) => Promise<number>> = {
  list: groupsList,
  describe: groupsDescribe,
  'reset-offsets': groupsResetOffsets,
  delete: groupsDelete,
  'delete-offsets': groupsDeleteOffsets,
  lag: groupsLag,
  timeline: groupsTimeline,
};

export const groupsCommand: Command = {
  name: 'groups',
  gracefulStopMs: 5_000,
  async run(args, context) {
    const [action, ...rest] = args;
    if (action === undefined || action === '--help' || action === '-h' || action === 'help') {
      process.stdout.write(`${GROUPS_HELP}\n`);
      return action === undefined ? 2 : 0;
    }
    const run = ACTIONS[action];
    if (!run) throw new UsageError(`unknown groups action '${action}' (${Object.keys(ACTIONS).join(', ')})`);
    return run(rest, context);
  },
};
