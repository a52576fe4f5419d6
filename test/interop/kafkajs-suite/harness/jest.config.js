// Jest's configuration in the run directory (harness/run.mjs assembles it: vendor/ and
// shims/ overlaid, node_modules from the lockfile, brook/kafkajs bundled to CommonJS).
const { createRequire } = require('module')
const path = require('path')

const brookRoot = process.env.BROOK_ROOT
const fromBrook = createRequire(path.join(brookRoot, 'package.json'))

module.exports = {
  rootDir: path.resolve(__dirname, '..'),
  testEnvironment: 'node',
  testRunner: 'jest-circus/runner',
  // KafkaJS's own pattern.
  testRegex: '(/__tests__/.*\\.spec\\.js|(\\.|/)spec)\\.jsx?$',
  testPathIgnorePatterns: ['/node_modules/'],
  moduleNameMapper: {
    '^testHelpers$': '<rootDir>/testHelpers/index.js',
    '^brook/kafkajs$': '<rootDir>/.brook/kafkajs.cjs',
    // The bundle leaves packages external; this one is Brook's dependency, not the harness's.
    '^@node-rs/crc32$': fromBrook.resolve('@node-rs/crc32'),
  },
  setupFilesAfterEnv: ['<rootDir>/testHelpers/setup.js'],
  globalSetup: '<rootDir>/harness/global-setup.mjs',
  globalTeardown: '<rootDir>/harness/global-teardown.mjs',
  // KafkaJS's snapshots were written by Jest 25.
  snapshotFormat: { escapeString: true, printBasicPrototype: true },
  // Plain CommonJS: no Babel (the specs use no jest.mock hoisting).
  transform: {},
  watchman: false,
  bail: false,
}
