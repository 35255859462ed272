import { useQuery } from '@tanstack/react-query';
import { isNotFound } from '../../lib/api';
import { ErrorNote, Loading } from '../../components/Feedback';
import { formatNumber } from '../../lib/format';
import { getLlmCallDetail, type ChatMessage, type ToolDefinition } from './api';
import { messageText, prettyArguments } from './message-text';

/** Messages longer than this start folded (system prompts, tool results); the reply is always open. */
const OPEN_BELOW_CHARS = 800;

const NOT_KEPT =
  'The messages of this call were not kept: the worker sent none (its size bound is 0) or they were pruned after the retention period.';

/** The tool each tool call id called, so a tool result can name the tool it answers. */
function toolNamesById(messages: readonly ChatMessage[]): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  for (const call of messages.flatMap((m) => m.tool_calls ?? []))
    if (call.id && call.function?.name) names.set(call.id, call.function.name);
  return names;
}

/** Who a message is from: its role and name; a tool result also names the tool and the call it answers. */
function speakerOf(message: ChatMessage, toolNames: ReadonlyMap<string, string>): string {
  const answers = message.tool_call_id && toolNames.get(message.tool_call_id);
  return [
    message.role === 'tool' ? 'tool result' : message.role,
    message.name,
    answers && `of ${answers}`,
    message.tool_call_id && `for ${message.tool_call_id}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

function MessageView({
  message,
  open,
  toolNames = new Map(),
}: {
  message: ChatMessage;
  open: boolean;
  toolNames?: ReadonlyMap<string, string>;
}) {
  const text = messageText(message.content);
  const toolCalls = message.tool_calls ?? [];
  const who = speakerOf(message, toolNames);
  return (
    <li className={`llm-message llm-role-${message.role.replace(/[^a-z_]/gi, '')}`}>
      <details open={open || text.length < OPEN_BELOW_CHARS}>
        <summary>
          <strong>{who}</strong>{' '}
          <span className="muted small">
            {formatNumber(text.length)} characters
            {toolCalls.length > 0 && `, ${toolCalls.length} tool call${toolCalls.length === 1 ? '' : 's'}`}
          </span>
        </summary>
        {text && <pre className="llm-content">{text}</pre>}
        {toolCalls.map((call, i) => (
          <div key={call.id ?? i} className="llm-tool-call">
            <p className="small">
              Tool call <code>{call.function?.name ?? '?'}</code>
              {call.id && <span className="muted"> ({call.id})</span>}
            </p>
            <pre className="llm-content">{prettyArguments(call.function?.arguments)}</pre>
          </div>
        ))}
      </details>
    </li>
  );
}

/** The tools the request offered: each one's name, description and parameter schema, folded. */
function ToolDefinitions({ tools }: { tools: readonly ToolDefinition[] }) {
  return (
    <>
      <p className="llm-detail-head">Tools offered ({tools.length})</p>
      <ul className="llm-messages llm-tools">
        {tools.map((tool, i) => (
          <li key={tool.function?.name ?? i} className="llm-message llm-tool-definition">
            <details>
              <summary>
                <code>{tool.function?.name ?? '?'}</code>
                {tool.function?.description && <span className="muted small"> {tool.function.description}</span>}
              </summary>
              <pre className="llm-content">{JSON.stringify(tool.function?.parameters ?? {}, null, 2)}</pre>
            </details>
          </li>
        ))}
      </ul>
    </>
  );
}

/** What one LLM call sent and got back, loaded when opened; "not kept" when the server has none. */
export function LlmCallDetailView({
  workflowId,
  callId,
  known,
}: {
  workflowId: string;
  callId: string;
  /** false: the list says no detail is stored, so none is asked for */
  known: boolean;
}) {
  const detail = useQuery({
    queryKey: ['workflow', workflowId, 'llm-call', callId],
    queryFn: () => getLlmCallDetail(workflowId, callId),
    enabled: known,
    retry: (count, error) => !isNotFound(error) && count < 2,
  });
  if (!known || isNotFound(detail.error)) return <p className="muted llm-not-kept">{NOT_KEPT}</p>;
  if (detail.isPending) return <Loading what="the messages of this call" />;
  if (detail.error) return <ErrorNote error={detail.error} />;
  const { messages, reply, truncated, tools } = detail.data;
  const toolNames = toolNamesById(messages);
  return (
    <div className="llm-detail">
      {truncated && (
        <p className="muted small">Cut to the worker&apos;s size bound: the end of the messages is missing.</p>
      )}
      <p className="llm-detail-head">Sent ({messages.length} messages)</p>
      <ol className="llm-messages">
        {messages.map((message, i) => (
          <MessageView key={i} message={message} open={false} toolNames={toolNames} />
        ))}
      </ol>
      {tools && tools.length > 0 && <ToolDefinitions tools={tools} />}
      <p className="llm-detail-head">Reply</p>
      {reply ? (
        <ol className="llm-messages">
          <MessageView message={reply} open />
        </ol>
      ) : (
        <p className="muted">No reply (the call failed).</p>
      )}
    </div>
  );
}
