/** Every scenario the runner knows, in the order they run (scenario 6 is external: assignors-slot.ts). */
import type { Scenario } from '../lib/scenario.js';
import { brokerScenario } from './broker.js';
import { commitsScenario } from './commits.js';
import { commitsCleanerScenario } from './commits-cleaner.js';
import { consumeScenario } from './consume.js';
import { embeddedStartScenario } from './embedded-start.js';
import { testSuiteScenario } from './test-suite.js';
import { groupScenario } from './group.js';
import { groupsManyScenario } from './groups-many.js';
import { kafkajsScenario } from './kafkajs.js';
import { memoryScenario } from './memory.js';
import { produceScenario } from './produce.js';
import { rebalanceScenario } from './rebalance.js';
import { recorderScenario } from './recorder.js';
import { restartScenario } from './restart.js';
import { serverAssignorsScenario } from './server-assignors.js';
import { shareScenario } from './share.js';
import { streamsGroupsScenario } from './streams-groups.js';

export function allScenarios(): Scenario[] {
  return [consumeScenario, produceScenario, brokerScenario, groupScenario, groupsManyScenario, rebalanceScenario, serverAssignorsScenario, commitsScenario, commitsCleanerScenario, restartScenario, memoryScenario, embeddedStartScenario, testSuiteScenario, shareScenario, streamsGroupsScenario, recorderScenario, kafkajsScenario];
}
