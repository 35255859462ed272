import type { DbProvider } from '@svc/db';
import type { TestServer } from './server';

/**
 * Inserts `count` workflows into a project in ONE statement (not `count` API calls): the n-th has the
 * requirement `<requirementOf(n)> requirement <n>`, three share each timestamp (ties for the list's
 * order), numbers follow `firstNumber`. A rare requirement (`rareWord`) every `rareEvery` rows.
 */
export async function seedWorkflows(
  server: TestServer,
  provider: DbProvider,
  seed: {
    projectId: string;
    createdBy: string;
    count: number;
    firstNumber: number;
    word: string;
    rareWord: string;
    rareEvery: number;
  },
): Promise<void> {
  const { projectId, createdBy, count, firstNumber, word, rareWord, rareEvery } = seed;
  const db = server.deps.db;
  if (provider === 'postgresql') {
    await db.$executeRawUnsafe(
      `INSERT INTO workflows (id, project_id, created_by, requirement, title, number, created_at, updated_at)
       SELECT $1 || lpad(n::text, 6, '0'), $1, $2,
              (CASE WHEN n % $3 = 0 THEN $4 ELSE $5 END) || ' requirement ' || n, 'Seeded ' || n, $6 + n,
              timestamp '2026-01-01' - make_interval(secs => n / 3), now()
         FROM generate_series(1, $7::int) AS n`,
      projectId,
      createdBy,
      rareEvery,
      rareWord,
      word,
      firstNumber,
      count,
    );
    return;
  }
  // SQLite stores Prisma's DateTime as ISO text with an explicit offset.
  await db.$executeRawUnsafe(
    `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?7)
     INSERT INTO workflows (id, project_id, created_by, requirement, title, number, created_at, updated_at)
     SELECT ?1 || printf('%06d', n), ?1, ?2,
            (CASE WHEN n % ?3 = 0 THEN ?4 ELSE ?5 END) || ' requirement ' || n, 'Seeded ' || n, ?6 + n,
            strftime('%Y-%m-%dT%H:%M:%S.000+00:00', '2026-01-01', '-' || (n / 3) || ' seconds'),
            strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')
       FROM g`,
    projectId,
    createdBy,
    rareEvery,
    rareWord,
    word,
    firstNumber,
    count,
  );
}
