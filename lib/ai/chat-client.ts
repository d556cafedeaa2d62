/**
 * The Chat Completions protocol (`POST {base}/chat/completions`), the one dialect every model server
 * speaks: OpenAI, vLLM, Ollama, llama.cpp's server, LiteLLM. No vendor SDK: one request, one answer.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** How the answer's structure is asked for, best first (docs/ai-extract.md "Structured output"). */
export type OutputMode = 'json_schema' | 'json_object' | 'prompt';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type ChatOutcome =
  | { kind: 'answer'; content: string; usage: ChatUsage | null; refusal: string | null }
  /** The server refused the response_format asked: a 4xx whose message names it (response_format, json_schema, schema). */
  | { kind: 'format_refused'; status: number; message: string }
  /** 429, 5xx or a dropped connection: worth another call after `retryAfterMs` (null: back off). */
  | { kind: 'transient'; status: number | null; message: string; retryAfterMs: number | null }
  | { kind: 'failed'; status: number | null; message: string }
  | { kind: 'timeout' };

export interface ChatRequest {
  messages: ChatMessage[];
  mode: OutputMode;
  schema: Record<string, unknown> | null;
  strict: boolean;
  timeoutMs: number;
}

export interface ChatEndpoint {
  baseUrl: string;
  apiKey: string | null;
  model: string;
}

export type ChatCall = (request: ChatRequest) => Promise<ChatOutcome>;

/** A completion larger than this is not read: an extraction answer is far smaller, and the gateway's memory is shared. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

function responseFormat(request: ChatRequest): Record<string, unknown> | undefined {
  if (request.mode === 'json_object') return { type: 'json_object' };
  if (request.mode === 'json_schema' && request.schema) {
    return { type: 'json_schema', json_schema: { name: 'extraction', schema: request.schema, strict: request.strict } };
  }
  return undefined;
}

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // Not JSON: the text itself.
  }
  return text.slice(0, 300);
}

function classifyHttpError(status: number, text: string, retryAfter: string | null, request: ChatRequest): ChatOutcome {
  const message = `HTTP ${status}: ${errorMessage(text) || 'no message'}`;
  if (status === 429 || status >= 500) return { kind: 'transient', status, message, retryAfterMs: retryAfterMs(retryAfter) };
  // Only a refusal that names the format falls back: a page too long for the context, a wrong key or
  // model is the same whatever the format, and must not downgrade the process's mode for good.
  const namesFormat = /response_format|json_schema|json_object|structured output|schema/i.test(text);
  if (request.mode !== 'prompt' && status >= 400 && status < 500 && status !== 429 && namesFormat) return { kind: 'format_refused', status, message };
  return { kind: 'failed', status, message };
}

interface CompletionBody {
  choices?: Array<{ message?: { content?: unknown; refusal?: unknown } }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

function readAnswer(text: string): ChatOutcome {
  let body: CompletionBody;
  try {
    body = JSON.parse(text) as CompletionBody;
  } catch {
    return { kind: 'failed', status: 200, message: 'the model server answered something other than JSON' };
  }
  const message = body.choices?.[0]?.message;
  const refusal = typeof message?.refusal === 'string' && message.refusal !== '' ? message.refusal : null;
  const usage = body.usage;
  const tokens = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return {
    kind: 'answer',
    content: typeof message?.content === 'string' ? message.content : '',
    refusal,
    usage: usage ? { prompt_tokens: tokens(usage.prompt_tokens), completion_tokens: tokens(usage.completion_tokens) } : null,
  };
}

/** One Chat Completions call over `fetch`, classified; never throws. */
export function chatClient(endpoint: ChatEndpoint): ChatCall {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  return async (request) => {
    // No temperature or token limit: some models refuse any but their default, and the defaults serve.
    const body = { model: endpoint.model, messages: request.messages, response_format: responseFormat(request) };
    const signal = AbortSignal.timeout(request.timeoutMs);
    try {
      const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
      if (Number(response.headers.get('content-length') ?? 0) > MAX_ANSWER_BYTES) {
        await response.body?.cancel();
        return { kind: 'failed', status: response.status, message: `an answer larger than ${MAX_ANSWER_BYTES} bytes` };
      }
      const text = await response.text();
      if (text.length > MAX_ANSWER_BYTES) return { kind: 'failed', status: response.status, message: `an answer larger than ${MAX_ANSWER_BYTES} bytes` };
      if (!response.ok) return classifyHttpError(response.status, text, response.headers.get('retry-after'), request);
      return readAnswer(text);
    } catch (error) {
      if (signal.aborted) return { kind: 'timeout' };
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      return { kind: 'transient', status: null, message: `connection failed: ${cause}`, retryAfterMs: null };
    }
  };
}
