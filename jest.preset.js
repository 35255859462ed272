// Shared jest set-up: TypeScript through swc (fast, no type check; `typecheck` does that),
// workspace packages resolved to their sources through the "development" export condition.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['development', 'node', 'require', 'default'] },
  transform: {
    '^.+\\.(t|j|mj)sx?$': [
      require.resolve('@swc/jest'),
      { jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  // ESM-only dependencies are compiled to CommonJS for jest; everything else in node_modules is left alone.
  transformIgnorePatterns: ['/node_modules/(?!(\\.pnpm/)?(jose|oauth2-mock-server|eventsource-parser)[@/])'],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
  testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  // Integration tests start real servers and databases; a loaded 2-core CI machine needs headroom.
  testTimeout: 30_000,
  // A test that fails half-way can leave a child process's pipe open; the run must still end (CI).
  forceExit: true,
};
module.exports.reporters = ['default', require('node:path').join(__dirname, 'tools/jest-count-reporter.js')];
