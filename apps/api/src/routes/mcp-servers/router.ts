import { auditContextOf, recordAudit } from '../../audit/record';
import type { Db, McpServer as McpServerRow } from '@svc/db';
import { McpServerNameSchema, type McpServer } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { invalidInput, notFound } from '../../domain/errors';
import { authorizeProject } from '../../policies/access';
import { presentMcpServer, transportFieldsOf } from '../../wire/mcp-server';
import { actorOf } from '../workflows/actions';

/** The people who last changed these servers, by id. */
async function editorsOf(db: Db, rows: readonly McpServerRow[]): Promise<Map<string, McpServer['updated_by']>> {
  const ids = [...new Set(rows.flatMap((row) => (row.updated_by ? [row.updated_by] : [])))];
  const users = ids.length ? await db.user.findMany({ where: { id: { in: ids } } }) : [];
  return new Map(users.map((user) => [user.id, { id: user.id, name: user.name ?? user.login }]));
}

async function present(db: Db, rows: McpServerRow[]): Promise<McpServer[]> {
  const editors = await editorsOf(db, rows);
  return rows.map((row) => presentMcpServer(row, (row.updated_by && editors.get(row.updated_by)) || null));
}

/** A project's MCP servers (decision 0042): members list them, owners add, replace and delete them. */
export function mcpServerHandlers(deps: AppDeps): Handlers<'listMcpServers' | 'putMcpServer' | 'deleteMcpServer'> {
  const { db } = deps;

  const listMcpServers: OperationHandler<'listMcpServers'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'mcp.read');
    const rows = await db.mcpServer.findMany({ where: { project_id: project.id }, orderBy: { name: 'asc' } });
    res.json({ items: await present(db, rows) });
  };

  const putMcpServer: OperationHandler<'putMcpServer'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'mcp.manage');
    const name = McpServerNameSchema.safeParse(input.params.name);
    if (!name.success) throw invalidInput(name.error.issues[0]!.message);
    const settings = input.body();
    const data = {
      transport: settings.transport,
      config: transportFieldsOf(settings),
      allow_writes: settings.allow_writes,
      enabled: settings.enabled,
      updated_by: actorOf(principal).id,
    };
    const key = { project_id_name: { project_id: project.id, name: name.data } };
    const { existed, row } = await db.$transaction(async (tx) => {
      const before = await tx.mcpServer.findUnique({ where: key, select: { id: true } });
      const saved = await tx.mcpServer.upsert({
        where: key,
        create: { project_id: project.id, name: name.data, ...data },
        update: data,
      });
      await recordAudit(tx, auditContextOf(req), {
        action: before ? 'mcp_server.updated' : 'mcp_server.created',
        target: { type: 'mcp_server', id: name.data },
        projectId: project.id,
        detail: { transport: data.transport, allow_writes: data.allow_writes, enabled: data.enabled },
      });
      return { existed: before !== null, row: saved };
    });
    const [server] = await present(db, [row]);
    res.status(existed ? 200 : 201).json(server);
  };

  const deleteMcpServer: OperationHandler<'deleteMcpServer'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'mcp.manage');
    await db.$transaction(async (tx) => {
      const { count } = await tx.mcpServer.deleteMany({ where: { project_id: project.id, name: input.params.name } });
      if (!count) throw notFound('MCP server not found');
      await recordAudit(tx, auditContextOf(req), {
        action: 'mcp_server.deleted',
        target: { type: 'mcp_server', id: input.params.name },
        projectId: project.id,
      });
    });
    res.status(204).end();
  };

  return { listMcpServers, putMcpServer, deleteMcpServer };
}
