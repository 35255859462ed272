import { libpqConnection } from './postgres';

describe('libpqConnection', () => {
  it('keeps the password off the command line and drops the Prisma-only parameters', () => {
    const { url, env } = libpqConnection(
      'postgresql://svc:p%40ss%3Aword@db.internal:5433/svc?schema=public&connection_limit=5&sslmode=require',
    );
    expect(url).toBe('postgresql://svc@db.internal:5433/svc?sslmode=require');
    expect(env.PGPASSWORD).toBe('p@ss:word');
  });

  it('passes the environment on as it is when the URL has no password', () => {
    const withPassword = libpqConnection('postgresql://svc:secret@127.0.0.1/svc');
    const without = libpqConnection('postgresql://svc@127.0.0.1/svc');
    expect(without.url).toBe('postgresql://svc@127.0.0.1/svc');
    expect(without.env).toEqual({ ...withPassword.env, PGPASSWORD: without.env.PGPASSWORD });
    expect(without.env.PGPASSWORD).not.toBe('secret');
  });
});
