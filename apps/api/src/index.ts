#!/usr/bin/env node
import cluster from 'node:cluster';
import { mkdirSync } from 'node:fs';
import { logIdsOptions, type Tracing } from '@svc/observability';
import pino from 'pino';
import { readEnv } from './env';
import { buildConfig, ConfigError } from './config';
import { buildRuntime, VERSION } from './bootstrap';
import { startServer } from './server';
import { runClusterPrimary } from './cluster/primary';
import { clusterProcessMetrics, serveClusterMetrics } from './metrics/cluster';
import { runBackupCommand } from './backup/cli';
import { startApiTracing } from './tracing/start';

export { createApp } from './app';
export { buildRuntime } from './bootstrap';
export { startServer } from './server';
export { buildConfig, configFromEnv } from './config';

async function main(): Promise<void> {
  let config;
  let runtime;
  let logger;
  let tracing: Tracing | undefined;
  try {
    const env = readEnv();
    config = buildConfig(env);
    mkdirSync(config.dataDir, { recursive: true });
    logger = pino({ level: config.logLevel, ...logIdsOptions });
    if (config.processes > 1 && cluster.isPrimary) {
      await serveClusterMetrics(config.metrics.listen, logger);
      runClusterPrimary(config.processes, logger, env.REPLICA_ID);
      return;
    }
    // Before the runtime: its database client and the app find the tracer provider registered.
    tracing = await startApiTracing(config.tracing, logger);
    runtime = await buildRuntime(config, logger);
  } catch (error) {
    // Bad settings (including an unusable JWT_PRIVATE_KEY) are reported in one line, not a stack trace.
    if (error instanceof ConfigError) {
      console.error(`config: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  // Under API_PROCESSES the metrics are the whole host's, from the primary (metrics/cluster.ts).
  const inCluster = config.processes > 1 && cluster.isWorker;
  const running = await startServer(
    runtime,
    inCluster ? { renderMetrics: clusterProcessMetrics(), metricsListener: false } : {},
  );
  logger.info(
    {
      url: running.url,
      // where links point (app links, notifications): the same address unless PUBLIC_URL says otherwise
      public_url: config.publicUrl,
      provider: config.auth.provider,
      database: runtime.dbHandle.provider,
      replica: config.replicaId,
    },
    'svc listening',
  );
  // Graceful (decision 0061): in flight finishes within SHUTDOWN_GRACE_SECONDS. A second SIGINT
  // (Ctrl-C again) finds no handler left and ends the process at once.
  const stop = () => {
    logger.info('shutting down');
    running
      .shutdown()
      // The spans of the last requests are exported before the process ends.
      .then(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** `svc-api backup --to <dir>`, `svc-api restore --from <dir>` (operators; see README "Backup and restore"). */
async function operatorCommand(command: 'backup' | 'restore', args: string[]): Promise<void> {
  process.exit(await runBackupCommand(command, args, VERSION));
}

if (require.main === module) {
  const [command, ...args] = process.argv.slice(2);
  const run = command === 'backup' || command === 'restore' ? operatorCommand(command, args) : main();
  run.catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
