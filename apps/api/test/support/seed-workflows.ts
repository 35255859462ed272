import type { DbProvider } from '@svc/db';
import type { TestServer } from './server';

/** What the seeded requirements say: `word`, and `rare.word` instead every `rare.every` rows. */
export interface SeedWords {
  word: string;
  rare?: { word: string; every: number };
}

/**
 * Inserts `count` workflows into an empty project in ONE statement (not `count` API calls): the n-th is
 * numbered n, its requirement is `<word> requirement <n>`, and three share each timestamp (ties for the
 * list's order).
 */
export async function seedWorkflows(
  server: TestServer,
  provider: DbProvider,
  target: { projectId: string; createdBy: string; count: number },
  words: SeedWords,
): Promise<void> {
  const { word, rare = { word, every: 1 } } = words;
  const values = [target.projectId, target.createdBy, rare.every, rare.word, word, target.count];
  const statement =
    provider === 'postgresql'
      ? `INSERT INTO workflows (id, project_id, created_by, requirement, title, number, created_at, updated_at)
         SELECT $1 || lpad(n::text, 6, '0'), $1, $2,
                (CASE WHEN n % $3 = 0 THEN $4 ELSE $5 END) || ' requirement ' || n, 'Seeded ' || n, n,
                timestamp '2026-01-01' - make_interval(secs => n / 3), now()
           FROM generate_series(1, $6::int) AS n`
      : // SQLite stores Prisma's DateTime as ISO text with an explicit offset.
        `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?6)
         INSERT INTO workflows (id, project_id, created_by, requirement, title, number, created_at, updated_at)
         SELECT ?1 || printf('%06d', n), ?1, ?2,
                (CASE WHEN n % ?3 = 0 THEN ?4 ELSE ?5 END) || ' requirement ' || n, 'Seeded ' || n, n,
                strftime('%Y-%m-%dT%H:%M:%S.000+00:00', '2026-01-01', '-' || (n / 3) || ' seconds'),
                strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')
           FROM g`;
  await server.deps.db.$executeRawUnsafe(statement, ...values);
  // The project's run counter moves past the seeded numbers, as creates would have moved it.
  await server.deps.db.project.update({
    where: { id: target.projectId },
    data: { last_workflow_number: target.count },
  });
}
