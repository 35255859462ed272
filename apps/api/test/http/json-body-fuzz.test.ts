import fc from 'fast-check';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import type { TemplateCatalog } from '../../src/services/templates';

/**
 * Property: whatever a caller sends to a JSON body route, the answer is never a 5xx, and every refusal
 * is the contract's error body `{"error": {code, message, request_id}}`. A body that cannot be valid
 * (a field of the wrong type, an unknown field, a body that is not a JSON object, malformed JSON) must be
 * refused with 400 `invalid_input` (or 413 when too large). Values that may be valid (NUL characters,
 * lone surrogates, odd Unicode, long strings, extreme numbers of the right type) may be accepted, but
 * never with a 5xx.
 *
 * The caller is an administrator, so authorization never hides what validation does. The run count is
 * bounded and the seed fixed, so CI runs the same cases every time; FUZZ_SEED=random explores new ones
 * (fast-check prints the seed and the shrunk counterexample on failure: FUZZ_SEED=<seed> replays it).
 */
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED =
  process.env.FUZZ_SEED === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.FUZZ_SEED ?? 950_990_234);

type Kind = 'text' | 'enum' | 'int' | 'id';
interface Field {
  kind: Kind;
  /** for `enum`: the accepted values */
  values?: string[];
}

interface World {
  project: string;
  workflow: string;
  waiting: string;
  member: string;
  article: string;
}

interface BodyRoute {
  route: string;
  method: 'POST' | 'PUT' | 'PATCH';
  path: (w: World) => string;
  fields: Record<string, Field>;
  /** a valid body (a function when it needs ids of the world) */
  valid: (w: World) => Record<string, unknown>;
  /** the route is outside /svc/api */
  absolute?: boolean;
}

const text: Field = { kind: 'text' };
const int: Field = { kind: 'int' };
const id: Field = { kind: 'id' };
const role: Field = { kind: 'enum', values: ['owner', 'member'] };

/** Every route that takes a JSON body (the policy matrix's route inventory lists them all). */
const ROUTES: BodyRoute[] = [
  {
    route: 'POST /projects',
    method: 'POST',
    path: () => '/projects',
    fields: { name: text, description: text },
    valid: () => ({ name: 'P', description: 'd' }),
  },
  {
    route: 'PATCH /projects/{id}',
    method: 'PATCH',
    path: (w) => `/projects/${w.project}`,
    fields: { name: text, description: text },
    valid: () => ({ name: 'P' }),
  },
  {
    route: 'POST /projects/{id}/members',
    method: 'POST',
    path: (w) => `/projects/${w.project}/members`,
    fields: { login: text, role },
    valid: () => ({ login: 'nobody-here', role: 'member' }),
  },
  {
    route: 'PATCH /projects/{id}/members/{user}',
    method: 'PATCH',
    path: (w) => `/projects/${w.project}/members/${w.member}`,
    fields: { role },
    valid: () => ({ role: 'member' }),
  },
  {
    route: 'POST /projects/{id}/workflows',
    method: 'POST',
    path: (w) => `/projects/${w.project}/workflows`,
    fields: { requirement: text, worker_id: text, template: text },
    valid: () => ({ requirement: 'build it' }),
  },
  {
    route: 'POST /workflows/{id}/answer',
    method: 'POST',
    path: (w) => `/workflows/${w.waiting}/answer`,
    fields: { answer: text },
    valid: () => ({ answer: 'yes' }),
  },
  {
    route: 'POST /workflows/{id}/feedback',
    method: 'POST',
    path: (w) => `/workflows/${w.workflow}/feedback`,
    fields: { message: text },
    valid: () => ({ message: 'more' }),
  },
  {
    route: 'POST /workflows/{id}/timers',
    method: 'POST',
    path: (w) => `/workflows/${w.workflow}/timers`,
    fields: { seconds: int, reason: text },
    valid: () => ({ seconds: 60, reason: 'later' }),
  },
  {
    route: 'POST /workflows/{id}/template',
    method: 'POST',
    path: (w) => `/workflows/${w.workflow}/template`,
    fields: { name: text },
    valid: () => ({ name: 'web' }),
  },
  {
    route: 'PUT /kb',
    method: 'PUT',
    path: () => '/kb',
    fields: { text },
    valid: () => ({ text: '# T\n\nx' }),
  },
  {
    route: 'POST /kb/articles',
    method: 'POST',
    path: () => '/kb/articles',
    fields: { title: text, content: text },
    valid: () => ({ title: 'T', content: 'c' }),
  },
  {
    route: 'PUT /kb/articles/{id}',
    method: 'PUT',
    path: (w) => `/kb/articles/${w.article}`,
    fields: { title: text, content: text },
    valid: () => ({ title: 'T', content: 'c' }),
  },
  {
    route: 'PUT /settings/{key}',
    method: 'PUT',
    path: () => '/settings/theme',
    fields: { value: text },
    valid: () => ({ value: 'dark' }),
  },
  {
    route: 'POST /token',
    method: 'POST',
    path: () => '/token',
    fields: {
      scope: { kind: 'enum', values: ['api', 'worker', 'job'] },
      ttl_seconds: int,
      project_id: id,
      workflow_id: id,
    },
    valid: (w) => ({ scope: 'job', workflow_id: w.workflow, ttl_seconds: 600 }),
  },
  {
    route: 'POST /svc/auth/dev-login',
    method: 'POST',
    path: () => '/svc/auth/dev-login',
    fields: { login: text },
    valid: () => ({ login: 'fuzzer' }),
    absolute: true,
  },
];

// ---- generated values -------------------------------------------------------------------------------

/** A JSON text nested `depth` levels deep (built as text: JSON.stringify would recurse). */
const nested = (depth: number, open: string, close: string, leaf = '1') =>
  open.repeat(depth) + leaf + close.repeat(depth);

/** Strings that are well-typed but hostile: NUL, lone surrogates, odd Unicode, long, path and SQL look-alikes. */
const edgeString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\u0000'.repeat(64),
    '\ud800',
    'x\udc00',
    '\udbff\udfff',
    '\ufeff',
    '\u202e\u2066',
    '👩‍👩‍👧‍👦',
    '\uffff\ufffe',
    'e\u0301\u0301\u0301',
    '\u0085\u2028\u2029',
    '',
    ' ',
    '\t\r\n',
    '%00%2e%2e%2f',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    "'; DROP TABLE users; --",
    '${jndi:x}',
    '__proto__',
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc
    .tuple(fc.integer({ min: 1_000, max: 120_000 }), fc.constantFrom('x', 'é', '😀', '\u0000', 'a\u0000'))
    .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length))),
);

/** Numbers of the right type but at or past every edge (JSON cannot carry NaN; 1e400 parses as Infinity). */
const edgeNumberText = fc.constantFrom(
  '0',
  '-0',
  '-1',
  '1.5',
  '1e308',
  '-1e308',
  '1e400',
  '-1e400',
  '5e-324',
  '9007199254740993',
  '18446744073709551616',
  '2147483648',
  '1' + '0'.repeat(400),
);

/** Values whose JSON type is wrong for a string field (and, except numbers, for a number field). */
const wrongTypeText = (kind: Kind) =>
  fc.oneof(
    fc.constantFrom('null', 'true', 'false', '[]', '{}', '[""]', '{"a":"b"}', '{"__proto__":{"x":1}}'),
    kind === 'int' ? fc.constantFrom('"60"', '""', '"1e3"', '"\\u0000"') : edgeNumberText,
    fc.integer({ min: 2, max: 5_000 }).map((d) => nested(d, '[', ']')),
    fc.integer({ min: 2, max: 5_000 }).map((d) => nested(d, '{"a":', '}')),
  );

type Mutation =
  /** one field replaced by raw JSON text of the wrong type: must be refused */
  | { kind: 'wrong-type'; field: string; json: string }
  /** one field replaced by a well-typed hostile value: any answer but a 5xx */
  | { kind: 'edge-value'; field: string; json: string }
  /** an unknown field added (request bodies are strict): must be refused */
  | { kind: 'extra-field'; key: string; json: string }
  /** the whole body replaced by something that is not a JSON object: must be refused */
  | { kind: 'not-an-object'; raw: string }
  /** bytes that are not UTF-8 JSON, or a body encoding or charset the server does not take: must be refused */
  | { kind: 'bad-encoding'; bytes: number[]; headers: Record<string, string> };

const KNOWN_KEYS = new Set(ROUTES.flatMap((r) => Object.keys(r.fields)));

function mutation(route: BodyRoute): fc.Arbitrary<Mutation> {
  const fields = Object.keys(route.fields);
  const field = fc.constantFrom(...fields);
  return fc
    .oneof(
      field.chain((name) =>
        wrongTypeText(route.fields[name]!.kind).map((json) => ({ kind: 'wrong-type' as const, field: name, json })),
      ),
      field.chain((name) => {
        const f = route.fields[name]!;
        const json =
          f.kind === 'int'
            ? edgeNumberText
            : f.kind === 'enum'
              ? edgeString.filter((s) => !f.values!.includes(s)).map((s) => JSON.stringify(s))
              : edgeString.map((s) => JSON.stringify(s));
        return json.map((j) => ({ kind: 'edge-value' as const, field: name, json: j }));
      }),
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'created_by', 'is_admin', 'role ', '\u0000'),
            fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
          ),
          fc.oneof(
            edgeString.map((s) => JSON.stringify(s)),
            wrongTypeText('text'),
          ),
        )
        .filter(([key]) => !KNOWN_KEYS.has(key))
        .map(([key, json]) => ({ kind: 'extra-field' as const, key, json })),
      fc
        .oneof(
          fc.constantFrom('null', 'true', '0', '"text"', '[]', '[{}]', '{', '{"a":', '{"a" 1}', "{'a':1}"),
          fc.constantFrom('{"a":1,}', '{}{}', '\u0000', 'NaN', '[1e400]', '{"\\ud800":1}', '\ufeff[]'),
          edgeNumberText,
          fc.integer({ min: 2, max: 100_000 }).map((d) => nested(d, '[', ']')),
          fc.integer({ min: 2, max: 50_000 }).map((d) => nested(d, '{"a":', '}')),
          // (an empty or blank body is no body: `{}`, which some routes accept)
          fc.string({ unit: 'binary', maxLength: 100 }).filter((s) => s.trim() !== '' && !s.trim().startsWith('{')),
        )
        .map((raw) => ({ kind: 'not-an-object' as const, raw })),
      fc
        .tuple(
          fc.oneof(
            // invalid UTF-8 inside a JSON string: lone continuation, overlong NUL, truncated sequence, surrogate
            fc.constantFrom([0x80], [0xc0, 0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xff], [0xf8, 0x88, 0x80, 0x80]),
            fc.uint8Array({ minLength: 1, maxLength: 32 }).map((a) => [0xff, ...a]),
          ),
          fc.constantFrom<Record<string, string>>(
            {},
            { 'content-encoding': 'gzip' },
            { 'content-encoding': 'deflate' },
            { 'content-encoding': 'br' },
            { 'content-encoding': 'x-unknown' },
            { 'content-type': 'application/json; charset=utf-16' },
            { 'content-type': 'application/json; charset=x-nonsense' },
          ),
        )
        .map(([inner, headers]) => ({
          kind: 'bad-encoding' as const,
          bytes: [...Buffer.from('{"a":"'), ...inner, ...Buffer.from('"}')],
          headers,
        })),
    )
    .map(withShortString);
}

/** fast-check prints counterexamples with this: long values would fill the screen. */
function withShortString<T extends object>(value: T): T {
  const short = JSON.stringify(value).replace(
    /(.{1,6}?)\1{7,}/gu,
    (run, unit: string) => `${unit}…×${run.length / unit.length}`,
  );
  return Object.assign(value, { [fc.toStringMethod]: () => short.slice(0, 500) });
}

/** The body text of a mutation over a valid body (built as text so values JSON.stringify cannot make survive). */
function bodyText(valid: Record<string, unknown>, m: Mutation): string | Uint8Array {
  if (m.kind === 'not-an-object') return m.raw;
  if (m.kind === 'bad-encoding') return Uint8Array.from(m.bytes);
  const parts = Object.entries(valid)
    .filter(([k]) => m.kind === 'extra-field' || k !== m.field)
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  if (m.kind === 'extra-field') parts.push(`${JSON.stringify(m.key)}:${m.json}`);
  else parts.push(`${JSON.stringify(m.field)}:${m.json}`);
  return `{${parts.join(',')}}`;
}

/** Whether the mutation can never give a valid body. */
const mustRefuse = (m: Mutation) => m.kind !== 'edge-value';

const TEMPLATES: TemplateCatalog = {
  list: async () => [{ name: 'web', description: 'A web app' }],
  materialize: async () => undefined,
};

describe.each(TEST_PROVIDERS)('JSON bodies under fuzzing on %s', (provider) => {
  let server: TestServer;
  let admin: string;
  let world: World;

  beforeAll(async () => {
    server = await startTestServer(provider, {}, { templates: TEMPLATES });
    const { db, tokens } = server.deps;
    const root = await db.user.create({ data: { login: 'root', provider: 'dev', provider_subject: 'root' } });
    const cat = await db.user.create({ data: { login: 'cat', provider: 'dev', provider_subject: 'cat' } });
    admin = (await tokens.issue({ sub: root.id, scope: 'session' })).token;
    const project = await db.project.create({
      data: {
        name: 'Fuzz',
        created_by: root.id,
        members: {
          create: [
            { user_id: root.id, role: 'owner' },
            { user_id: cat.id, role: 'member' },
          ],
        },
      },
    });
    const base = { project_id: project.id, created_by: root.id, requirement: 'r', title: 'r' };
    const workflow = await db.workflow.create({ data: { ...base, status: 'running', number: 1 } });
    const waiting = await db.workflow.create({ data: { ...base, status: 'waiting_user', question: 'q?', number: 2 } });
    const article = await db.kbArticle.create({ data: { title: 'A', content: 'c' } });
    world = { project: project.id, workflow: workflow.id, waiting: waiting.id, member: cat.id, article: article.id };
  });
  afterAll(async () => server?.close());

  it.each(ROUTES)('$route answers generated bad bodies with a 4xx error body, never a 5xx', async (route) => {
    const property = fc.asyncProperty(mutation(route), async (m) => {
      const body = bodyText(route.valid(world), m);
      const res = await server.request(`${route.absolute ? '' : '/svc/api'}${route.path(world)}`, {
        method: route.method,
        as: admin,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(m.kind === 'bad-encoding' ? m.headers : {}),
        },
        body,
      });
      const answer = await res.text();
      const where = `${route.route} with ${fc.stringify(m)}: ${res.status} ${answer.slice(0, 300)}`;
      if (res.status >= 500) throw new Error(`server error: ${where}`);
      if (mustRefuse(m) && ![400, 413, 415].includes(res.status)) throw new Error(`not refused: ${where}`);
      if (res.status >= 400) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(answer);
        } catch {
          throw new Error(`error answer is not JSON: ${where}`);
        }
        const error = (parsed as { error?: Record<string, unknown> }).error;
        const shaped =
          typeof error?.code === 'string' &&
          /^[a-z_]+$/.test(error.code) &&
          typeof error.message === 'string' &&
          typeof error.request_id === 'string' &&
          error.request_id.length > 0;
        if (!shaped) throw new Error(`error answer has not the contract's shape: ${where}`);
        if (mustRefuse(m) && res.status === 400 && error!.code !== 'invalid_input')
          throw new Error(`a 400 that is not invalid_input: ${where}`);
      }
    });
    await fc.assert(property, { numRuns: NUM_RUNS, seed: SEED, endOnFailure: false });
  });
});
