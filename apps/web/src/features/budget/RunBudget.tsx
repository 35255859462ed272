import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Budget, BudgetCap, Workflow, WorkflowBudget } from '@svc/protocol';
import { errorMessage } from '../../lib/api';
import { budgetKeys, patchRunBudget, runBudget } from './api';
import { BudgetFields } from './BudgetFields';
import { CAP_ROWS, fieldsOf, patchFromFields } from './caps';
import './budget.css';

/**
 * The run's spend against its budget, one bar per cap; when the run waits on the budget question, a form
 * to raise it (the run resumes the same step). `changes`: anything that moves the spend (status, calls).
 */
export function RunBudget({ workflow, changes }: { workflow: Workflow; changes: number }) {
  const view = useQuery({
    queryKey: [...budgetKeys.run(workflow.id), workflow.status, changes],
    queryFn: () => runBudget(workflow.id),
  });
  const data = view.data;
  if (!data?.budget) return null;
  const paused = data.exceeded && workflow.status === 'waiting_user';
  return (
    <section className="run-budget" aria-labelledby="run-budget-title">
      <h2 id="run-budget-title">Budget</h2>
      <SpendBars view={data} budget={data.budget} />
      {paused && <RaiseForm workflowId={workflow.id} budget={data.budget} />}
    </section>
  );
}

function SpendBars({ view, budget }: { view: WorkflowBudget; budget: Budget }) {
  const rows = CAP_ROWS.filter(({ cap }) => budget[cap] !== undefined);
  return (
    <dl className="budget-bars">
      {rows.map(({ cap, label, spent }) => {
        const used = view.spend[spent];
        const limit = budget[cap]!;
        const reached = view.reached.includes(cap);
        return (
          <div key={cap} className={reached ? 'budget-row reached' : 'budget-row'}>
            <dt>{label}</dt>
            <dd>
              <meter min={0} max={limit} value={Math.min(used, limit)} aria-label={`${label} spent`} />
              <span>
                {cap === 'max_cost' ? used.toFixed(4) : used} / {limit}
                {reached && ' — reached'}
              </span>
            </dd>
          </div>
        );
      })}
      <div className="budget-row muted">
        <dt>When reached</dt>
        <dd>{budget.on_exceed === 'pause' ? 'pause and ask' : 'fail the run'}</dd>
      </div>
      {rows.length === 0 && (
        <div className="budget-row muted">
          <dt>Caps</dt>
          <dd>none</dd>
        </div>
      )}
    </dl>
  );
}

function RaiseForm({ workflowId, budget }: { workflowId: string; budget: Budget }) {
  const queryClient = useQueryClient();
  const [fields, setFields] = useState<Partial<Record<BudgetCap, string>>>(() => fieldsOf(budget));
  const [onExceed, setOnExceed] = useState<Budget['on_exceed']>(budget.on_exceed);
  const raise = useMutation({
    mutationFn: () => patchRunBudget(workflowId, patchFromFields(fields, onExceed)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['workflow', workflowId] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    raise.mutate();
  };
  return (
    <form className="budget-form" onSubmit={submit} aria-label="Raise the budget">
      <p>The run stopped at its budget. Raise it to continue the same step.</p>
      <BudgetFields
        idPrefix="raise"
        fields={fields}
        onExceed={onExceed}
        onChange={(next, policy) => {
          setFields(next);
          setOnExceed(policy);
        }}
      />
      <button type="submit" disabled={raise.isPending}>
        Raise budget
      </button>
      {raise.isError && <p role="alert">{errorMessage(raise.error)}</p>}
      {raise.data?.exceeded && <p role="status">Still at a cap: raise the one reached.</p>}
    </form>
  );
}
