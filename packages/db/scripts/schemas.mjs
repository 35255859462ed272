// Writes prisma/<provider>/schema.prisma from prisma/schema.source.prisma.
// `--check` exits 1 when a written copy differs (used by the drift test and CI).
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PROVIDERS = ['sqlite', 'postgresql'];
const dirOf = (provider) => (provider === 'postgresql' ? 'postgres' : provider);

// The query builder's table types (src/query.ts) come from the PostgreSQL copy: its column types (Date,
// boolean, parsed JSON) are what rows are decoded to on both databases (src/rows.ts).
const KYSELY_GENERATOR = `
generator kysely {
  provider = "prisma-kysely"
  output   = "../../generated/kysely"
  fileName = "types.d.ts"
}
`;

export function renderSchema(provider) {
  const source = readFileSync(join(root, 'prisma/schema.source.prisma'), 'utf8');
  const header = `// GENERATED from schema.source.prisma by scripts/schemas.mjs. Do not edit.
generator client {
  provider        = "prisma-client-js"
  output          = "../../generated/${dirOf(provider)}"
  engineType      = "client"
}
${provider === 'postgresql' ? KYSELY_GENERATOR : ''}
datasource db {
  provider = "${provider}"
  url      = env("DATABASE_URL")
}
`;
  return `${header}\n${source}`;
}

export function schemaPath(provider) {
  return join(root, 'prisma', dirOf(provider), 'schema.prisma');
}

const check = process.argv.includes('--check');
let stale = 0;
for (const provider of PROVIDERS) {
  const path = schemaPath(provider);
  const want = renderSchema(provider);
  const have = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (have === want) continue;
  if (check) {
    console.error(`${path} is out of date: run pnpm --filter @svc/db schemas`);
    stale++;
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, want);
    console.log(`wrote ${path}`);
  }
}
process.exit(stale ? 1 : 0);
