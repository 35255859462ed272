// The one back-off helper lives in @svc/client (shared with the web app's reconnects).
export { backoffDelay, type BackoffOptions } from '@svc/client';
