import type { Logger } from 'pino';
import { startTracing, type OtelEnv, type Tracing } from '@svc/observability';

/**
 * Starts the API's tracing (decision 0051) and, when it is on, the Prisma instrumentation: every query
 * is a `prisma:client:operation` span with the engine's `prisma:engine:*` children (driver adapters
 * included), under the request or run span that made it. Off, neither the SDK nor the instrumentation
 * is loaded.
 */
export async function startApiTracing(env: OtelEnv, logger: Logger): Promise<Tracing> {
  const tracing = await startTracing({
    serviceName: 'svc-api',
    env,
    onShutdownError: (err) => logger.warn({ err }, 'the last trace spans could not be exported'),
  });
  if (!tracing.provider) return tracing;
  const { PrismaInstrumentation, registerInstrumentations } = await import('@prisma/instrumentation');
  const unregister = registerInstrumentations({
    tracerProvider: tracing.provider,
    instrumentations: [new PrismaInstrumentation()],
  });
  return {
    ...tracing,
    shutdown: async () => {
      unregister();
      await tracing.shutdown();
    },
  };
}
