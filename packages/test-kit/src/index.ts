export { TEST_PROVIDERS, createTestDatabase, type TestDatabase } from '@svc/db/testing';
export { INHERITED_PATH } from './env';
export { eventually, StopWaiting, POLL_SAFETY_CAP_MS, type EventuallyOptions } from './poll';
export {
  request,
  expectJson,
  signIn,
  Session,
  HttpError,
  workerToken,
  type TestRequestInit,
  type ApiTarget,
} from './http';
export { ManagedProcess, spawnProcess, type ProcessExit } from './process';
export {
  startApiProcess,
  freePort,
  repoRoot,
  apiEntry,
  type ApiProcess,
  type ApiProcessOptions,
  type DbProvider,
} from './api-process';
export { startReplicas, type Replicas } from './replicas';
export {
  Inbox,
  openSocket,
  openBrowserSocket,
  wsUrl,
  TestWorker,
  snapshot,
  logEntry,
  type Message,
} from './worker-socket';
export { EventStream, type SseEvent } from './sse';
export { SlowDownload } from './download';
export { assertBuiltFresh } from './build-check';
export { startS3Server, type S3Server } from './s3-server';
export {
  startLoadBalancer,
  haproxyConfig,
  replicaAnswering,
  startBalancedReplicas,
  type BalancedReplicas,
  type LoadBalancer,
  type LoadBalancerOptions,
} from './load-balancer';
export { connectMcp, outcomeOf, toolJson, type McpClient, type CallToolResult } from './mcp';
export { startMcpHttpServer, type McpHttpServer, type McpCallRecord } from './mcp-http-server';
export {
  startGitHttpServer,
  type GitHttpServer,
  type GitHttpServerOptions,
  type GitHttpRequest,
  type GitRepoSeed,
} from './git-http-server';
export { sshKeyPair, type SshKeyPair } from './git-ssh';
export {
  startStandInForge,
  type StandInForge,
  type StandInForgeKind,
  type StandInPull,
  type StandInStatus,
  type StandInComment,
  type StandInIssue,
  type StandInRequest,
} from './forge-standin';
export {
  startWebhookReceiver,
  type WebhookReceiver,
  type ReceivedDelivery,
  type ReceiverPlan,
} from './webhook-receiver';
export { startSmtpServer, parseMail, type SmtpServer, type ReceivedMail } from './smtp-server';
export { startChatReceiver, type ChatReceiver, type ChatRequest } from './chat-receiver';
export * from './log-sink';
export { startOtlpReceiver, spansOfExport, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
export { startPrivatePostgres, type PrivatePostgres } from './private-postgres';
export { startTcpRelay, type TcpRelay } from './tcp-relay';
