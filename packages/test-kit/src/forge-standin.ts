import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * A STAND-IN forge API (not a real forge): it answers the calls the server makes through the forges'
 * real client libraries (open a pull/merge request, find one by branch, post a commit status, comment,
 * read an issue), keeps what they made, and checks every request and every answer it gives:
 *
 * - GitHub: against GitHub's published OpenAPI description (`@octokit/openapi`,
 *   generated/api.github.com.json) with ajv: the operation must exist for the method and path, its
 *   path/query parameters and JSON body must validate, and each answer (built from the description's
 *   own examples) must validate against the operation's response schema.
 * - Gitea/Forgejo: against the request and response shapes of Gitea's swagger as gitea-js (generated
 *   from that swagger) types them, written out here (the swagger itself is not shipped in a package).
 * - GitLab: against the documented parameters of the REST endpoints used (no machine-readable
 *   description is published for them); checked: the paths, the required parameters and their enums.
 *
 * Anything that does not validate is recorded in `violations` (and answered 422/404), so a test asserts
 * `violations` is empty.
 */
export type StandInForgeKind = 'github' | 'gitea' | 'gitlab';

export interface StandInPull {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  state: 'open' | 'closed';
  url: string;
}

export interface StandInStatus {
  sha: string;
  state: string;
  context: string;
  description: string;
  target_url: string;
}

export interface StandInComment {
  number: number;
  body: string;
  on: 'issue' | 'merge_request';
}

export interface StandInIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
}

/**
 * A person the stand-in knows, by login: their id and their permission on the repository. Gitea answers
 * the permission as is; GitLab as a member's access level (read 20 Reporter, write 30 Developer, admin 40
 * Maintainer, owner 50), `none` as no member (404).
 */
export interface StandInMember {
  id: number;
  permission: 'none' | 'read' | 'write' | 'admin' | 'owner';
}

const GITLAB_ACCESS_LEVELS = { read: 20, write: 30, admin: 40, owner: 50 } as const;

export interface StandInRequest {
  method: string;
  path: string;
  operation: string | null;
  status: number;
  authorized: boolean;
}

export interface StandInForge {
  kind: StandInForgeKind;
  /** what the repository's `api_base_url` is set to */
  apiBaseUrl: string;
  /** a clone URL of the repository on this forge (for its `owner/name`) */
  cloneUrl: string;
  token: string;
  pulls: StandInPull[];
  statuses: StandInStatus[];
  comments: StandInComment[];
  issues: Map<number, StandInIssue>;
  /** who may do what on the repository (Gitea's collaborator permission, GitLab's project members); tests set it */
  members: Map<string, StandInMember>;
  requests: StandInRequest[];
  /** every request or answer that did not validate; a passing test expects none */
  violations: string[];
  /** calls `listener` after each request is answered (tests wait on it, never on time) */
  onRequest(listener: (request: StandInRequest) => void): () => void;
  /** resolves once `predicate` holds (checked now and after each request) */
  waitFor(predicate: () => boolean): Promise<void>;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  body: unknown;
}

// ---- GitHub: the published OpenAPI description ----

interface OpenApiOperation {
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown; $ref?: string }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown; examples?: Json }> }>;
}

interface GithubSpec {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Json; responses: Json; examples: Record<string, { value: unknown }>; parameters: Json };
}

let githubCache: { spec: GithubSpec; ajv: Ajv; routes: { method: string; path: string; regex: RegExp }[] } | null =
  null;

function github() {
  if (githubCache) return githubCache;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const spec = require('@octokit/openapi/generated/api.github.com.json') as GithubSpec;
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  openApiNullable(spec.components);
  ajv.addSchema({ $id: 'gh', components: spec.components });
  const routes = Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((method) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
      .map((method) => ({
        method,
        path,
        regex: new RegExp(`^${path.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
      })),
  );
  githubCache = { spec, ajv, routes };
  return githubCache;
}

/**
 * OpenAPI 3.0's `nullable: true` beside a `$ref`/`allOf` without a `type` (which ajv's `nullable`
 * keyword needs) becomes `anyOf: [<the schema>, {type: 'null'}]`: the same meaning in JSON Schema.
 */
function openApiNullable(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(openApiNullable);
  if (!node || typeof node !== 'object') return;
  const schema = node as Json;
  for (const value of Object.values(schema)) openApiNullable(value);
  if (schema.nullable === true && schema.type === undefined) {
    const inner = { ...schema };
    delete inner.nullable;
    for (const key of Object.keys(schema)) delete schema[key];
    schema.anyOf = [inner, { type: 'null' }];
  }
}

const rebased = (schema: unknown): Json =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"gh#/components/')) as Json;
const compiled = new Map<string, ValidateFunction>();
function validatorOf(key: string, schema: unknown): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = github().ajv.compile(rebased(schema));
    compiled.set(key, validate);
  }
  return validate;
}

function resolveRef<T>(spec: GithubSpec, value: T): T {
  const ref = (value as { $ref?: string } | null)?.$ref;
  if (!ref) return value;
  const parts = ref.replace(/^#\//, '').split('/');
  let node: unknown = spec;
  for (const part of parts) node = (node as Json)[part];
  return resolveRef(spec, node as T);
}

const errorsOf = (validate: ValidateFunction) =>
  (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`).join('; ');

type GithubRoute = { method: string; path: string; regex: RegExp };

/** A path parameter's value (by its place in the template) or a query parameter's. */
function parameterValue(
  route: GithubRoute,
  parameter: { name: string; in: string },
  path: string,
  query: URLSearchParams,
) {
  if (parameter.in === 'query') return query.get(parameter.name) ?? undefined;
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const values = route.regex.exec(path)!.slice(1).map(decodeURIComponent);
  return values[names.indexOf(parameter.name)];
}

/** The value of one documented path or query parameter, checked against its schema. */
function githubParameterProblem(
  route: GithubRoute,
  raw: NonNullable<OpenApiOperation['parameters']>[number],
  path: string,
  query: URLSearchParams,
): string | null {
  const { spec } = github();
  const parameter = resolveRef(spec, raw);
  if (parameter.in !== 'path' && parameter.in !== 'query') return null;
  const value = parameterValue(route, parameter, path, query);
  if (value === undefined) return parameter.required ? `${parameter.in} parameter ${parameter.name} is required` : null;
  const schema = (parameter.schema ?? {}) as { type?: string };
  const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
  const validate = validatorOf(`param ${route.method} ${route.path} ${parameter.name}`, schema);
  return validate(typed) ? null : `${parameter.in} parameter ${parameter.name}: ${errorsOf(validate)}`;
}

function githubBodyProblem(route: GithubRoute, operation: OpenApiOperation, body: unknown): string | null {
  const requestSchema = operation.requestBody?.content['application/json']?.schema;
  if (!requestSchema) return body === undefined ? null : 'a body for an operation that takes none';
  openApiNullable(requestSchema);
  const validate = validatorOf(`body ${route.method} ${route.path}`, requestSchema);
  return validate(body) ? null : `request body: ${errorsOf(validate)}`;
}

function githubCheckRequest(
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): { operation: string | null; problems: string[] } {
  const { spec, routes } = github();
  const route = routes.find((candidate) => candidate.method === method && candidate.regex.test(path));
  if (!route)
    return {
      operation: null,
      problems: [`${method.toUpperCase()} ${path}: no such operation in GitHub's OpenAPI description`],
    };
  const operation = spec.paths[route.path]![route.method]!;
  const parameters = operation.parameters ?? [];
  const problems = parameters.map((raw) => githubParameterProblem(route, raw, path, query));
  const known = new Set(parameters.map((raw) => resolveRef(spec, raw).name));
  for (const name of query.keys())
    if (!known.has(name)) problems.push(`query parameter ${name} is not in the operation`);
  problems.push(githubBodyProblem(route, operation, body));
  return {
    operation: `${route.method.toUpperCase()} ${route.path}`,
    problems: problems.filter((p): p is string => p !== null),
  };
}

function githubCheckResponse(method: string, path: string, answer: Answer): string[] {
  const { spec, routes } = github();
  const route = routes.find((candidate) => candidate.method === method && candidate.regex.test(path));
  if (!route) return [];
  const response = resolveRef(spec, spec.paths[route.path]![route.method]!.responses[String(answer.status)]);
  if (!response) return [`answer ${answer.status} is not documented for ${method.toUpperCase()} ${route.path}`];
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return [];
  openApiNullable(schema);
  const validate = validatorOf(`response ${route.method} ${route.path} ${answer.status}`, schema);
  return validate(answer.body)
    ? []
    : [`answer ${answer.status} of ${method.toUpperCase()} ${route.path}: ${errorsOf(validate)}`];
}

const example = (name: string): Json => structuredClone(github().spec.components.examples[name]!.value) as Json;

// ---- Gitea: request shapes of its swagger (CreatePullRequestOption, CreateStatusOption, CreateIssueCommentOption) ----

const giteaAjv = (() => {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  return ajv;
})();
const GITEA_SCHEMAS = {
  CreatePullRequestOption: giteaAjv.compile({
    type: 'object',
    additionalProperties: false,
    properties: {
      assignee: { type: 'string' },
      assignees: { type: 'array', items: { type: 'string' } },
      base: { type: 'string' },
      body: { type: 'string' },
      due_date: { type: 'string', format: 'date-time' },
      head: { type: 'string' },
      labels: { type: 'array', items: { type: 'integer' } },
      milestone: { type: 'integer' },
      reviewers: { type: 'array', items: { type: 'string' } },
      team_reviewers: { type: 'array', items: { type: 'string' } },
      title: { type: 'string' },
    },
  }),
  CreateStatusOption: giteaAjv.compile({
    type: 'object',
    additionalProperties: false,
    properties: {
      context: { type: 'string' },
      description: { type: 'string' },
      state: { type: 'string', enum: ['pending', 'success', 'error', 'failure', 'warning'] },
      target_url: { type: 'string' },
    },
  }),
  RepoCollaboratorPermission: giteaAjv.compile({
    type: 'object',
    additionalProperties: false,
    required: ['permission', 'role_name', 'user'],
    properties: {
      permission: { type: 'string', enum: ['none', 'read', 'write', 'admin', 'owner'] },
      role_name: { type: 'string' },
      user: {
        type: 'object',
        required: ['id', 'login'],
        properties: { id: { type: 'integer' }, login: { type: 'string' }, username: { type: 'string' } },
      },
    },
  }),
  CreateIssueCommentOption: giteaAjv.compile({
    type: 'object',
    additionalProperties: false,
    required: ['body'],
    properties: { body: { type: 'string' } },
  }),
  PullRequest: giteaAjv.compile({
    type: 'object',
    required: ['id', 'number', 'html_url', 'state', 'head', 'base', 'merged'],
    properties: {
      id: { type: 'integer' },
      number: { type: 'integer' },
      html_url: { type: 'string', format: 'uri' },
      state: { type: 'string', enum: ['open', 'closed'] },
      merged: { type: 'boolean' },
      head: {
        type: 'object',
        required: ['ref', 'sha'],
        properties: { ref: { type: 'string' }, sha: { type: 'string' } },
      },
      base: {
        type: 'object',
        required: ['ref', 'sha'],
        properties: { ref: { type: 'string' }, sha: { type: 'string' } },
      },
    },
  }),
};

// ---- GitLab: documented parameters of the endpoints used ----

const GITLAB_STATES = ['pending', 'running', 'success', 'failed', 'canceled'];

/** Starts a stand-in forge on a loopback port. */
export async function startStandInForge(
  kind: StandInForgeKind,
  options: {
    owner?: string;
    repo?: string;
    token?: string;
    issues?: StandInIssue[];
    members?: Record<string, StandInMember>;
  } = {},
): Promise<StandInForge> {
  const owner = options.owner ?? 'acme';
  const repo = options.repo ?? 'widgets';
  const token = options.token ?? 'standin-forge-token-0123456789';
  const pulls: StandInPull[] = [];
  const statuses: StandInStatus[] = [];
  const comments: StandInComment[] = [];
  const issues = new Map((options.issues ?? []).map((issue) => [issue.number, issue]));
  const members = new Map(Object.entries(options.members ?? {}));
  const requests: StandInRequest[] = [];
  const violations: string[] = [];
  const listeners = new Set<(request: StandInRequest) => void>();
  let origin = '';
  let nextNumber = 100;

  const webUrl = (kindPath: string, number: number) => `${origin}/${owner}/${repo}/${kindPath}/${number}`;

  const authorized = (req: IncomingMessage) => {
    if (kind === 'gitlab') return req.headers['private-token'] === token;
    const header = req.headers.authorization ?? '';
    return header === `token ${token}` || header === `Bearer ${token}`;
  };

  function githubPull(pull: StandInPull): Json {
    const value = example('pull-request');
    value.number = pull.number;
    value.html_url = pull.url;
    value.state = pull.state;
    value.title = pull.title;
    value.body = pull.body;
    value.merged_at = null;
    value.requested_teams = [];
    (value.head as Json).ref = pull.head;
    (value.base as Json).ref = pull.base;
    return value;
  }

  /** A route of a stand-in: method, path pattern (matched against the path after the repository's base) and answer. */
  type Route = {
    method: string;
    path: RegExp;
    answer: (match: RegExpExecArray, body: Json, query: URLSearchParams) => Answer;
  };
  const route = (routes: Route[], method: string, path: string, body: Json, query: URLSearchParams): Answer | null => {
    for (const candidate of routes) {
      const match = candidate.method === method ? candidate.path.exec(path) : null;
      if (match) return candidate.answer(match, body, query);
    }
    return null;
  };
  const githubNotFound: Answer = {
    status: 404,
    body: { message: 'Not Found', documentation_url: 'https://docs.github.com' },
  };
  const openPull = (
    head: string,
    baseBranch: string,
    title: string,
    text: string,
    urlPath: string,
  ): StandInPull | null => {
    if (pulls.some((other) => other.head === head && other.state === 'open')) return null;
    const pull: StandInPull = {
      number: ++nextNumber,
      head,
      base: baseBranch,
      title,
      body: text,
      state: 'open',
      url: webUrl(urlPath, nextNumber),
    };
    pulls.push(pull);
    return pull;
  };
  const recordStatus = (sha: string, body: Json, context: unknown) =>
    statuses.push({
      sha,
      state: String(body.state),
      context: String(context ?? 'default'),
      description: String(body.description ?? ''),
      target_url: String(body.target_url ?? ''),
    });

  function githubListItem(pull: StandInPull): Json {
    const item = (github().spec.components.examples['pull-request-simple-items']!.value as Json[])[0]!;
    const copy = structuredClone(item);
    Object.assign(copy, {
      number: pull.number,
      html_url: pull.url,
      state: pull.state,
      merged_at: null,
      requested_teams: [],
    });
    (copy.head as Json).ref = pull.head;
    (copy.base as Json).ref = pull.base;
    return copy;
  }

  const GITHUB_ROUTES: Route[] = [
    {
      method: 'post',
      path: /^\/pulls$/,
      answer: (_match, body) => {
        const pull = openPull(
          String(body.head),
          String(body.base),
          String(body.title ?? ''),
          String(body.body ?? ''),
          'pull',
        );
        if (!pull)
          return { status: 422, body: { message: 'Validation Failed', documentation_url: 'https://docs.github.com' } };
        return { status: 201, body: githubPull(pull) };
      },
    },
    {
      method: 'get',
      path: /^\/pulls$/,
      answer: (_match, _body, query) => {
        const head = query.get('head')?.split(':').pop();
        return {
          status: 200,
          body: pulls.filter((pull) => head === undefined || pull.head === head).map(githubListItem),
        };
      },
    },
    {
      method: 'post',
      path: /^\/statuses\/([0-9a-f]{4,64})$/,
      answer: (match, body) => {
        recordStatus(match[1]!, body, body.context);
        const value = example('status');
        Object.assign(value, {
          state: body.state,
          context: body.context ?? 'default',
          description: body.description ?? null,
          target_url: body.target_url ?? null,
        });
        return { status: 201, body: value };
      },
    },
    {
      method: 'post',
      path: /^\/issues\/(\d+)\/comments$/,
      answer: (match, body) => {
        comments.push({ number: Number(match[1]), body: String(body.body), on: 'issue' });
        return { status: 201, body: { ...example('issue-comment'), body: body.body } };
      },
    },
    {
      method: 'get',
      path: /^\/issues\/(\d+)$/,
      answer: (match) => {
        const found = issues.get(Number(match[1]));
        if (!found) return githubNotFound;
        const value = example('issue');
        const label = (value.labels as Json[])[0];
        Object.assign(value, {
          number: found.number,
          title: found.title,
          body: found.body,
          labels: found.labels.map((name, index) => ({ ...label, id: index + 1, name })),
        });
        return { status: 200, body: value };
      },
    },
  ];

  function githubRoute(method: string, path: string, query: URLSearchParams, body: Json): Answer {
    const base = `/repos/${owner}/${repo}`;
    if (!path.startsWith(`${base}/`)) return githubNotFound;
    return route(GITHUB_ROUTES, method, path.slice(base.length), body, query) ?? githubNotFound;
  }

  function giteaPull(pull: StandInPull): Json {
    return {
      id: pull.number + 1000,
      number: pull.number,
      html_url: pull.url,
      url: pull.url,
      state: pull.state,
      title: pull.title,
      body: pull.body,
      merged: false,
      head: { ref: pull.head, sha: '0'.repeat(40), label: pull.head },
      base: { ref: pull.base, sha: '1'.repeat(40), label: pull.base },
    };
  }

  const giteaCheck = (schema: ValidateFunction, name: string, body: Json) => {
    if (!schema(body)) violations.push(`Gitea ${name}: ${errorsOf(schema)}`);
  };
  const giteaNotFound: Answer = { status: 404, body: { message: 'not found' } };
  const GITEA_ROUTES: Route[] = [
    {
      // GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission (RepoCollaboratorPermission)
      method: 'get',
      path: /^\/collaborators\/([^/]+)\/permission$/,
      answer: (match, body) => {
        if (Object.keys(body).length > 0) violations.push('Gitea repoGetRepoPermissions: a GET has no body');
        const login = decodeURIComponent(match[1]!);
        const member = members.get(login);
        if (!member) return { status: 404, body: { message: 'user does not exist' } };
        const answer = {
          permission: member.permission,
          role_name: member.permission,
          user: { id: member.id, login, username: login },
        };
        giteaCheck(GITEA_SCHEMAS.RepoCollaboratorPermission, 'RepoCollaboratorPermission answer', answer);
        return { status: 200, body: answer };
      },
    },
    {
      method: 'post',
      path: /^\/pulls$/,
      answer: (_match, body) => {
        giteaCheck(GITEA_SCHEMAS.CreatePullRequestOption, 'CreatePullRequestOption', body);
        const pull = openPull(
          String(body.head),
          String(body.base),
          String(body.title ?? ''),
          String(body.body ?? ''),
          'pulls',
        );
        return pull
          ? { status: 201, body: giteaPull(pull) }
          : { status: 409, body: { message: 'pull request already exists' } };
      },
    },
    {
      // Gitea's route is /pulls/{base}/* : the head may hold slashes
      method: 'get',
      path: /^\/pulls\/([^/]+)\/(.+)$/,
      answer: (match) => {
        const [b, h] = [decodeURIComponent(match[1]!), decodeURIComponent(match[2]!)];
        const found = pulls.find((pull) => pull.base === b && pull.head === h);
        return found ? { status: 200, body: giteaPull(found) } : giteaNotFound;
      },
    },
    {
      method: 'post',
      path: /^\/statuses\/([0-9a-f]{4,64})$/,
      answer: (match, body) => {
        giteaCheck(GITEA_SCHEMAS.CreateStatusOption, 'CreateStatusOption', body);
        recordStatus(match[1]!, body, body.context);
        return {
          status: 201,
          body: { id: statuses.length, status: body.state, context: body.context, target_url: body.target_url },
        };
      },
    },
    {
      method: 'post',
      path: /^\/issues\/(\d+)\/comments$/,
      answer: (match, body) => {
        giteaCheck(GITEA_SCHEMAS.CreateIssueCommentOption, 'CreateIssueCommentOption', body);
        comments.push({ number: Number(match[1]), body: String(body.body), on: 'issue' });
        return { status: 201, body: { id: comments.length, body: body.body } };
      },
    },
    {
      method: 'get',
      path: /^\/issues\/(\d+)$/,
      answer: (match) => {
        const found = issues.get(Number(match[1]));
        if (!found) return giteaNotFound;
        const labels = found.labels.map((name, id) => ({ id, name }));
        return {
          status: 200,
          body: {
            id: found.number,
            number: found.number,
            title: found.title,
            body: found.body,
            html_url: webUrl('issues', found.number),
            labels,
          },
        };
      },
    },
  ];

  function giteaRoute(method: string, path: string, body: Json): Answer {
    const base = `/api/v1/repos/${owner}/${repo}`;
    const answer = path.startsWith(`${base}/`)
      ? route(GITEA_ROUTES, method, path.slice(base.length), body, new URLSearchParams())
      : null;
    if (answer) return answer;
    violations.push(
      `Gitea: ${method.toUpperCase()} ${path} is not an operation of the stand-in (not in Gitea's swagger as used)`,
    );
    return giteaNotFound;
  }

  function gitlabMr(pull: StandInPull): Json {
    return {
      id: pull.number + 1000,
      iid: pull.number,
      web_url: pull.url,
      state: pull.state === 'open' ? 'opened' : 'closed',
      title: pull.title,
      description: pull.body,
      source_branch: pull.head,
      target_branch: pull.base,
    };
  }

  const gitlabNeed = (path: string, body: Json, names: string[]) => {
    for (const name of names)
      if (body[name] === undefined || body[name] === '')
        violations.push(`GitLab ${path}: parameter ${name} is required`);
  };
  const gitlabNotFound: Answer = { status: 404, body: { message: '404 Not found' } };
  const GITLAB_ROUTES: Route[] = [
    {
      // GET /projects/:id/members/all/:user_id (direct, inherited and invited members)
      method: 'get',
      path: /^\/members\/all\/([^/]+)$/,
      answer: (match, body) => {
        const id = match[1]!;
        if (!/^\d+$/.test(id)) violations.push(`GitLab members/all: user_id ${id} is not an integer id`);
        if (Object.keys(body).length > 0) violations.push('GitLab members/all: unexpected parameters');
        const found = [...members].find(([, member]) => String(member.id) === id);
        if (!found) return gitlabNotFound;
        const [login, member] = found;
        if (member.permission === 'none') return gitlabNotFound;
        return {
          status: 200,
          body: {
            id: member.id,
            username: login,
            name: login,
            state: 'active',
            access_level: GITLAB_ACCESS_LEVELS[member.permission],
            web_url: `${origin}/${login}`,
          },
        };
      },
    },
    {
      method: 'post',
      path: /^\/merge_requests$/,
      answer: (match, body) => {
        gitlabNeed(match[0], body, ['source_branch', 'target_branch', 'title']);
        const pull = openPull(
          String(body.source_branch),
          String(body.target_branch),
          String(body.title),
          String(body.description ?? ''),
          '-/merge_requests',
        );
        if (!pull)
          return {
            status: 409,
            body: { message: ['Another open merge request already exists for this source branch'] },
          };
        return { status: 201, body: gitlabMr(pull) };
      },
    },
    {
      method: 'get',
      path: /^\/merge_requests$/,
      answer: (_match, _body, query) => {
        const source = query.get('source_branch');
        return { status: 200, body: pulls.filter((pull) => !source || pull.head === source).map(gitlabMr) };
      },
    },
    {
      method: 'post',
      path: /^\/statuses\/([0-9a-f]{4,64})$/,
      answer: (match, body) => {
        gitlabNeed(match[0], body, ['state']);
        if (!GITLAB_STATES.includes(String(body.state)))
          violations.push(`GitLab statuses: state ${String(body.state)} is not one of ${GITLAB_STATES.join(', ')}`);
        recordStatus(match[1]!, body, body.name ?? body.context);
        return { status: 201, body: { id: statuses.length, sha: match[1], status: body.state, name: body.name } };
      },
    },
    {
      method: 'post',
      path: /^\/(issues|merge_requests)\/(\d+)\/notes$/,
      answer: (match, body) => {
        gitlabNeed(match[0], body, ['body']);
        comments.push({
          number: Number(match[2]),
          body: String(body.body),
          on: match[1] === 'issues' ? 'issue' : 'merge_request',
        });
        return { status: 201, body: { id: comments.length, body: body.body } };
      },
    },
    {
      method: 'get',
      path: /^\/issues\/(\d+)$/,
      answer: (match) => {
        const found = issues.get(Number(match[1]));
        if (!found) return gitlabNotFound;
        return {
          status: 200,
          body: {
            id: found.number,
            iid: found.number,
            title: found.title,
            description: found.body,
            web_url: webUrl('-/issues', found.number),
            labels: found.labels,
          },
        };
      },
    },
  ];

  function gitlabRoute(method: string, path: string, query: URLSearchParams, body: Json): Answer {
    const project = `/api/v4/projects/${encodeURIComponent(`${owner}/${repo}`)}`;
    const answer = path.startsWith(`${project}/`)
      ? route(GITLAB_ROUTES, method, path.slice(project.length), body, query)
      : null;
    if (answer) return answer;
    violations.push(`GitLab: ${method.toUpperCase()} ${path} is not an endpoint the stand-in knows`);
    return gitlabNotFound;
  }

  /** The request's body: JSON or a form (GitLab's client may send either), recorded when it is neither. */
  function bodyOf(raw: string, type: string, where: string): unknown {
    if (raw === '') return undefined;
    if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
    if (!type.includes('application/json')) {
      violations.push(`${where}: unexpected content type ${type}`);
      return undefined;
    }
    try {
      return JSON.parse(raw);
    } catch {
      violations.push(`${where}: the body is not JSON`);
      return undefined;
    }
  }

  /** GitHub: the request checked against the description, answered, and the answer checked too. */
  function answerGithub(method: string, url: URL, body: unknown): { operation: string | null; answer: Answer } {
    const checked = githubCheckRequest(method, url.pathname, url.searchParams, body);
    violations.push(...checked.problems.map((problem) => `GitHub ${checked.operation ?? url.pathname}: ${problem}`));
    const answer = checked.problems.length
      ? { status: 422, body: { message: 'Validation Failed', documentation_url: 'https://docs.github.com' } }
      : githubRoute(method, url.pathname, url.searchParams, (body ?? {}) as Json);
    if (checked.operation)
      violations.push(...githubCheckResponse(method, url.pathname, answer).map((p) => `GitHub ${p}`));
    return { operation: checked.operation, answer };
  }

  function answerOthers(method: string, url: URL, body: unknown): Answer {
    if (kind === 'gitea') {
      const answer = giteaRoute(method, url.pathname, (body ?? {}) as Json);
      const opened = answer.status < 300 && method === 'post' && url.pathname.endsWith('/pulls');
      if (opened && !GITEA_SCHEMAS.PullRequest(answer.body))
        violations.push(`Gitea PullRequest answer: ${errorsOf(GITEA_SCHEMAS.PullRequest)}`);
      return answer;
    }
    const params = { ...Object.fromEntries(url.searchParams), ...((body ?? {}) as Json) };
    return gitlabRoute(method, url.pathname, url.searchParams, params);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://standin');
    // GitHub Enterprise's form: the API under /api/v3 (the client's `baseUrl`)
    if (kind === 'github') url.pathname = url.pathname.replace(/^\/api\/v3(?=\/)/, '');
    const method = (req.method ?? 'GET').toLowerCase();
    const body = bodyOf(
      Buffer.concat(chunks).toString('utf8'),
      req.headers['content-type'] ?? '',
      `${method} ${url.pathname}`,
    );
    const isAuthorized = authorized(req);
    let answer: Answer;
    let operation: string | null = `${method.toUpperCase()} ${url.pathname}`;
    if (!isAuthorized) {
      violations.push(`${operation}: no valid token`);
      answer = { status: 401, body: { message: 'Bad credentials' } };
    } else if (kind === 'github') ({ operation, answer } = answerGithub(method, url, body));
    else answer = answerOthers(method, url, body);
    const entry: StandInRequest = {
      method: method.toUpperCase(),
      path: url.pathname,
      operation,
      status: answer.status,
      authorized: isAuthorized,
    };
    requests.push(entry);
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(answer.body));
    for (const listener of [...listeners]) listener(entry);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      violations.push(`stand-in failed: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const onRequest = (listener: (request: StandInRequest) => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  return {
    kind,
    apiBaseUrl: kind === 'github' ? `${origin}/api/v3` : origin,
    cloneUrl: `${origin}/${owner}/${repo}.git`,
    token,
    pulls,
    statuses,
    comments,
    issues,
    members,
    requests,
    violations,
    onRequest,
    waitFor: (predicate) =>
      new Promise<void>((resolve) => {
        if (predicate()) return resolve();
        const stop = onRequest(() => {
          if (predicate()) {
            stop();
            resolve();
          }
        });
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
