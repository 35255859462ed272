import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Budget, BudgetCap, Project } from '@svc/protocol';
import { BudgetSchema } from '@svc/protocol';
import { errorMessage } from '../../lib/api';
import { budgetKeys, projectBudget, putProjectBudget } from './api';
import { BudgetFields } from './BudgetFields';
import { fieldsOf, patchFromFields } from './caps';
import './budget.css';

/** The budget a new run of the project gets (owners and administrators change it). */
export function ProjectBudget({ project, canManage }: { project: Project; canManage: boolean }) {
  const current = useQuery({ queryKey: budgetKeys.project(project.id), queryFn: () => projectBudget(project.id) });
  if (!current.data) return null;
  return (
    <section className="project-budget" aria-labelledby="project-budget-title">
      <h2 id="project-budget-title">Default run budget</h2>
      {canManage ? (
        <DefaultForm projectId={project.id} budget={current.data.budget} />
      ) : (
        <p className="muted">{current.data.budget ? JSON.stringify(current.data.budget) : 'none'}</p>
      )}
    </section>
  );
}

function DefaultForm({ projectId, budget }: { projectId: string; budget: Budget | null }) {
  const queryClient = useQueryClient();
  const [fields, setFields] = useState<Partial<Record<BudgetCap, string>>>(() => fieldsOf(budget));
  const [onExceed, setOnExceed] = useState<Budget['on_exceed']>(budget?.on_exceed ?? 'pause');
  const save = useMutation({
    mutationFn: () => {
      const patch = Object.fromEntries(Object.entries(patchFromFields(fields, onExceed)).filter(([, v]) => v !== null));
      const next = Object.keys(patch).length > 1 ? BudgetSchema.parse(patch) : null;
      return putProjectBudget(projectId, next);
    },
    onSuccess: (saved) => queryClient.setQueryData(budgetKeys.project(projectId), saved),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="budget-form" onSubmit={submit} aria-label="Default run budget">
      <BudgetFields
        idPrefix="default"
        fields={fields}
        onExceed={onExceed}
        onChange={(next, policy) => {
          setFields(next);
          setOnExceed(policy);
        }}
      />
      <button type="submit" disabled={save.isPending}>
        Save default
      </button>
      {save.isError && <p role="alert">{errorMessage(save.error)}</p>}
      {save.isSuccess && <p role="status">Saved: new runs get this budget.</p>}
    </form>
  );
}
