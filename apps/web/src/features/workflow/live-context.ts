import { createContext, useContext } from 'react';

/**
 * How many live events the workflow page has received (useWorkflowLive's `receivedSoFar`), for the
 * actions that store the record they are answered with: live events received before the action was
 * sent are already reflected in its answer.
 */
export const ReceivedSoFarContext = createContext<() => number>(() => 0);

export const useReceivedSoFar = (): (() => number) => useContext(ReceivedSoFarContext);
