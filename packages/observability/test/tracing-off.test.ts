import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const packageDir = path.resolve(__dirname, '..');
const entry = path.join(packageDir, 'dist/index.js');

/**
 * Off by default and costless when off (decision 0051): the built package, started without any OTEL_*
 * variable, loads no SDK module (Node's own module cache, in a fresh process) and its spans are no-ops.
 */
describe('tracing off', () => {
  beforeAll(() => {
    // The built code is what runs here: a missing or stale build fails at once, naming the command.
    const sources = readdirSync(path.join(packageDir, 'src'), { recursive: true, encoding: 'utf8' });
    const newest = Math.max(...sources.map((file) => statSync(path.join(packageDir, 'src', file)).mtimeMs));
    const built = statSync(entry, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (built < newest) throw new Error(`${entry} is missing or stale: run \`pnpm --filter @svc/observability build\``);
  });

  it('loads only @opentelemetry/api and records nothing', () => {
    const script = `
      const { startTracing, sdkLoadCount, tracingActive, activeTraceIds, withSpan } = require(${JSON.stringify(entry)});
      const { trace } = require('@opentelemetry/api');
      (async () => {
        const tracing = await startTracing({ serviceName: 'probe', env: {} });
        let inside;
        await withSpan(trace.getTracer('probe'), 'work', {}, async (span) => {
          inside = { recording: span.isRecording(), ids: activeTraceIds() };
        });
        await tracing.shutdown();
        const otel = Object.keys(require.cache)
          .map((file) => /node_modules\\/(@opentelemetry\\/[^/]+)\\//.exec(file)?.[1])
          .filter(Boolean);
        console.log(JSON.stringify({
          enabled: tracing.enabled, loads: sdkLoadCount(), active: tracingActive(), inside, packages: [...new Set(otel)],
        }));
      })();
    `;
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
    const out = execFileSync(process.execPath, ['-e', script], { cwd: packageDir, env, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({
      enabled: false,
      loads: 0,
      active: false,
      inside: { recording: false, ids: {} },
      packages: ['@opentelemetry/api'],
    });
  });
});
