import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Router, type Request, type Response } from 'express';
import { ERROR_CATALOGUE, codeAnchor, type ErrorCode } from '../errors/index.js';

/** An OpenAPI document, or a function that reads one (e.g. from the gateway's GET /v1/openapi.json). */
export type ApiDocumentSource = Record<string, unknown> | (() => Promise<Record<string, unknown>>);

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** The renderer's files this page needs, served from the npm package: no CDN. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Trawler API reference</title>
  <link rel="icon" type="image/png" href="./favicon-32x32.png">
  <link rel="stylesheet" href="./swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="./swagger-ui-bundle.js"></script>
  <script src="./reference.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise load a badge from an outside validator service.
const INIT = `window.ui = SwaggerUIBundle({ url: './openapi.json', dom_id: '#reference', deepLinking: true, validatorUrl: null });\n`;

/**
 * The rendered API reference: GET / (the page), /openapi.json (the document) and the renderer's
 * assets. Mount it under any prefix, e.g. `app.use('/reference', apiReferenceRouter(document))`.
 * The page loads everything relative to itself, so `/prefix` is redirected to `/prefix/`.
 */
export function apiReferenceRouter(source: ApiDocumentSource): Router {
  const router = Router();
  const load = typeof source === 'function' ? source : () => Promise.resolve(source);
  router.get('/', (req: Request, res: Response) => {
    const [path, query] = req.originalUrl.split('?');
    if (!path.endsWith('/')) return res.redirect(301, `${path}/${query === undefined ? '' : `?${query}`}`);
    res.setHeader('Cache-Control', 'no-cache');
    return res.type('text/html; charset=utf-8').send(PAGE);
  });
  // The error reference problem links point to when the deployment sets no DOCS_URL (docs/api-reference.md).
  router.get('/errors', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/html; charset=utf-8').send(errorsPage());
  });
  router.get('/reference.js', (_req, res) => {
    res.type('text/javascript; charset=utf-8').send(INIT);
  });
  router.get('/openapi.json', async (_req, res, next) => {
    try {
      res.setHeader('Cache-Control', 'no-cache');
      res.json(await load());
    } catch (error) {
      next(error);
    }
  });
  router.get('/:asset', (req, res, next) => {
    const type = Object.hasOwn(ASSETS, req.params.asset) ? ASSETS[req.params.asset] : undefined;
    if (type === undefined) return next();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    return res.type(type).sendFile(req.params.asset, { root: SWAGGER_UI_DIR });
  });
  return router;
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

/** Every code of the catalogue with its anchor (`#FAMILY_NAME`, the problem's `type`), status, title and retryability. */
function errorsPage(): string {
  const rows = (Object.keys(ERROR_CATALOGUE) as ErrorCode[])
    .map((code) => {
      const entry = ERROR_CATALOGUE[code];
      const anchor = codeAnchor(code);
      return `<tr id="${anchor}"><td><a href="#${anchor}"><code>${escapeHtml(code)}</code></a></td><td>${entry.status}</td><td>${escapeHtml(entry.title)}</td><td>${entry.retryable ? 'yes' : 'no'}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Trawler errors</title></head>
<body><h1>Trawler error codes</h1>
<p>Every error is an <code>application/problem+json</code> body whose <code>code</code> is one of these; <code>detail</code> says what was wrong this time. The full reference is <a href="./">the API reference</a>.</p>
<table><thead><tr><th>Code</th><th>HTTP status</th><th>Title</th><th>Retryable</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}
