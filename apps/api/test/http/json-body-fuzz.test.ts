import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { z } from 'zod';
import { servedOperations, type IdentifiedOperation, type OperationId } from '@svc/protocol';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { dbState } from '../support/fixtures';
import type { TemplateCatalog } from '../../src/services/templates';

/**
 * Property: whatever a caller sends to a JSON body route, the answer is never a 5xx, and every refusal
 * is the contract's error body `{"error": {code, message, request_id}}`. A body that cannot be valid
 * (a field of the wrong type, an unknown field, a body that is not a JSON object, malformed JSON) must be
 * refused with 400 `invalid_input` (or 413 when too large). Values that may be valid (NUL characters,
 * lone surrogates, odd Unicode, long strings, extreme numbers of the right type) may be accepted, but
 * never with a 5xx.
 *
 * A body that must be refused changes nothing stored. The operations are those of the protocol's table
 * with a JSON object body, so a new one is fuzzed as soon as it is declared.
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

/** `list`: an array of strings (e.g. the labels a run requires, a trigger's event filter) */
type Kind = 'text' | 'enum' | 'int' | 'bool' | 'list' | 'object';
interface Field {
  kind: Kind;
  /** for `enum`: the accepted values */
  values?: string[];
  /** `null` is a value of the field (e.g. a budget patch's `null` removes a cap) */
  nullable?: boolean;
}

interface World {
  project: string;
  workflow: string;
  waiting: string;
  member: string;
  article: string;
  schedule: string;
  trigger: string;
  webhook: string;
  repository: string;
}

/** An operation of the protocol's table that takes a JSON object body, with the fields of its schema. */
interface BodyRoute {
  /** `operationId: METHOD /path` (the test's name) */
  route: string;
  op: IdentifiedOperation;
  fields: Record<string, Field>;
}

/** The field kinds told by the schema's type alone. */
const PLAIN_KINDS: [is: (schema: z.ZodType) => boolean, kind: Kind][] = [
  [(schema) => schema instanceof z.ZodString || schema instanceof z.ZodStringFormat, 'text'],
  [(schema) => schema instanceof z.ZodNumber, 'int'],
  [(schema) => schema instanceof z.ZodBoolean, 'bool'],
  [(schema) => schema instanceof z.ZodObject, 'object'],
  [(schema) => schema instanceof z.ZodRecord, 'object'],
];

/** The kind of a body field, from its zod schema (optional and nullable unwrapped). */
function fieldOf(op: IdentifiedOperation, name: string, schema: z.ZodType, nullable = false): Field {
  const def = (schema as z.ZodType & { def: { type: string; innerType?: z.ZodType } }).def;
  if (def.innerType && ['optional', 'nullable', 'default'].includes(def.type))
    return fieldOf(op, name, def.innerType, nullable || def.type === 'nullable');
  if (nullable) return { ...fieldOf(op, name, schema), nullable };
  const plain = PLAIN_KINDS.find(([is]) => is(schema));
  if (plain) return { kind: plain[1] };
  if (schema instanceof z.ZodEnum) return { kind: 'enum', values: schema.options.map(String) };
  if (schema instanceof z.ZodArray && ['text', 'enum'].includes(fieldOf(op, name, schema.element as z.ZodType).kind))
    return { kind: 'list' };
  throw new Error(`json-body fuzz: ${op.id}.${name} is a ${def.type}; teach fieldOf to fuzz it`);
}

/** Every served operation whose body is a JSON object (`application/json`, the default), from the table. */
const ROUTES: BodyRoute[] = servedOperations('dev').flatMap((op) => {
  const body = op.body;
  if (!body?.schema || !(body.contentTypes ?? ['application/json']).includes('application/json')) return [];
  if (!(body.schema instanceof z.ZodObject)) throw new Error(`json-body fuzz: ${op.id}'s JSON body is not an object`);
  const shape = body.schema.shape as Record<string, z.ZodType>;
  const route = `${op.id}: ${op.method} ${op.path}`;
  return [
    { route, op, fields: Object.fromEntries(Object.entries(shape).map(([name, f]) => [name, fieldOf(op, name, f)])) },
  ];
});

/**
 * A valid body per operation where one made from the schema would not do (ids of the world, a known
 * template, a timer that does not fire during the test); the others get each required field's plainest
 * value: text `x`, an enum's first value, the number 60.
 */
const VALID: Partial<Record<OperationId, (w: World) => Record<string, unknown>>> = {
  createProject: () => ({ name: 'P', description: 'd' }),
  updateProject: () => ({ name: 'P' }),
  inviteMember: () => ({ login: 'nobody-here', role: 'member' }),
  updateMember: () => ({ role: 'member' }),
  createWorkflow: () => ({ requirement: 'build it' }),
  patchWorkflowBudget: () => ({ max_llm_calls: 5 }),
  putProjectBudget: () => ({ budget: { max_tokens: 1000 } }),
  useTemplate: () => ({ name: 'web' }),
  replaceKb: () => ({ text: '# T\n\nx' }),
  createTimer: () => ({ seconds: 86_400, reason: 'later' }),
  createSchedule: () => ({ name: 'S', cron: '0 9 * * *', requirement: 'r' }),
  createWebhook: () => ({ url: 'https://hooks.example.com/fuzz' }),
  putMcpServer: () => ({ transport: 'http', url: 'https://mcp.example.com/mcp' }),
  putSetting: () => ({ value: 'dark' }),
  createToken: (w) => ({ scope: 'job', workflow_id: w.workflow, ttl_seconds: 600 }),
  devLogin: () => ({ login: 'fuzzer' }),
};

/** Each kind's plainest valid value (an enum's is its first value). */
const PLAINEST: Record<Kind, unknown> = { int: 60, text: 'x', bool: true, list: [], object: {}, enum: undefined };

function validBody(route: BodyRoute, world: World): Record<string, unknown> {
  const given = VALID[route.op.id as OperationId];
  if (given) return given(world);
  const shape = (route.op.body!.schema as z.ZodObject).shape as Record<string, z.ZodType>;
  const required = Object.keys(route.fields).filter((name) => !shape[name]!.safeParse(undefined).success);
  const plainest = (f: Field) => PLAINEST[f.kind] ?? f.values![0];
  return Object.fromEntries(required.map((name) => [name, plainest(route.fields[name]!)]));
}

/** The world's object an `{id}` names, by the path it is under. */
const ID_BY_PREFIX: [prefix: string, id: (op: IdentifiedOperation, w: World) => string][] = [
  ['/svc/api/projects/', (_op, w) => w.project],
  ['/svc/api/kb/articles/', (_op, w) => w.article],
  ['/svc/api/schedules/', (_op, w) => w.schedule],
  ['/svc/api/workflows/', (op, w) => (op.id === 'answerWorkflow' ? w.waiting : w.workflow)],
  ['/svc/api/triggers/', (_op, w) => w.trigger],
  ['/svc/api/webhooks/', (_op, w) => w.webhook],
  ['/svc/api/repositories/', (_op, w) => w.repository],
];

/** The operation's path with the world's ids; a new kind of path parameter must be named here. */
function pathOf(op: IdentifiedOperation, w: World): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'user_id') return w.member;
    if (name === 'key') return 'theme';
    if (name === 'name') return 'fuzzed';
    const byPrefix = name === 'id' ? ID_BY_PREFIX.find(([prefix]) => op.path.startsWith(prefix)) : undefined;
    if (byPrefix) return byPrefix[1](op, w);
    throw new Error(`json-body fuzz: no value for {${name}} of ${op.id}; add one to pathOf`);
  });
}

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

/** JSON of the wrong type whatever the field's kind, less what a boolean or a list field takes. */
const WRONG_TYPES = ['null', 'true', 'false', '[]', '{}', '[""]', '{"a":"b"}', '{"__proto__":{"x":1}}'];
const TAKEN: Partial<Record<Kind, string[]>> = { bool: ['true', 'false'], list: ['[]', '[""]'] };

/** Values that are not an object (or one with an unknown key: object fields are strict, e.g. a budget). */
const notAnObjectText = fc.oneof(
  fc.constantFrom('"x"', '1', 'true', '[]', '[{}]', '{"a":"b"}'),
  fc.integer({ min: 2, max: 5_000 }).map((d) => nested(d, '[', ']')),
);

/** Hostile values of the right JSON type for an object field (a budget): any answer but a 5xx. */
const edgeObjectText = fc.constantFrom(
  '{}',
  '{"max_tokens":1e400}',
  '{"max_cost":-1}',
  '{"on_exceed":"later"}',
  '{"max_llm_calls":9007199254740993}',
  '{"max_wall_seconds":0.5}',
);

/** Values whose JSON type is wrong for a string field (and, except numbers, for a number field). */
const wrongTypeText = (kind: Kind) =>
  kind === 'object' ? notAnObjectText : kind === 'list' ? wrongListText : wrongScalarText(kind);

/** Values whose JSON type is wrong for a list of strings. */
const wrongListText = fc.oneof(
  fc.constantFrom(
    'null',
    'true',
    '{}',
    '"gpu"',
    '[1]',
    '[null]',
    '[["a"]]',
    '[{}]',
    '{"a":"b"}',
    '{"__proto__":{"x":1}}',
  ),
  edgeNumberText,
  fc.integer({ min: 2, max: 5_000 }).map((d) => nested(d, '[', ']')),
  fc.integer({ min: 2, max: 5_000 }).map((d) => nested(d, '{"a":', '}')),
);

const wrongScalarText = (kind: Kind) =>
  fc.oneof(
    fc.constantFrom(...WRONG_TYPES.filter((json) => !(TAKEN[kind] ?? []).includes(json))),
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

/** A well-typed hostile value of a field, as JSON text. */
function edgeValueText(f: Field): fc.Arbitrary<string> {
  switch (f.kind) {
    case 'int':
      return edgeNumberText;
    case 'enum':
      return edgeString.filter((s) => !f.values!.includes(s)).map((s) => JSON.stringify(s));
    case 'bool':
      return fc.constantFrom('true', 'false');
    case 'list':
      return fc.array(edgeString, { maxLength: 30 }).map((list) => JSON.stringify(list));
    case 'object':
      return edgeObjectText;
    case 'text':
      return edgeString.map((s) => JSON.stringify(s));
  }
}

/** One field replaced: by a value of the wrong type, or by a well-typed hostile one. */
function fieldMutations(route: BodyRoute): fc.Arbitrary<Mutation>[] {
  const fields = Object.keys(route.fields);
  if (fields.length === 0) return []; // a body with no fields (an empty object) gets the whole-body mutations
  const field = fc.constantFrom(...fields);
  return [
    field.chain((name) =>
      wrongTypeText(route.fields[name]!.kind)
        .filter((json) => !(route.fields[name]!.nullable && json === 'null'))
        .map((json) => ({ kind: 'wrong-type' as const, field: name, json })),
    ),
    field.chain((name) =>
      edgeValueText(route.fields[name]!).map((j) => ({ kind: 'edge-value' as const, field: name, json: j })),
    ),
  ];
}

function mutation(route: BodyRoute): fc.Arbitrary<Mutation> {
  return fc
    .oneof(
      ...fieldMutations(route),
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

/** The code of a contract error body `{"error": {code, message, request_id}}`; null for anything else. */
function contractErrorCode(answer: string): string | null {
  let error: Record<string, unknown> | undefined;
  try {
    error = (JSON.parse(answer) as { error?: Record<string, unknown> }).error;
  } catch {
    return null;
  }
  const shaped =
    typeof error?.code === 'string' &&
    /^[a-z_]+$/.test(error.code) &&
    typeof error.message === 'string' &&
    typeof error.request_id === 'string' &&
    error.request_id.length > 0;
  return shaped ? (error!.code as string) : null;
}

/** The contract's checks of one answer; returns the failure description's prefix when it passes. */
function checkAnswer(route: BodyRoute, m: Mutation, status: number, answer: string): string {
  const where = `${route.route} with ${fc.stringify(m)}: ${status} ${answer.slice(0, 300)}`;
  if (status >= 500) throw new Error(`server error: ${where}`);
  if (mustRefuse(m) && ![400, 413, 415].includes(status)) throw new Error(`not refused: ${where}`);
  if (status < 400) return where;
  const code = contractErrorCode(answer);
  if (code === null) throw new Error(`error answer has not the contract's shape: ${where}`);
  if (mustRefuse(m) && status === 400 && code !== 'invalid_input')
    throw new Error(`a 400 that is not invalid_input: ${where}`);
  return where;
}

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
        // Its two runs below are inserted here, numbered 1 and 2: a created one takes 3 (decision 0064).
        last_workflow_number: 2,
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
    // Paused: it never ticks during the test.
    const schedule = await db.schedule.create({
      data: {
        project_id: project.id,
        name: 'Fuzzed',
        cron: '0 9 * * *',
        requirement: 'r',
        paused: true,
        created_by: root.id,
        last_tick_at: new Date(),
      },
    });
    const trigger = await db.trigger.create({
      data: {
        project_id: project.id,
        name: 't',
        secret: 's',
        format: 'github',
        requirement_template: 'x',
        created_by: root.id,
      },
    });
    const webhook = await db.webhook.create({
      data: { project_id: project.id, url: 'https://hooks.example.com/x', events: '[]', created_by: root.id },
    });
    const repository = await db.repository.create({
      data: {
        project_id: project.id,
        name: 'fuzzed-repo',
        url: 'https://git.example.com/acme/shop.git',
        forge: 'gitea',
        api_base_url: 'https://git.example.com/api/v1',
        credential_kind: 'token',
        created_by: root.id,
      },
    });
    world = {
      webhook: webhook.id,
      repository: repository.id,
      project: project.id,
      workflow: workflow.id,
      waiting: waiting.id,
      member: cat.id,
      article: article.id,
      schedule: schedule.id,
      trigger: trigger.id,
    };
  });
  afterAll(async () => server?.close());

  // The state read after the last refused body, when nothing was accepted since: the next refused
  // body starts from it (reading every table twice per case is most of this suite's time).
  let unchangedState: unknown = null;

  it.each(ROUTES)('$route answers generated bad bodies with a 4xx error body, never a 5xx', async (route) => {
    const property = fc.asyncProperty(mutation(route), async (m) => {
      const body = bodyText(validBody(route, world), m);
      const before = mustRefuse(m) ? (unchangedState ?? (await dbState(server.deps.db))) : null;
      unchangedState = null;
      const res = await server.request(pathOf(route.op, world), {
        method: route.op.method,
        as: admin,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(m.kind === 'bad-encoding' ? m.headers : {}),
        },
        body,
      });
      const where = checkAnswer(route, m, res.status, await res.text());
      if (!before) return;
      const after = await dbState(server.deps.db);
      if (!isDeepStrictEqual(after, before)) throw new Error(`a refused body changed stored state: ${where}`);
      unchangedState = after;
    });
    await fc.assert(property, { numRuns: NUM_RUNS, seed: SEED, endOnFailure: false });
  });
});
