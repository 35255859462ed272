import { z } from 'zod';
import { ERROR_CODES, ERROR_STATUS } from '../errors';
import type { AuthProviderKind } from '../rest/auth';
import { servedOperations } from '../routes';
import type { IdentifiedOperation, ResponseDoc } from '../routes/operation';
import { NAMED_SCHEMAS } from './schemas';
import { WEBHOOK_EVENT_DOCS, WEBHOOK_HEADERS, WebhookEventTypeSchema, WebhookPayloadSchema } from '../rest/webhooks';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface OpenApiOptions {
  /** the server's version (info.version) */
  version: string;
  /** leave out the sign-in endpoints other providers serve; all of them when absent */
  provider?: AuthProviderKind;
  /** where the server is reached (its PUBLIC_URL); the document's `servers` (default: the origin it is read from) */
  serverUrl?: string;
}

const COMPONENT = '#/components/schemas/';
const ERROR_REF = { $ref: `${COMPONENT}ErrorBody` };

/** Status -> the error codes answered with it (from the protocol's one table). */
const CODES_BY_STATUS = new Map<number, string[]>();
for (const code of ERROR_CODES) {
  const status = ERROR_STATUS[code];
  CODES_BY_STATUS.set(status, [...(CODES_BY_STATUS.get(status) ?? []), code]);
}

/**
 * The OpenAPI 3.1 document of the REST API, generated from the protocol's zod schemas (`z.toJSONSchema`,
 * JSON Schema 2020-12, which OpenAPI 3.1 uses): request bodies in their input form (defaults optional),
 * responses in their output form, shared schemas under `components.schemas`, and the contract's error
 * body on every error status.
 */
export function buildOpenApiDocument(options: OpenApiOptions): Json {
  const routes = servedOperations(options.provider);
  const roles = schemaRoles(routes);
  const schemas = { ...components(roles.input, 'input'), ...components(roles.output, 'output') };
  const named = new Map<z.ZodType, string>(Object.entries(NAMED_SCHEMAS).map(([name, s]) => [s, name]));
  const ref = (schema: z.ZodType, io: 'input' | 'output'): Json => {
    const name = named.get(schema);
    return name ? { $ref: `${COMPONENT}${name}` } : inline(schema, io);
  };

  const paths: Json = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operation(route, ref);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc API',
      version: options.version,
      description:
        'Agent workflow service. Every endpoint accepts the `svc_session` cookie or `Authorization: Bearer <jwt>` ' +
        '(tokens from `POST /svc/api/token`). Errors are `{"error": {"code", "message", "request_id"}}` ' +
        '(the `ErrorBody` schema); a caller who may not see an object gets 404, never 403. Lists that grow ' +
        'take `?limit=` (default 100, max 1000) and `?cursor=` and answer `{items, next_cursor}`.',
    },
    servers: [{ url: options.serverUrl ?? '/', description: 'this server (the paths start with /svc)' }],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    webhooks: webhooksSection(),
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (ES256)' },
        session: { type: 'apiKey', in: 'cookie', name: 'svc_session' },
      },
    },
  };
}

/** Which named schemas are used as request bodies (input form) and which as responses (output form). */
function schemaRoles(routes: IdentifiedOperation[]): { input: Set<string>; output: Set<string> } {
  const byschema = new Map<z.ZodType, string>(Object.entries(NAMED_SCHEMAS).map(([name, s]) => [s, name]));
  const input = new Set<string>();
  const output = new Set<string>(['ErrorBody']);
  for (const route of routes) {
    const body = route.body?.schema && byschema.get(route.body.schema);
    if (body) input.add(body);
    for (const response of Object.values(route.responses)) {
      const name = response.schema && byschema.get(response.schema);
      if (name) output.add(name);
    }
  }
  for (const name of input) {
    if (output.has(name)) throw new Error(`OpenAPI: schema ${name} is both a request and a response`);
  }
  return { input, output };
}

function components(names: Set<string>, io: 'input' | 'output'): Record<string, Json> {
  if (names.size === 0) return {};
  const registry = z.registry<{ id: string }>();
  for (const name of names) registry.add(NAMED_SCHEMAS[name]!, { id: name });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `${COMPONENT}${id}`,
  }) as { schemas: Record<string, Json> };
  const out: Record<string, Json> = {};
  for (const name of names) out[name] = clean(schemas[name]);
  return out;
}

function inline(schema: z.ZodType, io: 'input' | 'output'): Json {
  return clean(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }));
}

/** Drops the per-document keys (`$schema`, `$id`) that a component or inline schema does not need. */
function clean(schema: Json): Json {
  const { $schema: _schema, $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function operation(route: IdentifiedOperation, ref: (schema: z.ZodType, io: 'input' | 'output') => Json): Json {
  const parameters = [...pathParameters(route), ...queryParameters(route), ...headerParameters(route)];
  const op: Json = {
    operationId: route.id,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: securityOf(route),
  };
  if (parameters.length) op.parameters = parameters;
  if (route.body) op.requestBody = requestBody(route.body, ref);
  op.responses = responses(route, ref);
  return op;
}

function securityOf(route: IdentifiedOperation): Json[] {
  if (route.auth === 'public') return [];
  return route.credentials === 'bearer' ? [{ bearer: [] }] : [{ bearer: [] }, { session: [] }];
}

function pathParameters(route: IdentifiedOperation): Json[] {
  return Object.entries(route.params?.shape ?? {}).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    description: schema.description,
    schema: { type: 'string' },
  }));
}

function queryParameters(route: IdentifiedOperation): Json[] {
  if (!route.query) return [];
  const query = inline(route.query, 'input');
  const required = new Set<string>(query.required ?? []);
  return Object.entries<Json>(query.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function headerParameters(route: IdentifiedOperation): Json[] {
  return Object.entries(route.headers ?? {}).map(([name, description]) => ({
    name,
    in: 'header',
    required: false,
    description,
    schema: { type: 'string' },
  }));
}

function requestBody(body: NonNullable<IdentifiedOperation['body']>, ref: (s: z.ZodType, io: 'input') => Json): Json {
  const types = body.contentTypes ?? ['application/json'];
  const content: Json = {};
  for (const type of types) content[type] = { schema: bodySchema(type, body.schema, ref) };
  return {
    required: body.required ?? true,
    ...(body.description ? { description: body.description } : {}),
    content,
  };
}

/** The route's documented responses, then the contract's error body on every error status it may answer. */
function responses(route: IdentifiedOperation, ref: (s: z.ZodType, io: 'output') => Json): Json {
  const out: Json = {};
  for (const [status, response] of Object.entries(route.responses)) out[status] = present(response, ref);
  for (const status of errorStatuses(route)) {
    out[String(status)] ??= {
      description: `error: ${(CODES_BY_STATUS.get(status) ?? []).join(', ')}`,
      content: { 'application/json': { schema: ERROR_REF } },
    };
  }
  return out;
}

function bodySchema(type: string, schema: z.ZodType | undefined, ref: (s: z.ZodType, io: 'input') => Json): Json {
  if (type === 'application/json' || type === 'application/x-www-form-urlencoded')
    return schema ? ref(schema, 'input') : {};
  if (type === 'multipart/form-data')
    return { type: 'object', description: 'one or more file parts; each part is stored under its file name' };
  if (type.startsWith('text/')) return { type: 'string' };
  return { type: 'string', contentMediaType: 'application/octet-stream' };
}

function present(response: ResponseDoc, ref: (s: z.ZodType, io: 'output') => Json): Json {
  const out: Json = { description: response.description };
  if (response.headers) {
    out.headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, description]) => [
        name,
        { description, schema: { type: 'string' } },
      ]),
    );
  }
  if (response.schema || response.contentType) {
    const types = typeof response.contentType === 'string' ? [response.contentType] : response.contentType;
    const schema = response.schema ? ref(response.schema, 'output') : {};
    out.content = Object.fromEntries((types ?? ['application/json']).map((type) => [type, { schema }]));
  }
  return out;
}

/** The errors every route of its kind may answer, plus its own. */
function errorStatuses(route: IdentifiedOperation): number[] {
  const statuses = new Set<number>(route.errors ?? []);
  if (route.auth === 'required') {
    statuses.add(401);
    statuses.add(403);
  }
  if (route.params) statuses.add(404);
  if (route.body) statuses.add(400);
  statuses.add(500);
  return [...statuses].sort((a, b) => a - b);
}

/** `METHOD /path` of every documented operation (for comparing with a server's routes). */
export function documentedOperations(document: Json): string[] {
  const found: string[] = [];
  for (const [path, ops] of Object.entries<Json>(document.paths ?? {})) {
    for (const method of Object.keys(ops)) found.push(`${method.toUpperCase()} ${path}`);
  }
  return found.sort();
}

/**
 * The outbound webhooks' deliveries (OpenAPI 3.1 `webhooks`): one POST per event type, its JSON body
 * (`type` fixed to that event) and the signature headers. Answer 2xx to acknowledge; anything else is
 * retried with exponential backoff for 24 hours.
 */
function webhooksSection(): Json {
  const out: Json = {};
  for (const type of WebhookEventTypeSchema.options) {
    const body = clean(
      z.toJSONSchema(WebhookPayloadSchema.extend({ type: z.literal(type) }), {
        target: 'draft-2020-12',
        io: 'output',
        unrepresentable: 'any',
      }),
    );
    out[type] = {
      post: {
        operationId: `webhook_${type.replace(/\./g, '_')}`,
        tags: ['webhooks'],
        summary: WEBHOOK_EVENT_DOCS[type],
        parameters: Object.entries(WEBHOOK_HEADERS).map(([name, description]) => ({
          name,
          in: 'header',
          required: true,
          description,
          schema: { type: 'string' },
        })),
        requestBody: { required: true, content: { 'application/json': { schema: body } } },
        responses: {
          '2XX': { description: 'received (any 2xx); other answers and errors are retried with backoff' },
        },
      },
    };
  }
  return out;
}
