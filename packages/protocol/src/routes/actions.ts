/** What a caller does inside a project; apps/api/src/policies/rules.ts says who may. */
export type ProjectAction =
  | 'project.read'
  | 'project.update'
  | 'project.delete'
  | 'project.budget' // the default budget of new runs (owners)
  | 'members.read'
  | 'members.manage'
  | 'workflow.read'
  | 'workflow.create'
  | 'workflow.control' // answer, feedback, cancel, retry, delete, pause, resume
  | 'workflow.worker' // what a worker does to a workflow it runs: updates, files, timers
  | 'command_output.write' // store a command's whole output: the run's worker, or a job token of the workflow (decision 0081)
  | 'files.read'
  | 'files.write'
  | 'storage.read'
  | 'storage.write'
  | 'token.job'
  | 'trigger.manage' // inbound triggers: list, create, change, rotate, delete, deliveries
  | 'webhook.manage' // outbound webhooks: list, create, change, rotate, delete, deliveries, redeliver (members)
  | 'schedule.read'
  | 'schedule.manage' // create, change, pause, resume, delete a schedule
  | 'mcp.read' // the project's MCP servers (members)
  | 'mcp.manage' // add, replace, delete them (owners)
  | 'secret.read' // a project's secret names and their audit (members)
  | 'secret.manage' // create, replace, delete a project's secrets (owners)
  | 'repository.read' // the project's git repositories (members)
  | 'project.audit' // the project's audit log (owners)
  | 'repository.manage'; // connect, change, disconnect them (owners)

/** What a caller does outside any project. */
export type GlobalAction =
  | 'project.list'
  | 'project.create'
  | 'kb.read'
  | 'kb.write'
  | 'settings.read'
  | 'settings.write'
  | 'workers.read'
  | 'workers.manage' // pause, resume and drain a worker (administrators; decision 0074)
  | 'queue.read' // the queue by label set (administrators; autoscalers use an administrator's api token)
  | 'templates.read'
  | 'token.api'
  | 'token.worker'
  | 'tokens.manage' // list and revoke one's own recorded api and worker tokens
  | 'tokens.manage_any' // everyone's
  | 'audit.read' // the whole audit log (administrators)
  | 'project.restore' // list deleted projects and bring one back from its archive (administrators)
  | 'secrets.instance'; // the instance's secrets and their audit (administrators)

/**
 * The policy an operation is checked with: a rule's action, or `public` (no credential: the operation
 * itself is the permission, e.g. a built app's key) or `signed-in` (any person's credential: their own things).
 */
export type PolicyAction = ProjectAction | GlobalAction | 'public' | 'signed-in';
