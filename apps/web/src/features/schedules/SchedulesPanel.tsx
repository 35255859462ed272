import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Schedule, ScheduleCatchUp, ScheduleOverlap } from '@svc/protocol';
import { ErrorNote, Loading } from '../../components/Feedback';
import { ConfirmButton } from '../../components/ConfirmButton';
import { formatTime } from '../../lib/format';
import { inBackground } from '../../lib/background';
import { createSchedule, deleteSchedule, listSchedules, schedulesKey, setSchedulePaused } from './api';
import { browserTimeZone, scheduleRequest, tickSummary } from './schedule-form';

/** Polls while shown: fire times move on and ticks arrive without any event for them. */
const REFRESH_MS = 10_000;

/** A project's schedules: their next fire times and latest ticks; create, pause, resume, delete. */
export function SchedulesPanel({ projectId }: { projectId: string }) {
  const id = useId();
  const schedules = useQuery({
    queryKey: schedulesKey(projectId),
    queryFn: () => listSchedules(projectId),
    refetchInterval: REFRESH_MS,
  });
  return (
    <section aria-labelledby={`${id}-heading`} className="schedules">
      <h2 id={`${id}-heading`}>Schedules</h2>
      {schedules.isPending && <Loading what="schedules" />}
      <ErrorNote error={schedules.error} />
      {schedules.data?.length === 0 && <p className="muted">No schedules yet.</p>}
      {schedules.data && schedules.data.length > 0 && (
        <ul className="schedule-list">
          {schedules.data.map((schedule) => (
            <ScheduleItem key={schedule.id} projectId={projectId} schedule={schedule} />
          ))}
        </ul>
      )}
      <CreateScheduleForm projectId={projectId} />
    </section>
  );
}

function ScheduleItem({ projectId, schedule }: { projectId: string; schedule: Schedule }) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: schedulesKey(projectId) });
  const toggle = useMutation({
    mutationFn: () => setSchedulePaused(schedule.id, !schedule.paused),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: () => deleteSchedule(schedule.id), onSuccess: refresh });
  const next = schedule.next_runs[0];
  return (
    <li className="schedule-item" aria-label={`Schedule ${schedule.name}`}>
      <div className="schedule-head">
        <strong>{schedule.name}</strong> <code>{schedule.cron}</code> <span className="muted">{schedule.timezone}</span>{' '}
        <span className="muted">
          overlap {schedule.overlap}, catch-up {schedule.catch_up}
        </span>
      </div>
      <p className="schedule-next">
        {schedule.paused ? 'Paused' : next ? `Next: ${formatTime(next)}` : 'No further fire times'}
      </p>
      {schedule.next_runs.length > 1 && (
        <details>
          <summary>Next {schedule.next_runs.length} fire times</summary>
          <ol>
            {schedule.next_runs.map((at) => (
              <li key={at}>{formatTime(at)}</li>
            ))}
          </ol>
        </details>
      )}
      {schedule.recent_ticks.length > 0 && (
        <ul className="schedule-ticks" aria-label={`Latest ticks of ${schedule.name}`}>
          {schedule.recent_ticks.map((tick) => (
            <li key={tick.tick_at}>
              {formatTime(tick.tick_at)}: {tickSummary(tick)}{' '}
              {tick.workflow_id && <Link to={`/projects/${projectId}/workflows/${tick.workflow_id}`}>open run</Link>}
            </li>
          ))}
        </ul>
      )}
      <div className="row">
        <button type="button" onClick={() => toggle.mutate()} aria-disabled={toggle.isPending || undefined}>
          {schedule.paused ? 'Resume' : 'Pause'}
        </button>
        <ConfirmButton
          label="Delete"
          ariaLabel={`Delete schedule ${schedule.name}`}
          small
          question={`Delete the schedule ${schedule.name}? Its runs stay.`}
          confirmLabel="Delete schedule"
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      </div>
      <ErrorNote error={toggle.error ?? remove.error} />
    </li>
  );
}

function CreateScheduleForm({ projectId }: { projectId: string }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [cron, setCron] = useState('0 9 * * 1-5');
  const [timezone, setTimezone] = useState(browserTimeZone);
  const [requirement, setRequirement] = useState('');
  const [overlap, setOverlap] = useState<ScheduleOverlap>('skip');
  const [catchUp, setCatchUp] = useState<ScheduleCatchUp>('none');
  const create = useMutation({
    mutationFn: () =>
      createSchedule(projectId, scheduleRequest({ name, cron, timezone, requirement, overlap, catchUp })),
    onSuccess: () => {
      setName('');
      setRequirement('');
      inBackground(queryClient.invalidateQueries({ queryKey: schedulesKey(projectId) }));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!create.isPending) create.mutate();
  };
  return (
    // Folded: the project page leads with the new-run form, and its fields are the only "Requirement" shown.
    <details className="new-item">
      <summary>New schedule</summary>
      <form onSubmit={submit} className="stack" aria-label="New schedule">
        <label>
          Name
          <input name="schedule-name" value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label>
          Cron (5 fields, or 6 with seconds first)
          <input name="cron" value={cron} onChange={(e) => setCron(e.target.value)} required />
        </label>
        <label>
          Time zone
          <input name="timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)} />
        </label>
        <label>
          Requirement
          <textarea
            name="schedule-requirement"
            value={requirement}
            onChange={(e) => setRequirement(e.target.value)}
            rows={3}
            required
          />
        </label>
        <label>
          While the previous run is unfinished
          <select name="overlap" value={overlap} onChange={(e) => setOverlap(e.target.value as ScheduleOverlap)}>
            <option value="skip">skip the tick</option>
            <option value="queue_one">queue one run</option>
            <option value="allow">start anyway</option>
          </select>
        </label>
        <label>
          Ticks missed while the server was down
          <select name="catch-up" value={catchUp} onChange={(e) => setCatchUp(e.target.value as ScheduleCatchUp)}>
            <option value="none">do not run them</option>
            <option value="latest">run the latest one</option>
          </select>
        </label>
        <ErrorNote error={create.error} />
        <div>
          <button type="submit" className="primary" aria-disabled={create.isPending || undefined}>
            {create.isPending ? 'Creating…' : 'Create schedule'}
          </button>
        </div>
      </form>
    </details>
  );
}
