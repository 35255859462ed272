import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configFilePath, readConfigFile, resolveSettings, writeConfigFile } from './config';
import { readCliEnv } from './env';
import { CliError } from './errors';

describe('config', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-config-'));

  it('finds the file: --config, SVC_CONFIG, XDG_CONFIG_HOME, ~/.config', () => {
    const env = readCliEnv({ HOME: '/home/u' });
    expect(configFilePath(env)).toBe('/home/u/.config/svc/config.json');
    expect(configFilePath(readCliEnv({ HOME: '/home/u', XDG_CONFIG_HOME: '/x' }))).toBe('/x/svc/config.json');
    expect(configFilePath(readCliEnv({ HOME: '/home/u', SVC_CONFIG: '/c.json' }))).toBe('/c.json');
    expect(configFilePath(readCliEnv({ SVC_CONFIG: '/c.json' }), '/flag.json')).toBe('/flag.json');
  });

  it('flags win over the environment, which wins over the file', () => {
    const env = readCliEnv({ SVC_URL: 'http://env', SVC_TOKEN: 'env-token' });
    const file = { url: 'http://file/', token: 'file-token', project: 'file-project' };
    const settings = resolveSettings({ token: 'flag-token' }, env, '/f', file);
    expect(settings).toMatchObject({ url: 'http://env', token: 'flag-token', project: 'file-project' });
    expect(settings.sources).toEqual({ url: 'env', token: 'flag', project: 'file' });
    expect(resolveSettings({}, readCliEnv({}), '/f', file)).toMatchObject({
      url: 'http://file',
      sources: { url: 'file' },
    });
  });

  it('writes the file for its owner only and reads it back; a bad file names the key', () => {
    const file = path.join(dir, 'nested/config.json');
    writeConfigFile(file, { url: 'http://x', token: 't' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readConfigFile(file)).toEqual({ url: 'http://x', token: 't' });
    expect(readConfigFile(path.join(dir, 'missing.json'))).toEqual({});
    writeFileSync(file, '{"url": 5}');
    expect(() => readConfigFile(file)).toThrow(CliError);
    expect(() => readConfigFile(file)).toThrow(/url/);
    writeFileSync(file, '{"colour": "red"}');
    expect(() => readConfigFile(file)).toThrow(/colour/);
    expect(readFileSync(file, 'utf8')).toContain('colour');
  });
});
