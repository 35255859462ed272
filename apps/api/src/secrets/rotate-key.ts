// `pnpm --filter @svc/api secrets:rotate-key`: a new primary key for secrets, every value re-encrypted
// with it, the old keys dropped. Reads the server's environment (DATABASE_URL, DATA_DIR, SECRETS_KEY_FILE).
import { createDb, migrate } from '@svc/db';
import { buildConfig, ConfigError } from '../config';
import { readEnv } from '../env';
import { SecretKeyring } from './keyring';
import { rotateSecretsKey } from './rotate';

async function main(): Promise<void> {
  const config = buildConfig(readEnv());
  const keyring = SecretKeyring.open(config.secrets.keyFile);
  await migrate(config.databaseUrl);
  const handle = await createDb({ url: config.databaseUrl });
  try {
    const { keyId, reencrypted } = await rotateSecretsKey(handle.db, keyring);
    console.log(`secrets key rotated: primary key ${keyId}, ${reencrypted} value(s) re-encrypted (${keyring.path})`);
  } finally {
    await handle.close();
  }
}

main().catch((error: unknown) => {
  console.error(`secrets:rotate-key: ${error instanceof ConfigError ? error.message : String(error)}`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
