import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ErrorNote } from '../../components/Feedback';
import { queryKeys } from '../../lib/query-keys';
import { putMcpServer } from './api';
import { EMPTY_MCP_FIELDS, settingsFromFields, type McpServerFields } from './mcp-form';

const SECRET_HINT = '${{ secrets.NAME }}';

/**
 * Adds an MCP server, or (with `initial`) edits one; the name of an existing server stays. `label` names
 * the form (e.g. "Add an MCP server").
 */
export function McpServerForm({
  projectId,
  label,
  initial,
  onSaved,
}: {
  projectId: string;
  label: string;
  initial?: McpServerFields;
  onSaved?: () => void;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const [fields, setFields] = useState<McpServerFields>(initial ?? EMPTY_MCP_FIELDS);
  const set = <K extends keyof McpServerFields>(key: K, value: McpServerFields[K]) =>
    setFields((current) => ({ ...current, [key]: value }));
  const save = useMutation({
    mutationFn: () => putMcpServer(projectId, fields.name.trim(), settingsFromFields(fields)),
    onSuccess: async () => {
      if (!initial) setFields(EMPTY_MCP_FIELDS);
      await queryClient.invalidateQueries({ queryKey: queryKeys.mcpServers(projectId) });
      onSaved?.();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!save.isPending) save.mutate();
  };
  const http = fields.transport === 'http';
  return (
    <form onSubmit={submit} className="stack" aria-label={label}>
      <label>
        Name
        <input
          name="mcp-name"
          value={fields.name}
          onChange={(e) => set('name', e.target.value)}
          readOnly={initial !== undefined}
          pattern="[a-z0-9][a-z0-9\-]{0,31}"
          aria-describedby={`${id}-name-hint`}
          spellCheck={false}
          required
        />
      </label>
      <p className="hint" id={`${id}-name-hint`}>
        Lower-case letters, digits and -. The agent sees its tools as <code>mcp__name__tool</code>.
      </p>
      <fieldset className="row">
        <legend>Transport</legend>
        <label className="inline-check">
          <input type="radio" name={`${id}-transport`} checked={http} onChange={() => set('transport', 'http')} /> HTTP
          (a remote server)
        </label>
        <label className="inline-check">
          <input type="radio" name={`${id}-transport`} checked={!http} onChange={() => set('transport', 'stdio')} />{' '}
          Command (started inside the run&apos;s sandbox)
        </label>
      </fieldset>
      {http ? (
        <>
          <label>
            URL
            <input
              type="url"
              name="mcp-url"
              value={fields.url}
              onChange={(e) => set('url', e.target.value)}
              placeholder="https://mcp.example.com/mcp"
              required
            />
          </label>
          <label>
            Headers, one “Name: value” a line
            <textarea
              name="mcp-headers"
              value={fields.headers}
              onChange={(e) => set('headers', e.target.value)}
              rows={2}
              spellCheck={false}
              aria-describedby={`${id}-secret-hint`}
            />
          </label>
        </>
      ) : (
        <>
          <label>
            Command: the program, then each argument, one a line
            <textarea
              name="mcp-command"
              value={fields.command}
              onChange={(e) => set('command', e.target.value)}
              rows={3}
              spellCheck={false}
              required
            />
          </label>
          <label>
            Environment, one NAME=value a line
            <textarea
              name="mcp-env"
              value={fields.env}
              onChange={(e) => set('env', e.target.value)}
              rows={2}
              spellCheck={false}
              aria-describedby={`${id}-secret-hint`}
            />
          </label>
        </>
      )}
      <p className="hint" id={`${id}-secret-hint`}>
        Put credentials in the project&apos;s secrets and write <code>{SECRET_HINT}</code> in a value: the worker fills
        in the secret NAME when the run starts, so the value is never stored here.
      </p>
      <label className="inline-check">
        <input
          type="checkbox"
          name="mcp-allow-writes"
          checked={fields.allowWrites}
          onChange={(e) => set('allowWrites', e.target.checked)}
          aria-describedby={`${id}-writes-hint`}
        />{' '}
        Let its tools change things without asking
      </label>
      <p className="hint" id={`${id}-writes-hint`}>
        Off: a tool the server does not mark as read-only waits until a person approves the call (the run asks you, as
        for any question). On: the agent calls those tools freely.
      </p>
      <label className="inline-check">
        <input
          type="checkbox"
          name="mcp-enabled"
          checked={fields.enabled}
          onChange={(e) => set('enabled', e.target.checked)}
        />{' '}
        Enabled (offered to the agent of new runs)
      </label>
      <ErrorNote error={save.error} />
      <div>
        <button type="submit" className="primary" aria-disabled={save.isPending || undefined}>
          {save.isPending ? 'Saving…' : initial ? 'Save server' : 'Add server'}
        </button>
      </div>
    </form>
  );
}
