/** The error body OpenAI-compatible providers send, which the openai client turns into APIError. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  404: 'invalid_request_error',
  405: 'invalid_request_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
};

const CODE_BY_STATUS: Record<number, string> = {
  401: 'invalid_api_key',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  429: 'rate_limit_exceeded',
  500: 'internal_error',
  503: 'service_unavailable',
};

export function openAiError(
  status: number,
  message: string,
  options: { type?: string | undefined; code?: string | undefined } = {},
): OpenAiErrorBody {
  return {
    error: {
      message,
      type: options.type ?? TYPE_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'),
      param: null,
      code: options.code ?? CODE_BY_STATUS[status] ?? null,
    },
  };
}

/** Thrown inside request handling; becomes an OpenAI error response with this status. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }

  get body(): OpenAiErrorBody {
    return openAiError(this.status, this.message, { code: this.code });
  }
}
