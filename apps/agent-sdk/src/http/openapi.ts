import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { type DescribeRouteOptions, describeRoute, openAPIRouteHandler, resolver } from 'hono-openapi';
import { z } from 'zod';
import { ERROR_HTTP_STATUS, type ErrorCode } from '../protocol/errors.js';
import { ErrorBody } from '../protocol/registration.js';

export { describeRoute, resolver };

/** Errors any route can answer: an unexpected failure, or the store behind it gone. */
const ALWAYS: ErrorCode[] = ['INTERNAL'];

/**
 * The error responses of a route, one per status, each listing the codes it can carry
 * (`{code, message, requestId, data?}` with `code` narrowed to them).
 */
export function errorResponses(...codes: ErrorCode[]): NonNullable<DescribeRouteOptions['responses']> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...codes, ...ALWAYS])) {
    const status = ERROR_HTTP_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: NonNullable<DescribeRouteOptions['responses']> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schema = ErrorBody.extend({ code: z.enum(list as [ErrorCode, ...ErrorCode[]]) });
    responses[String(status)] = {
      description: list.join(', '),
      content: { 'application/json': { schema: resolver(schema) } },
    };
  }
  return responses;
}

/** A JSON response described by a zod schema. */
export function jsonResponse(
  description: string,
  schema: z.ZodType,
): NonNullable<DescribeRouteOptions['responses']>[string] {
  return { description, content: { 'application/json': { schema: resolver(schema) } } };
}

/** `GET /healthz`, the same in every app: the process answers. */
export function healthzRoute() {
  return describeRoute({
    tags: ['probes'],
    summary: 'Liveness: the process answers',
    responses: { 200: jsonResponse('Alive.', z.object({ status: z.literal('ok') })) },
  });
}

/** A JSON request body described by the zod schema the route validates with. */
export function jsonBody(
  schema: z.ZodType,
  description?: string,
): NonNullable<DescribeRouteOptions['requestBody']> {
  return {
    required: true,
    ...(description ? { description } : {}),
    content: { 'application/json': { schema: resolver(schema) } },
  };
}

type Parameter = NonNullable<DescribeRouteOptions['parameters']>[number];

/** A path parameter with the JSON Schema of the zod schema that checks it. */
export function pathParameter(name: string, schema: z.ZodType, description: string): Parameter {
  return { name, in: 'path', required: true, description, schema: jsonSchemaOf(schema) };
}

/** One query parameter per key of the zod object the route parses its query with. */
export function queryParameters(object: z.ZodObject): Parameter[] {
  return Object.entries(object.shape).map(([name, field]) => ({
    name,
    in: 'query',
    required: !(field as z.ZodType).safeParse(undefined).success,
    schema: jsonSchemaOf(field as z.ZodType),
  }));
}

/** A header parameter (plain string). */
export function headerParameter(name: string, description: string, required = false): Parameter {
  return { name, in: 'header', required, description, schema: { type: 'string' } };
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

/** What the API reference describes. */
export interface ApiDocsOptions {
  title: string;
  version: string;
  description: string;
}

/**
 * `GET /openapi.json` (OpenAPI 3.1 generated from the routes' `describeRoute` and zod schemas) and
 * `GET /docs` (Swagger UI served from the swagger-ui-dist package, no CDN), mounted on `app`.
 * Call after every route is on `app`, so the document lists them all.
 */
export function mountApiDocs(app: Hono, options: ApiDocsOptions): void {
  const docs = new Hono();
  docs.get(
    '/openapi.json',
    openAPIRouteHandler(app, {
      documentation: {
        openapi: '3.1.0',
        info: { title: options.title, version: options.version, description: options.description },
      },
      exclude: ['/openapi.json', '/docs', '/docs/:file'],
    }),
  );
  docs.get('/docs', (c) =>
    c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escapeHtml(options.title)}</title><link rel="stylesheet" href="/docs/swagger-ui.css"></head>` +
        `<body><main id="swagger-ui"></main><script src="/docs/swagger-ui-bundle.js"></script>` +
        `<script src="/docs/init.js"></script></body></html>`,
    ),
  );
  docs.get('/docs/:file', async (c) => {
    const file = c.req.param('file');
    if (file === 'init.js')
      return c.body(
        "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n",
        200,
        { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' },
      );
    const type = UI_FILES[file];
    if (type === undefined) return c.json({ code: 'NOT_FOUND', message: `no file ${file}` }, 404);
    return c.body(await readFile(join(await swaggerUiDir(), file)), 200, {
      'content-type': type,
      'cache-control': 'public, max-age=3600',
    });
  });
  app.route('/', docs);
}

/** The only swagger-ui-dist files the page loads. */
const UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

let uiDir: string | undefined;
async function swaggerUiDir(): Promise<string> {
  // Resolved on first use, from this module or (bundled) the app beside it.
  uiDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return uiDir;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]!);
