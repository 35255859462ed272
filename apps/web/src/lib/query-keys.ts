/** Every react-query key in one place, so invalidations match what the views read. */
export const queryKeys = {
  me: ['me'] as const,
  authProvider: ['auth-provider'] as const,
  projects: ['projects'] as const,
  invitations: ['invitations'] as const,
  members: (projectId: string) => ['projects', projectId, 'members'] as const,
  /** prefix of every run list of the project, whatever its filter */
  workflows: (projectId: string) => ['projects', projectId, 'workflows'] as const,
  workflowList: (projectId: string, filter: object) => ['projects', projectId, 'workflows', filter] as const,
  /** runs waiting for the signed-in user's answer, across projects */
  waiting: ['waiting-runs'] as const,
  /** prefix of everything about one workflow */
  workflowAll: (workflowId: string) => ['workflow', workflowId] as const,
  workflow: (workflowId: string) => ['workflow', workflowId, 'record'] as const,
  /** the workflow a re-run starts from (its requirement, template, worker) */
  rerunSource: (workflowId: string) => ['workflow', workflowId, 'rerun-source'] as const,
  plan: (workflowId: string) => ['workflow', workflowId, 'plan'] as const,
  log: (workflowId: string) => ['workflow', workflowId, 'log'] as const,
  llmCalls: (workflowId: string) => ['workflow', workflowId, 'llm-calls'] as const,
  files: (workflowId: string, path: string) => ['workflow', workflowId, 'files', path] as const,
  filesAll: (workflowId: string) => ['workflow', workflowId, 'files'] as const,
  report: (workflowId: string) => ['workflow', workflowId, 'report'] as const,
  workers: ['workers'] as const,
  templates: ['templates'] as const,
  kbArticles: ['kb', 'articles'] as const,
  kbSearch: (q: string) => ['kb', 'search', q] as const,
  settings: ['settings'] as const,
  /** prefix of a project's secrets: their list and their events */
  secrets: (projectId: string) => ['projects', projectId, 'secrets'] as const,
  /** prefix of the instance secrets (administrators): their list and their events */
  instanceSecrets: ['admin', 'secrets'] as const,
  mcpServers: (projectId: string) => ['projects', projectId, 'mcp-servers'] as const,
  repositories: (projectId: string) => ['projects', projectId, 'repositories'] as const,
  workflowRepository: (workflowId: string) => ['workflow', workflowId, 'repository'] as const,
  workflowRepositoryDiff: (workflowId: string) => ['workflow', workflowId, 'repository', 'diff'] as const,
};
