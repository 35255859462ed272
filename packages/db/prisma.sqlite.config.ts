// Prisma CLI config for the SQLite schema: the JS schema engine with the libSQL adapter, so the CLI
// never downloads a native engine (BUILD-NOTES.md).
import { defineConfig } from 'prisma/config';
import { PrismaLibSQL } from '@prisma/adapter-libsql';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'prisma/sqlite/schema.prisma',
  adapter: async () => new PrismaLibSQL({ url: process.env.DATABASE_URL ?? 'file:./data/cli.db' }),
});
