/** The PostgreSQL server integration tests create their databases on (README: "Testing"). */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
