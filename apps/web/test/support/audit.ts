import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';

/** The two sizes every page is checked at: a laptop and a phone (CSS pixels). */
export const VIEWPORTS = {
  desktop: { width: 1366, height: 768 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

const axeSource = readFileSync(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** Runs axe-core (WCAG 2 A/AA and best practices) on the page as it is now; fails with every violation. */
export async function expectNoAxeViolations(page: Page, context = 'page'): Promise<void> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  // Evaluated through the DevTools protocol: an inline <script> tag is refused by the app's CSP.
  if (!loaded) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  if (violations.length > 0) {
    const lines = violations.map(
      (v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).join('\n    ')}`,
    );
    throw new Error(`axe-core found ${violations.length} violation(s) on ${context}:\n  ${lines.join('\n  ')}`);
  }
}

/** Fails when the document is wider than the viewport (a horizontal scroll bar on a phone). */
export async function expectNoHorizontalOverflow(page: Page, context = 'page'): Promise<void> {
  const { scrollWidth, innerWidth, widest } = await page.evaluate(() => {
    const innerWidth = window.innerWidth;
    // name the widest element that sticks out, so a failure says where to look
    let widest = '';
    let right = innerWidth;
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const box = el.getBoundingClientRect();
      if (box.right > right + 0.5 && getComputedStyle(el).position !== 'fixed') {
        right = box.right;
        widest = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''}`;
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, widest };
  });
  if (scrollWidth > innerWidth) {
    throw new Error(
      `${context} is ${scrollWidth}px wide in a ${innerWidth}px viewport (widest: ${widest || 'unknown'})`,
    );
  }
}

/** Where committed screenshots live (docs/screenshots/), written when SVC_SCREENSHOTS=1. */
export const SCREENSHOT_DIR = resolve(__dirname, '../../../../docs/screenshots');

/** Saves `<name>-<viewport>.png` under docs/screenshots/ when SVC_SCREENSHOTS=1 (the README links them). */
export async function saveScreenshot(page: Page, name: string, viewport: ViewportName): Promise<void> {
  if (process.env.SVC_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${viewport}.png`), fullPage: true });
}

/** Checks a page at both viewports: no overflow at either, no axe violation, a screenshot of each. */
export async function auditPage(page: Page, name: string): Promise<void> {
  const original = page.viewportSize();
  for (const [viewport, size] of Object.entries(VIEWPORTS) as [ViewportName, { width: number; height: number }][]) {
    await page.setViewportSize(size);
    await expectNoHorizontalOverflow(page, `${name} at ${viewport}`);
    await expectNoAxeViolations(page, `${name} at ${viewport}`);
    await saveScreenshot(page, name, viewport);
  }
  if (original) await page.setViewportSize(original);
}
