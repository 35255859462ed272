import type { Db } from '@svc/db';

/** A real failure of the database: a trigger that aborts inserting events of one type. */
export async function failEventInserts(db: Db, provider: string, type: string): Promise<void> {
  if (provider === 'sqlite') {
    await db.$executeRawUnsafe(
      `CREATE TRIGGER fail_events BEFORE INSERT ON events WHEN NEW.type = '${type}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
    );
    return;
  }
  await db.$executeRawUnsafe(
    `CREATE FUNCTION fail_events() RETURNS trigger AS $$ BEGIN IF NEW.type = '${type}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
  );
  await db.$executeRawUnsafe(
    `CREATE TRIGGER fail_events BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_events()`,
  );
}

export async function allowEventInserts(db: Db, provider: string): Promise<void> {
  if (provider === 'sqlite') {
    await db.$executeRawUnsafe(`DROP TRIGGER fail_events`);
    return;
  }
  await db.$executeRawUnsafe(`DROP TRIGGER fail_events ON events`);
  await db.$executeRawUnsafe(`DROP FUNCTION fail_events()`);
}
