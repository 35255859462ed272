/** How often the run page reloads what it shows while live updates are not flowing. */
export const POLL_MS = 4000;
/** The activity replays the workflow's stored events: reloaded less often. */
export const ACTIVITY_POLL_MS = 15_000;

/** A react-query `refetchInterval`: poll only while the live socket is not following the workflow. */
export const pollWhileOffline = (following: boolean, everyMs = POLL_MS): number | false =>
  following ? false : everyMs;
