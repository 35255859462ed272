// Preloaded into the svc server by `ws-load.mjs --profile <dir>` (NODE_OPTIONS=--require): records a
// V8 CPU profile from start-up to exit (--cpu-prof itself is not allowed in NODE_OPTIONS).
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.SVC_CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.on('exit', () => {
    // The in-process inspector answers synchronously, so the profile is written before exit completes.
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, `svc-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
