// Plain ES modules: no transform, so Jest runs the files as Node would.
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/jest/**/*.test.js'],
  transform: {},
};
