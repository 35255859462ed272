// The LLM calls view lives in features/llm; the run page imports it from here.
export { LlmCallsTable } from '../llm/LlmCallsTable';
