export { createScriptedLlmServer, startScriptedLlm } from './server';
export type {
  ListenOptions,
  RecordedRequest,
  RunningScriptedLlm,
  ScriptedLlmControls,
  ScriptedLlmOptions,
  ScriptedLlmServer,
} from './server';
export type { ScriptedHandler } from './chat';
export type { ScriptedRequest, ChatRequest } from './request';
export type { Script, ParsedScript, ScriptRule, ScriptResponse, ScriptedReply } from './script';
export { loadScriptFile, parseScript, parseScriptText, ScriptError } from './load-script';
export { countTokens } from './tokens';
export type { Usage, ChatCompletionObject } from './completion';
export { TEMPLATE_VARIABLES } from './template';
export { advance, phaseOf, plan, scriptedAgent, type AgentScript, type Call } from './agent-script';
