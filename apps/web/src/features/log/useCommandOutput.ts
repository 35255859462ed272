import type { CommandOutputData } from '@svc/protocol';
import { useEffect, useReducer } from 'react';
import { useLiveSocket } from '../../lib/live';
import { runningCommandsReducer, type RunningCommands } from './running-commands';

const reduce = (state: RunningCommands, event: CommandOutputData) => runningCommandsReducer(state, event);

/**
 * Commands the worker runs while the page is open, with their output as it streams in (`command_output`
 * messages; a page that joins mid-command first gets the output so far). Mount it keyed by workflow.
 */
export function useCommandOutput(workflowId: string): RunningCommands {
  const socket = useLiveSocket();
  const [commands, dispatch] = useReducer(reduce, new Map() as RunningCommands);
  useEffect(() => {
    if (!socket) return;
    return socket.subscribeWorkflow(workflowId, { onEvent: () => undefined, onCommandOutput: dispatch });
  }, [socket, workflowId]);
  return commands;
}
