// Authoring tool: `node scripts/migration.mjs new <name>` writes the next SQL migration for both
// providers, diffing the schema as of the last migration (migrations/<dir>/schema.snapshot.prisma)
// against the current one. The PostgreSQL diff needs a reachable server (TEST_DATABASE_URL).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const prismaBin = join(root, 'node_modules/.bin/prisma');
const targets = [
  { dir: 'sqlite', config: 'prisma.sqlite.config.ts', url: `file:${join(tmpdir(), 'svc-migration-authoring.db')}` },
  {
    dir: 'postgres',
    config: 'prisma.postgres.config.ts',
    url: process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  },
];

export function diffSql({ config, url, from, to }) {
  const fromArgs = from ? ['--from-schema-datamodel', from] : ['--from-empty'];
  return execFileSync(
    prismaBin,
    ['migrate', 'diff', '--config', config, ...fromArgs, '--to-schema-datamodel', to, '--script'],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

function nextMigration(name) {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error('migration name: use lower-case letters, digits and _');
  for (const target of targets) {
    const folder = join(root, 'migrations', target.dir);
    mkdirSync(folder, { recursive: true });
    const snapshot = join(folder, 'schema.snapshot.prisma');
    const current = join(root, 'prisma', target.dir, 'schema.prisma');
    const sql = diffSql({ ...target, from: existsSync(snapshot) ? snapshot : null, to: current });
    if (!sql.trim() || /^-- This is an empty migration/m.test(sql)) {
      console.log(`${target.dir}: no changes`);
      continue;
    }
    const count = readdirSync(folder).filter((entry) => /^\d{4}_/.test(entry)).length;
    const migrationDir = join(folder, `${String(count + 1).padStart(4, '0')}_${name}`);
    mkdirSync(migrationDir);
    writeFileSync(join(migrationDir, 'migration.sql'), sql);
    copyFileSync(current, snapshot);
    console.log(`wrote ${migrationDir}/migration.sql`);
  }
}

const [command, name] = process.argv.slice(2);
if (command === 'new' && name) nextMigration(name);
else if (command) {
  console.error('usage: node scripts/migration.mjs new <name>');
  process.exit(2);
}
