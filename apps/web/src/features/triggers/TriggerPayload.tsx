import { useQuery } from '@tanstack/react-query';
import { getWorkflowTrigger, workflowTriggerKey } from './api';

/** On a run's page: the delivery that started it, with its payload (nothing for a run started by hand). */
export function TriggerPayload({ workflowId }: { workflowId: string }) {
  const delivery = useQuery({
    queryKey: workflowTriggerKey(workflowId),
    queryFn: () => getWorkflowTrigger(workflowId),
    retry: false,
    staleTime: Infinity,
  });
  if (!delivery.data) return null;
  const d = delivery.data;
  return (
    <details className="trigger-payload">
      <summary>
        Started by trigger <strong>{d.trigger_name}</strong> ({d.event}, delivery {d.delivery_id})
      </summary>
      <pre>{JSON.stringify(d.payload, null, 2)}</pre>
    </details>
  );
}
