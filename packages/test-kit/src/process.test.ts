import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './poll';

const run = promisify(execFile);

describe('spawnProcess', () => {
  it('never keeps the test process alive, and a child left running is killed when it ends', async () => {
    // A script that starts a long child and forgets it, as a test that fails half-way does (the built
    // module: the test task builds the package first).
    const script = `
      const { spawnProcess } = require(${JSON.stringify(path.join(__dirname, '../dist/process.js'))});
      const sleeper = spawnProcess('sleeper', 'sleep', ['600'], { cwd: process.cwd(), env: process.env });
      console.log(sleeper.pid);
    `;
    const { stdout } = await run(process.execPath, ['--eval', script], { cwd: __dirname });
    const pid = Number(stdout.trim());
    expect(pid).toBeGreaterThan(0);
    // Killed on the parent's exit; gone (or a zombie, its exit not yet collected by whoever adopted it) soon after.
    const gone = () => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z';
      } catch {
        return true;
      }
    };
    await eventually(gone, { what: `the left-over child ${pid} to be killed` });
  });
});
