import type { SecretMasker } from '@svc/text';
import type { ChatModel, ChatRequest, ChatResponse } from '../llm/llm-client';

/**
 * A workflow's LLM behind its secret masker: every message of every request (tool output, the
 * requirement, answers, feedback) is masked right before it leaves, so the LLM never receives a
 * value, and the `llm_call` detail records what was really sent.
 */
export class MaskedModel implements ChatModel {
  constructor(
    private readonly inner: ChatModel,
    /** Looked up per call: the workflow's holds change while it runs (an exec, a title). */
    private readonly masker: () => SecretMasker,
  ) {}

  get model(): string {
    return this.inner.model;
  }

  chat(request: ChatRequest): Promise<ChatResponse> {
    const masker = this.masker();
    return this.inner.chat(masker.isEmpty ? request : { ...request, messages: masker.maskJson(request.messages) });
  }
}
