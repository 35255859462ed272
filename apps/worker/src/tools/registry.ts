import { advanceStep } from './execution/advance-step';
import { executeOnWorker } from './execution/execute-on-worker';
import { readFile } from './execution/read-file';
import { saveMemo } from './execution/save-memo';
import { setTimer } from './execution/set-timer';
import { writeFile } from './execution/write-file';
import { listTemplates } from './planning/list-templates';
import { submitPlan } from './planning/submit-plan';
import { useTemplate } from './planning/use-template';
import { askUser } from './shared/ask-user';
import { kbRead } from './shared/kb-read';
import { kbSearch } from './shared/kb-search';
import { listWorkers } from './shared/list-workers';
import type { Tool } from './tool';

/** CONTRACT section 5: the tools of each phase, exactly. */
export const PLANNING_TOOLS: readonly Tool[] = [
  kbSearch,
  kbRead,
  listWorkers,
  listTemplates,
  useTemplate,
  askUser,
  submitPlan,
];

export const EXECUTION_TOOLS: readonly Tool[] = [
  executeOnWorker,
  advanceStep,
  saveMemo,
  askUser,
  kbSearch,
  kbRead,
  listWorkers,
  setTimer,
  readFile,
  writeFile,
];

/** A plan revision may only answer with a new plan. */
export const REVISE_TOOLS: readonly Tool[] = [submitPlan];
