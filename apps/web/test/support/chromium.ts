import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`); test tools never download a browser here. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** The flags BUILD-NOTES lists for running Chromium headless as root on these machines. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * `describe` for browser tests. Only on a developer machine without Chromium (and outside CI) are
 * they skipped, with the reason in the name; in CI a missing browser fails them instead.
 */
export function describeInChromium(name: string, body: () => void): void {
  if (existsSync(CHROMIUM_PATH) || process.env.CI) describe(name, body);
  else
    describe.skip(
      `${name} [skipped: ${CHROMIUM_PATH} is not installed and CI is not set; install it with apt-get install -y chromium]`,
      body,
    );
}

/** Chromium on a fresh user-data dir, removed again on close. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-web-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
