import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { McpServer, Project } from '@svc/protocol';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote, Loading } from '../../components/Feedback';
import { formatTime } from '../../lib/format';
import { queryKeys } from '../../lib/query-keys';
import { deleteMcpServer, listMcpServers, putMcpServer } from './api';
import { fieldsFromServer, withEnabled } from './mcp-form';
import { McpServerForm } from './McpServerForm';
import './mcp.css';

/** A project's MCP servers: tools its runs' agent may call. Members see them; owners add, edit and delete. */
export function McpServersPanel({ project, canManage }: { project: Project; canManage: boolean }) {
  const servers = useQuery({
    queryKey: queryKeys.mcpServers(project.id),
    queryFn: () => listMcpServers(project.id),
  });
  return (
    <section aria-labelledby="mcp-heading" className="mcp-servers">
      <h2 id="mcp-heading">MCP servers</h2>
      <p className="muted">
        Model Context Protocol servers whose tools the agent of this project&apos;s runs may call.
      </p>
      {servers.isPending && <Loading what="MCP servers" />}
      <ErrorNote error={servers.error} />
      {servers.data?.length === 0 && <p className="muted">No MCP servers yet.</p>}
      {servers.data && servers.data.length > 0 && (
        <ul className="mcp-server-list stack">
          {servers.data.map((server) => (
            <McpServerItem key={server.name} projectId={project.id} server={server} canManage={canManage} />
          ))}
        </ul>
      )}
      {canManage && (
        <details className="new-item">
          <summary>Add an MCP server</summary>
          <McpServerForm projectId={project.id} label="Add an MCP server" />
        </details>
      )}
    </section>
  );
}

function McpServerItem({ projectId, server, canManage }: { projectId: string; server: McpServer; canManage: boolean }) {
  const [editing, setEditing] = useState(false);
  return (
    <li className="card" aria-label={`MCP server ${server.name}`}>
      <McpServerSummary server={server} />
      {canManage && (
        <McpServerActions projectId={projectId} server={server} editing={editing} onEdit={() => setEditing(!editing)} />
      )}
      {editing && (
        <McpServerForm
          projectId={projectId}
          label={`Edit MCP server ${server.name}`}
          initial={fieldsFromServer(server)}
          onSaved={() => setEditing(false)}
        />
      )}
    </li>
  );
}

/** What a member sees: transport, target, whether enabled and whether writes ask; header or env names, not values. */
function McpServerSummary({ server }: { server: McpServer }) {
  const http = server.transport === 'http';
  const keys = Object.keys((http ? server.headers : server.env) ?? {});
  return (
    <>
      <div className="inline-actions">
        <strong>{server.name}</strong>
        <span className="badge">{http ? 'HTTP' : 'command'}</span>
        {!server.enabled && <span className="badge">disabled</span>}
        <span className="badge">{server.allow_writes ? 'writes without asking' : 'writes need approval'}</span>
      </div>
      <code className="mcp-target">{http ? server.url : server.command?.join(' ')}</code>
      {keys.length > 0 && (
        <p className="hint">
          {http ? 'Headers' : 'Environment'}: {keys.join(', ')}
        </p>
      )}
      <p className="hint">{changedText(server)}</p>
    </>
  );
}

const changedText = (server: McpServer) =>
  `Changed ${formatTime(server.updated_at)}${server.updated_by ? ` by ${server.updated_by.name}` : ''}`;

function McpServerActions({
  projectId,
  server,
  editing,
  onEdit,
}: {
  projectId: string;
  server: McpServer;
  editing: boolean;
  onEdit: () => void;
}) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.mcpServers(projectId) });
  const toggle = useMutation({
    mutationFn: () => putMcpServer(projectId, server.name, withEnabled(server, !server.enabled)),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: () => deleteMcpServer(projectId, server.name), onSuccess: refresh });
  return (
    <>
      <div className="inline-actions">
        <button type="button" onClick={onEdit} aria-expanded={editing}>
          Edit
        </button>
        <button type="button" onClick={() => toggle.mutate()} aria-disabled={toggle.isPending || undefined}>
          {server.enabled ? 'Disable' : 'Enable'}
        </button>
        <ConfirmButton
          label="Delete"
          ariaLabel={`Delete MCP server ${server.name}`}
          small
          question={`Delete the MCP server ${server.name}? New runs no longer get its tools.`}
          confirmLabel="Delete server"
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      </div>
      <ErrorNote error={toggle.error ?? remove.error} />
    </>
  );
}
