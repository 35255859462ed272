import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { freePort } from './api-process';
import { INHERITED_PATH } from './env';
import { spawnProcess, type ManagedProcess } from './process';

export const SSHD = '/usr/sbin/sshd';

/** A key pair made by ssh-keygen: what a deploy key is (the private key in OpenSSH's format). */
export interface SshKeyPair {
  privateKey: string;
  publicKey: string;
}

/** A fresh ed25519 key pair, written under `dir` (ssh-keygen needs files). */
export function sshKeyPair(dir: string, name: string): SshKeyPair {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  return {
    privateKey: execFileSync('cat', [file], { encoding: 'utf8' }),
    publicKey: execFileSync('cat', [`${file}.pub`], { encoding: 'utf8' }).trim(),
  };
}

export interface GitSshd {
  /** the user the keys log in as (the user running the tests) */
  user: string;
  port: number;
  readonly process: ManagedProcess;
}

/**
 * Debian's sshd on a loopback port, for git over SSH: only the given public keys log in, and each is
 * held to `git-shell` (clone, fetch and push of any repository the test user can read, nothing else),
 * as a forge's deploy key is. Resolves once sshd listens.
 */
export async function startGitSshd(root: string, authorizedKeys: readonly string[]): Promise<GitSshd> {
  const dir = path.join(root, 'sshd');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // sshd's privilege separation directory (the package's service creates it at boot, which tests skip)
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = path.join(dir, 'host_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  const restricted = 'command="git-shell -c \\"$SSH_ORIGINAL_COMMAND\\"",no-port-forwarding,no-pty,no-agent-forwarding';
  writeFileSync(path.join(dir, 'authorized_keys'), authorizedKeys.map((key) => `${restricted} ${key}\n`).join(''));
  const user = userInfo().username;
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      // the key file lives under /tmp, which StrictModes refuses
      'StrictModes no',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      `AllowUsers ${user}`,
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  const child = spawnProcess('sshd', SSHD, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], {
    cwd: dir,
    env: { PATH: INHERITED_PATH },
  });
  await child.nextLine((line) => line.includes(`Server listening on 127.0.0.1 port ${port}`));
  return { user, port, process: child };
}
