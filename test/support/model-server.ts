import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server speaking the Chat Completions protocol (`POST /v1/chat/completions`) as OpenAI,
 * vLLM or Ollama do, answering from a script the test sets: each step is one answer, in order; with
 * the script empty, `fallback` answers. Every request body is kept for assertions.
 */
export interface ChatRequestBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { name: string; schema: unknown; strict?: boolean } };
}

export type ModelStep =
  /** A completion whose message content is this text (usage: 100 prompt, 20 completion tokens). */
  | { content: string; refusal?: string }
  /** A raw HTTP answer. */
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Never answers (until the server closes). */
  | { hang: true }
  /** Waits until `release()` before answering with `then`. */
  | { held: true; then: ModelStep }
  /** Answers with `then` after `delayMs` (benchmarks: the model's own time). */
  | { delayMs: number; then: ModelStep };

export interface ModelServer {
  /** The `/v1` base, as AI_BASE_URL. */
  baseUrl: string;
  requests: ChatRequestBody[];
  authorizations: Array<string | undefined>;
  script(...steps: ModelStep[]): void;
  /** Answers when the script is empty (default: `{"title": "The article title"}`). */
  fallback: (request: ChatRequestBody) => ModelStep;
  /** Requests being answered right now, and the most at once since the last reset. */
  inFlight(): number;
  maxInFlight(): number;
  /** Lets every held step answer. */
  release(): void;
  reset(): void;
  close(): Promise<void>;
}

export const USAGE = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };

function completion(step: { content: string; refusal?: string }, model: string): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: step.content, refusal: step.refusal ?? null }, finish_reason: 'stop' }],
    usage: USAGE,
  };
}

export async function startModelServer(): Promise<ModelServer> {
  let steps: ModelStep[] = [];
  const requests: ChatRequestBody[] = [];
  const authorizations: Array<string | undefined> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let waiters: Array<() => void> = [];
  const hanging = new Set<http.ServerResponse>();
  const server: ModelServer = {
    baseUrl: '',
    requests,
    authorizations,
    script: (...next) => void (steps = [...next]),
    fallback: () => ({ content: JSON.stringify({ title: 'The article title' }) }),
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    release() {
      const ready = waiters;
      waiters = [];
      for (const wake of ready) wake();
    },
    reset() {
      steps = [];
      requests.length = 0;
      authorizations.length = 0;
      maxInFlight = inFlight;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.release();
      await new Promise<void>((resolve) => http_.close(() => resolve()));
    },
  };
  async function answer(step: ModelStep, body: ChatRequestBody, res: http.ServerResponse): Promise<void> {
    if ('hang' in step) {
      hanging.add(res);
      return;
    }
    if ('held' in step) {
      await new Promise<void>((resolve) => waiters.push(resolve));
      return answer(step.then, body, res);
    }
    if ('delayMs' in step) {
      await new Promise((resolve) => setTimeout(resolve, step.delayMs));
      return answer(step.then, body, res);
    }
    if ('content' in step) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(step, body.model)));
      return;
    }
    res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers }).end(step.body === undefined ? '' : JSON.stringify(step.body));
  }
  const http_ = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
      requests.push(body);
      authorizations.push(req.headers.authorization);
      const step = steps.shift() ?? server.fallback(body);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.on('close', () => (inFlight -= 1));
      void answer(step, body, res);
    });
  });
  await new Promise<void>((resolve) => http_.listen(0, '127.0.0.1', resolve));
  server.baseUrl = `http://127.0.0.1:${(http_.address() as AddressInfo).port}/v1`;
  return server;
}
