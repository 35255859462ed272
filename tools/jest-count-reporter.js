// Writes a package's pass/fail counts to <package>/.test-results/counts.json so scripts/test.sh can
// print one total line for the whole repository. It also turns a jest that does not exit (a handle a
// test leaked keeps it alive: on a 2-core machine every test runs in jest's own process) into a failure
// that names the handles, instead of a CI run that waits until it is killed.
const fs = require('node:fs');
const path = require('node:path');

/** How long jest may take to exit once its run is complete; far above a clean exit's few seconds. */
const EXIT_GRACE_MS = Number(process.env.JEST_EXIT_GRACE_MS ?? 120_000);

class CountReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }
  onRunComplete(_contexts, results) {
    const counts = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
    };
    this.write(counts);
    this.writeDurations(results.testResults);
    setTimeout(() => this.failUnexited(counts), EXIT_GRACE_MS).unref();
  }
  write(counts) {
    const dir = path.join(this.rootDir, '.test-results');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'counts.json'), JSON.stringify(counts));
  }
  /** Seconds each test file took, slowest first: where to look when the suite grows slow. */
  writeDurations(fileResults) {
    const durations = fileResults
      .map((file) => ({
        file: path.relative(this.rootDir, file.testFilePath),
        seconds: Math.round((file.perfStats.end - file.perfStats.start) / 100) / 10,
      }))
      .sort((a, b) => b.seconds - a.seconds);
    fs.writeFileSync(path.join(this.rootDir, '.test-results', 'durations.json'), JSON.stringify(durations, null, 1));
  }
  failUnexited(counts) {
    const handles = process._getActiveHandles().map(describeHandle);
    const seconds = EXIT_GRACE_MS / 1000;
    process.stderr.write(
      `\njest did not exit ${seconds} s after its run in ${this.rootDir}: a test leaked these handles:\n` +
        handles.map((h) => `  - ${h}\n`).join(''),
    );
    this.write({ ...counts, failed: counts.failed + 1, unexited: handles });
    process.exit(1);
  }
}

/** One line naming a live handle: its kind and what identifies it (addresses, pid, timer callback). */
function describeHandle(handle) {
  const kind = handle?.constructor?.name ?? typeof handle;
  if (handle === process.stdout || handle === process.stderr || handle === process.stdin) return `${kind} (stdio)`;
  if (typeof handle.pid === 'number')
    return `${kind} pid ${handle.pid} ${handle.spawnfile ?? ''} ${handle.spawnargs?.join(' ') ?? ''}`;
  if (typeof handle.address === 'function' && handle.listening !== undefined)
    return `${kind} listening on ${JSON.stringify(handle.address())}`;
  if (handle.remoteAddress !== undefined || handle.localPort !== undefined)
    return `${kind} ${handle.localAddress}:${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}`;
  if (typeof handle._onTimeout === 'function')
    return `${kind} every/after ${handle._idleTimeout} ms: ${String(handle._onTimeout).slice(0, 160)}`;
  return kind;
}

module.exports = CountReporter;
