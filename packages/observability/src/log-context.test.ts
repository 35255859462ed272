import { ROOT_CONTEXT, context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import pino from 'pino';
import { childWithLogIds, currentLogIds, logIdsOptions, noteRunId, withLogIds } from './log-context';

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ ...logIdsOptions }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('log ids', () => {
  it('adds the request and run ids of the async context, across awaits, and none outside it', async () => {
    const { logger, lines } = capturingLogger();
    logger.info('before');
    await withLogIds({ request_id: 'req-1' }, async () => {
      await Promise.resolve();
      logger.info('in the request');
      noteRunId('wf-1');
      await new Promise<void>((resolve) => setImmediate(resolve));
      logger.info('about the run');
      noteRunId('wf-2'); // the first run a request names stays its run
      await withLogIds({ run_id: 'wf-3' }, async () => logger.info('nested'));
    });
    logger.info('after');
    expect(lines.map((l) => [l.msg, l.request_id, l.run_id])).toEqual([
      ['before', undefined, undefined],
      ['in the request', 'req-1', undefined],
      ['about the run', 'req-1', 'wf-1'],
      ['nested', 'req-1', 'wf-3'],
      ['after', undefined, undefined],
    ]);
    expect(currentLogIds()).toEqual({});
  });

  it('lets a field the call passes win and does not repeat what a child logger binds', () => {
    const { logger, lines } = capturingLogger();
    withLogIds({ request_id: 'req-1', run_id: 'wf-1' }, () => {
      logger.info({ run_id: 'explicit' }, 'explicit');
      const child = childWithLogIds(logger, { request_id: 'req-1' });
      child.info('child');
      child.child({ component: 'x' }).info('grandchild');
    });
    expect(lines[0]).toMatchObject({ run_id: 'explicit', request_id: 'req-1' });
    for (const line of lines.slice(1)) {
      expect(line).toMatchObject({ request_id: 'req-1', run_id: 'wf-1' });
      // one request_id key: a repeated key would show in the raw JSON text
      expect(JSON.stringify(line).match(/request_id/g)).toHaveLength(1);
    }
  });

  it('adds the trace and span ids of the active span', () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const { logger, lines } = capturingLogger();
      const spanContext = {
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: TraceFlags.SAMPLED,
      };
      context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () => logger.info('traced'));
      logger.info('untraced');
      expect(lines[0]).toMatchObject({ trace_id: spanContext.traceId, span_id: spanContext.spanId });
      expect(lines[1]).not.toHaveProperty('trace_id');
    } finally {
      context.disable();
    }
  });
});
