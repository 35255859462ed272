import type { Locator, Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';

/** Signs in through the app's own dev sign-in form. */
export async function signIn(page: Page, baseUrl: string, login: string): Promise<void> {
  await page.goto(baseUrl);
  await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
  await page.getByRole('textbox', { name: 'User name' }).fill(login);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('current-user').filter({ hasText: login }).waitFor();
}

/** Signs out and waits for the sign-in page: navigating before the logout request ends would keep the session. */
export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
}

/** Creates a project with the sidebar form; resolves with its id, read from the URL it selects. */
export async function createProjectInUi(page: Page, name: string): Promise<string> {
  await page.getByRole('textbox', { name: 'New project' }).fill(name);
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  return projectIdFromUrl(page.url());
}

export function projectIdFromUrl(url: string): string {
  const match = /\/projects\/([^/?#]+)/.exec(new URL(url).pathname);
  if (!match) throw new Error(`not a project URL: ${url}`);
  return decodeURIComponent(match[1]!);
}

/** Waits until the text of a locator equals `expected` (polling, as the page updates live). */
export async function expectText(locator: Locator, expected: string | RegExp): Promise<void> {
  await eventually(async () => {
    const text = await locator.innerText({ timeout: 1000 });
    if (typeof expected === 'string' ? text !== expected : !expected.test(text)) {
      throw new Error(`expected ${String(expected)}, found ${JSON.stringify(text)}`);
    }
  });
}

/** `data-step-status` of every plan step, in order. */
export async function stepStatuses(page: Page): Promise<string[]> {
  return page
    .locator('.plan-step [data-step-status]')
    .evaluateAll((els) => els.map((el) => el.getAttribute('data-step-status') ?? ''));
}

/** The form folded under a `<details>` whose summary reads `summary` (e.g. "New schedule"), opened. */
export async function unfoldedForm(page: Page, summary: string): Promise<Locator> {
  const details = page.locator('details', { has: page.locator('summary', { hasText: summary }) });
  const form = details.getByRole('form', { name: summary });
  // Opened again if the panel re-rendered it folded (its data arriving on a busy machine, say).
  await eventually(
    async () => {
      if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
      return form.isVisible();
    },
    { what: `the "${summary}" form unfolded` },
  );
  return form;
}
