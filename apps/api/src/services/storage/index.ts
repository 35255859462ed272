import type { Config } from '../../config';
import { LocalStorage } from './local';
import { S3Storage } from './s3';
import type { Storage } from './types';

export type * from './types';

/** The storage backend the configuration names (STORAGE_BACKEND). */
export function createStorage(config: Pick<Config, 'dataDir' | 'storage'>): Storage {
  const { s3 } = config.storage;
  return s3 ? new S3Storage(s3) : new LocalStorage(config.dataDir);
}
