import { z } from 'zod';
import { defineTool, ok } from '../tool';

export const listWorkers = defineTool({
  name: 'list_workers',
  description:
    'Lists the workers registered with the server: name, status, labels (e.g. gpu, os) and load. Use a worker name with execute_on_worker to run a command there.',
  parameters: z.object({}).strict(),
  async run(_input, ctx) {
    const workers = await ctx.api.listWorkers();
    if (workers.length === 0) return ok('No workers are registered.');
    const lines = workers.map((w) => {
      const me = w.name === ctx.self.name || w.id === ctx.self.id ? ' (this worker)' : '';
      const labels = w.labels.length > 0 ? w.labels.join(', ') : 'none';
      return `- ${w.name}${me}: ${w.status}, labels: ${labels}, running ${w.active}/${w.capacity}, version ${w.version}`;
    });
    return ok(lines.join('\n'));
  },
});
