import type { GlobalAction, ProjectAction } from '@svc/protocol';
import type { Principal } from '../../src/auth/principal';
import { canGlobally, canInProject, type ProjectScope } from '../../src/policies/rules';

/** The rules alone, every action for every kind of caller: the matrix test checks them through the routes. */

const GLOBAL_ACTIONS: GlobalAction[] = [
  'project.list',
  'project.create',
  'kb.read',
  'kb.write',
  'settings.read',
  'settings.write',
  'workers.read',
  'templates.read',
  'token.api',
  'token.worker',
  'tokens.manage',
  'tokens.manage_any',
];
const PROJECT_ACTIONS: ProjectAction[] = [
  'project.read',
  'project.update',
  'project.delete',
  'members.read',
  'members.manage',
  'workflow.read',
  'workflow.create',
  'workflow.control',
  'workflow.worker',
  'command_output.write',
  'files.read',
  'files.write',
  'storage.read',
  'storage.write',
  'token.job',
];

const user = (fields: { isAdmin?: boolean; scope?: 'session' | 'api'; projectId?: string | null }) =>
  ({ kind: 'user', isAdmin: false, scope: 'session', projectId: null, ...fields }) as Principal;
const worker = { kind: 'worker', workerIds: ['w1'] } as unknown as Principal;
const job = { kind: 'job', projectId: 'p1', workflowId: 'wf1' } as unknown as Principal;
/** What a job token may do in its project (written out here, not imported: the rules are under test). */
const JOB_ACTIONS: ProjectAction[] = [
  'project.read',
  'workflow.read',
  'command_output.write',
  'files.read',
  'files.write',
  'storage.read',
  'storage.write',
];

const allowedGlobally = (principal: Principal) => GLOBAL_ACTIONS.filter((a) => canGlobally(principal, a));
const allowedIn = (principal: Principal, scope: ProjectScope) =>
  PROJECT_ACTIONS.filter((a) => canInProject(principal, a, scope));

describe('canGlobally', () => {
  const everyone = ['project.list', 'kb.read', 'settings.read', 'workers.read', 'templates.read'];
  it.each<[string, Principal, string[]]>([
    ['an administrator session', user({ isAdmin: true }), GLOBAL_ACTIONS],
    [
      'an administrator api token',
      user({ isAdmin: true, scope: 'api' }),
      [...everyone.slice(0, 1), 'project.create', ...everyone.slice(1), 'tokens.manage'],
    ],
    ['a session', user({}), [everyone[0]!, 'project.create', ...everyone.slice(1), 'token.api', 'tokens.manage']],
    ['an api token', user({ scope: 'api' }), [everyone[0]!, 'project.create', ...everyone.slice(1), 'tokens.manage']],
    ['an api token narrowed to a project', user({ scope: 'api', projectId: 'p1' }), everyone],
    [
      'an administrator session narrowed to a project',
      user({ isAdmin: true, projectId: 'p1' }),
      GLOBAL_ACTIONS.filter((a) => a !== 'project.create' && a !== 'tokens.manage'),
    ],
    ['a worker', worker, ['kb.read', 'settings.read', 'workers.read', 'templates.read']],
    ['a job', job, ['kb.read']],
  ])('%s', (_who, principal, allowed) => {
    expect(allowedGlobally(principal)).toEqual(GLOBAL_ACTIONS.filter((a) => allowed.includes(a)));
  });

  it('refuses an action it does not know', () => {
    expect(canGlobally(user({ isAdmin: true }), 'project.destroy' as GlobalAction)).toBe(false);
    expect(canGlobally(worker, 'project.destroy' as GlobalAction)).toBe(false);
  });
});

describe('canInProject', () => {
  const member = { projectId: 'p1', role: 'member' } as const;
  const memberActions = PROJECT_ACTIONS.filter(
    (a) => !['project.delete', 'members.manage', 'workflow.worker', 'command_output.write'].includes(a),
  );
  it.each<[string, Principal, ProjectScope, ProjectAction[]]>([
    ['a member session', user({}), member, memberActions],
    [
      'a member api token (mints no job token)',
      user({ scope: 'api' }),
      member,
      memberActions.filter((a) => a !== 'token.job'),
    ],
    [
      'an owner session',
      user({}),
      { projectId: 'p1', role: 'owner' },
      PROJECT_ACTIONS.filter((a) => a !== 'workflow.worker' && a !== 'command_output.write'),
    ],
    [
      'an administrator without a role',
      user({ isAdmin: true, scope: 'api' }),
      { projectId: 'p1', role: null },
      PROJECT_ACTIONS.filter((a) => !['workflow.worker', 'command_output.write', 'token.job'].includes(a)),
    ],
    ['a stranger', user({}), { projectId: 'p1', role: null }, []],
    ['a token narrowed to another project', user({ projectId: 'p2' }), member, []],
    [
      'a worker on its workflow',
      worker,
      { projectId: 'p1', role: null, workflowId: 'wf1', assignedWorkerId: 'w1' },
      ['workflow.read', 'workflow.worker', 'command_output.write', 'files.read', 'files.write', 'token.job'],
    ],
    [
      'a worker on another worker’s workflow',
      worker,
      { projectId: 'p1', role: null, workflowId: 'wf1', assignedWorkerId: 'w2' },
      [],
    ],
    ['a worker project-wide', worker, { projectId: 'p1', role: null }, []],
    ['a job project-wide', job, { projectId: 'p1', role: null }, JOB_ACTIONS],
    [
      'a job on its workflow (another worker stores its command output for it, decision 0081)',
      job,
      { projectId: 'p1', role: null, workflowId: 'wf1' },
      JOB_ACTIONS,
    ],
    ['a job on another workflow', job, { projectId: 'p1', role: null, workflowId: 'wf2' }, []],
    ['a job in another project', job, { projectId: 'p2', role: null }, []],
  ])('%s', (_who, principal, scope, allowed) => {
    expect(allowedIn(principal, scope)).toEqual(PROJECT_ACTIONS.filter((a) => allowed.includes(a)));
  });
});
