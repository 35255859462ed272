// The execution log lives in features/log; the run page imports it from here.
export { ExecutionLog, type ExecutionLogProps } from '../log/ExecutionLog';
