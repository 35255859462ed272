// Prisma CLI config for the PostgreSQL schema (generate and migrate diff only; see BUILD-NOTES.md).
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'prisma/postgres/schema.prisma',
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL ?? 'postgresql://localhost/svc' }),
});
