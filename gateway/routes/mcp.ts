import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Router, type Request, type Response } from 'express';
import type { GatewayContext } from '../context.js';
import { principalOf } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { methodNotAllowed } from '../middleware/method-not-allowed.js';
import { createMcpServer } from '../mcp/server.js';
import { toolSpecs } from '../mcp/tools.js';
import type { CallApi } from '../mcp/tools.js';

export const MCP_PATH = '/v1/mcp';

/**
 * The gateway's own address as this request reached it: tools call the API through it, with the
 * caller's Authorization, so every route's checks, limits, billing and request log apply unchanged.
 */
function selfApi(req: Request): CallApi {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address}]` : address;
  const base = `http://${host}:${req.socket.localPort}`;
  const authorization = req.headers.authorization ?? '';
  return async (method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'user-agent': 'trawler-mcp' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  };
}

/**
 * POST /v1/mcp: MCP over Streamable HTTP (docs/mcp.md), stateless: each POST is answered with one JSON
 * body by a server made for it; the key is the caller's, any valid key may list the tools, and each
 * tool checks its own scope. GET (a server-sent stream) and DELETE (a session) are refused (400, Allow: POST).
 */
export function mcpRoutes(context: GatewayContext): Router {
  const router = Router();
  router
    .route(MCP_PATH)
    .post(jsonBody({ required: true }), async (req: Request, res: Response, next) => {
      try {
        const server = createMcpServer(toolSpecs({ aiExtract: context.ai !== null }), principalOf(res), selfApi(req));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, res.locals.body);
      } catch (error) {
        next(error);
      }
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
