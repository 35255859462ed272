import { useCallback, useLayoutEffect, useRef, useState, type UIEvent } from 'react';

/** How close to the end (px) still counts as "at the newest entry". */
const AT_END_SLACK = 24;

/**
 * "Follow" for a scrollable log: while on, every change of `revision` scrolls the region to its end;
 * the reader scrolling up turns it off (our own scrolling lands at the end, so it never does).
 */
export function useFollow(revision: unknown, initiallyOn = true) {
  const region = useRef<HTMLDivElement | null>(null);
  const [following, setFollowing] = useState(initiallyOn);
  const scrollToEnd = useCallback(() => {
    const el = region.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, []);
  useLayoutEffect(() => {
    if (following) scrollToEnd();
  }, [following, revision, scrollToEnd]);
  const onScroll = useCallback(
    (event: UIEvent<HTMLDivElement>) => {
      const el = event.currentTarget;
      if (following && el.scrollHeight - el.scrollTop - el.clientHeight > AT_END_SLACK) setFollowing(false);
    },
    [following],
  );
  return { region, following, setFollowing, onScroll };
}
