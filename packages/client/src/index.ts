export { backoffDelay, type BackoffOptions } from './backoff';
export {
  ApiError,
  errorFromResponse,
  isNotFound,
  isUnauthenticated,
  type ApiErrorDetails,
  type ClientErrorCode,
} from './errors';
export {
  API_BASE,
  apiPath,
  encodePath,
  RestClient,
  type CallOptions,
  type ClientAuth,
  type Fetch,
  type Query,
  type RestClientOptions,
} from './rest-client';
export { SvcClient, workflowPath, type ListFilesOptions } from './svc-client';
export { callOperation, operationPath, type CallInput, type CallResult } from './operation-call';
export { createSseParser, readSse, type SseEvent, type SseHandlers, type SseParser } from './sse';
