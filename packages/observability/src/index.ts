export {
  childWithLogIds,
  currentLogIds,
  logIdsMixin,
  logIdsOptions,
  noteRunId,
  runWithLogIds,
  withLogIds,
  type LogIds,
} from './log-context';
