import { RunSecrets } from './run-secrets';
import { WorkflowSecrets } from './workflow-secrets';

describe('WorkflowSecrets', () => {
  it("masks with every hold of a workflow (its run and an exec for it) until each is released; others' never", () => {
    const secrets = new WorkflowSecrets();
    const releaseRun = secrets.hold('wf-1', new RunSecrets([{ name: 'RUN_TOKEN', value: 'run-value' }]));
    const releaseExec = secrets.hold('wf-1', new RunSecrets([{ name: 'EXEC_TOKEN', value: 'exec-value' }]));
    const text = 'run-value exec-value';
    expect(secrets.maskerFor('wf-1').mask(text)).toBe('*** ***');
    expect(secrets.maskerFor('wf-2').mask(text)).toBe(text);

    releaseExec();
    expect(secrets.maskerFor('wf-1').mask(text)).toBe('*** exec-value');
    releaseExec(); // a second release changes nothing
    expect(secrets.maskerFor('wf-1').mask(text)).toBe('*** exec-value');
    releaseRun();
    expect(secrets.maskerFor('wf-1').isEmpty).toBe(true);
  });

  it('gives a run its secrets as variables (the later of a name twice) and its names sorted, never values', () => {
    const run = new RunSecrets([
      { name: 'B_TOKEN', value: 'first-value' },
      { name: 'A_TOKEN', value: 'a-value' },
      { name: 'B_TOKEN', value: 'second-value' },
    ]);
    expect(run.env()).toEqual({ A_TOKEN: 'a-value', B_TOKEN: 'second-value' });
    expect(run.names).toEqual(['A_TOKEN', 'B_TOKEN']);
  });
});
