// Seeds realistic data for the HTTP benchmark through the running svc (users, projects, the
// workflow) and, for what only a worker writes, straight into its database: a 12-step plan
// snapshot, a few hundred execution-log entries and LLM calls.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { devLogin, repoRoot } from '../lib/server-process.mjs';

const require = createRequire(join(repoRoot, 'apps/api/package.json'));
export const PROJECTS = 20;
export const LOG_ENTRIES = 300;
export const LLM_CALLS = 300;

async function call(server, cookie, method, path, body) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { cookie, origin: server.url, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Returns the member's session cookie and the seeded workflow's id. */
export async function seed(server, login = 'bench-member') {
  // A plain member, not an administrator: every read goes through the membership check.
  const cookie = await devLogin(server.url, login);
  let projectId;
  for (let i = 0; i < PROJECTS; i++) {
    const project = await call(server, cookie, 'POST', '/svc/api/projects', {
      name: `bench ${i}`,
      description: `Project ${i} of the benchmark`,
    });
    projectId ??= project.id;
  }
  const workflow = await call(server, cookie, 'POST', `/svc/api/projects/${projectId}/workflows`, {
    requirement: 'Benchmark workflow\nwith a 12-step plan',
  });
  const { createDb } = require('@svc/db');
  const { db, close } = await createDb({ url: server.databaseUrl, poolSize: 1 });
  try {
    const steps = Array.from({ length: 12 }, (_, i) => ({
      title: `Step ${i + 1}`,
      description: `Do part ${i + 1} of the work, carefully and with tests`,
      status: i < 5 ? 'done' : i === 5 ? 'running' : 'pending',
      ...(i < 5 ? { summary: `Part ${i + 1} is done` } : {}),
    }));
    await db.agentStateSnapshot.create({
      data: {
        workflow_id: workflow.id,
        seq: 1,
        phase: 'executing',
        current_step: 5,
        steps,
        memo: ['note a', 'note b'],
      },
    });
    const at = (i) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0, i * 37));
    await db.executionLogEntry.createMany({
      data: Array.from({ length: LOG_ENTRIES }, (_, i) => ({
        workflow_id: workflow.id,
        seq: i + 1,
        step_index: Math.floor(i / 25),
        tool_name: ['run_command', 'write_file', 'read_file'][i % 3],
        tool_input: {
          path: `src/file-${i}.ts`,
          command: `npm test -- --grep "case ${i}"\necho done`,
          lines: [i, i + 1],
        },
        output: `ok ${i}\n`.repeat(1 + (i % 5)),
        is_error: i % 17 === 0,
        created_at: at(i),
      })),
    });
    await db.llmCallLog.createMany({
      data: Array.from({ length: LLM_CALLS }, (_, i) => ({
        workflow_id: workflow.id,
        seq: i + 1,
        phase: i % 4 === 0 ? 'planning' : 'executing',
        model: 'scripted-model',
        prompt_tokens: i % 11 === 0 ? null : 1000 + i,
        completion_tokens: i % 11 === 0 ? null : 100 + i,
        latency_ms: 200 + (i % 50),
        step_index: i % 4 === 0 ? null : Math.floor(i / 25),
        attempt: i % 13 === 0 ? 2 : 1,
        error: i % 13 === 12 ? 'HTTP 500: upstream failed' : null,
        finish_reason: i % 13 === 12 ? null : 'tool_calls',
        created_at: at(i),
      })),
    });
  } finally {
    await close();
  }
  return { cookie, workflowId: workflow.id };
}
