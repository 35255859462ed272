// Writes a package's pass/fail counts to <package>/.test-results/counts.json so scripts/test.sh can
// print one total line for the whole repository.
const fs = require('node:fs');
const path = require('node:path');

class CountReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }
  onRunComplete(_contexts, results) {
    const dir = path.join(this.rootDir, '.test-results');
    fs.mkdirSync(dir, { recursive: true });
    const counts = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
    };
    fs.writeFileSync(path.join(dir, 'counts.json'), JSON.stringify(counts));
  }
}
module.exports = CountReporter;
