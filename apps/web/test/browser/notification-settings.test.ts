import type { Locator, Page } from 'playwright-core';
import type { NotificationPreferences } from '@svc/protocol';
import { describeInChromium, launchChromium } from '../support/chromium';
import { auditPage } from '../support/audit';
import { expectText, signIn } from '../support/pages';
import { expectJson, startWebServer, type TestServer } from '../support/server';

jest.setTimeout(90_000);

// Issue 25: a person's notification preferences on the Settings page: e-mail (address and events) and a
// chat webhook (format, URL and events) are saved and shown again after a reload; an invalid address or
// a URL that is not http(s) shows the server's error message (the contract's error body) and saves nothing.
describeInChromium('notification settings in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let cookie: string;

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, server.url, 'nora');
    cookie = await server.login('nora');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const stored = async () =>
    expectJson<NotificationPreferences>(await server.request('/svc/api/me/notifications', { as: cookie }), 200);

  /** The server's error message for a preference body, as the contract's error envelope carries it. */
  const refusal = async (body: unknown): Promise<string> => {
    const res = await server.request('/svc/api/me/notifications', { method: 'PUT', as: cookie, json: body });
    const answer = await expectJson<{ error: { code: string; message: string } }>(res, 400);
    expect(answer.error.code).toBe('invalid_input');
    return answer.error.message;
  };

  const openSettings = async () => {
    await page.goto(`${server.url}/settings`);
    const form = page.getByRole('form', { name: 'Notification settings' });
    await form.getByRole('button', { name: 'Save notifications' }).waitFor();
    return {
      form,
      email: form.getByRole('group', { name: 'E-mail', exact: true }),
      chat: form.getByRole('group', { name: 'Chat webhook' }),
    };
  };

  const events = (group: Locator, name: string) => group.getByRole('group', { name });
  const checked = (group: Locator, label: string) => group.getByRole('checkbox', { name: label }).isChecked();

  it('saves e-mail and chat preferences and shows them again after a reload', async () => {
    const { form, email, chat } = await openSettings();
    await email.getByRole('checkbox', { name: 'Send me e-mails' }).check();
    await email.getByRole('textbox', { name: 'Address' }).fill('nora@mail.example.com');
    const emailEvents = events(email, 'E-mail events');
    await emailEvents.getByRole('checkbox', { name: 'Waiting for my answer' }).check();
    await emailEvents.getByRole('checkbox', { name: 'Failed' }).check();
    await chat.getByRole('checkbox', { name: 'Post to a chat' }).check();
    await chat.getByRole('combobox', { name: 'Format' }).selectOption('discord');
    await chat.getByLabel('Incoming-webhook URL').fill('https://chat.example.com/hooks/T0/B0/s3cret');
    await events(chat, 'Chat events').getByRole('checkbox', { name: 'Completed' }).check();
    await form.getByRole('button', { name: 'Save notifications' }).click();
    await expectText(form.getByRole('status'), 'Saved.');

    expect(await stored()).toMatchObject({
      email: { enabled: true, address: 'nora@mail.example.com', events: ['waiting_for_input', 'failed'] },
      chat: { enabled: true, format: 'discord', url_set: true, url_host: 'chat.example.com', events: ['completed'] },
    });

    await page.reload();
    const again = await openSettings();
    await expectValues(again.email, again.chat);
    // the URL is a credential: never shown back, only its host
    expect(await page.content()).not.toContain('s3cret');
    await auditPage(page, 'settings-notifications');
  });

  it('shows the server’s message for an invalid address and saves nothing', async () => {
    const expected = await refusal({ email: { address: 'not-an-address' } });
    const before = await stored();
    const { form, email } = await openSettings();
    await email.getByRole('textbox', { name: 'Address' }).fill('not-an-address');
    // a change beside it must not be saved either
    await events(email, 'E-mail events').getByRole('checkbox', { name: 'Budget reached' }).check();
    await form.getByRole('button', { name: 'Save notifications' }).click();
    await expectText(form.getByRole('alert'), expected);
    expect(await form.getByRole('status').innerText()).toBe('');
    expect(await stored()).toEqual(before);

    await page.reload();
    const again = await openSettings();
    await expectValues(again.email, again.chat);
  });

  it('shows the server’s message for a chat URL that is not http(s) and saves nothing', async () => {
    const expected = await refusal({ chat: { url: 'ftp://files.example.org/hook' } });
    const before = await stored();
    const { form, chat } = await openSettings();
    await chat.getByLabel('Incoming-webhook URL').fill('ftp://files.example.org/hook');
    await chat.getByRole('combobox', { name: 'Format' }).selectOption('teams');
    await form.getByRole('button', { name: 'Save notifications' }).click();
    await expectText(form.getByRole('alert'), expected);
    expect(await stored()).toEqual(before);

    await page.reload();
    const again = await openSettings();
    await expectValues(again.email, again.chat);
  });

  /** What the first test saved, as the form shows it. */
  async function expectValues(email: Locator, chat: Locator): Promise<void> {
    expect(await checked(email, 'Send me e-mails')).toBe(true);
    expect(await email.getByRole('textbox', { name: 'Address' }).inputValue()).toBe('nora@mail.example.com');
    const emailEvents = events(email, 'E-mail events');
    expect(await checked(emailEvents, 'Waiting for my answer')).toBe(true);
    expect(await checked(emailEvents, 'Completed')).toBe(false);
    expect(await checked(emailEvents, 'Failed')).toBe(true);
    expect(await checked(emailEvents, 'Budget reached')).toBe(false);
    expect(await checked(chat, 'Post to a chat')).toBe(true);
    expect(await chat.getByRole('combobox', { name: 'Format' }).inputValue()).toBe('discord');
    const url = chat.getByLabel('Incoming-webhook URL');
    expect(await url.inputValue()).toBe('');
    expect(await url.getAttribute('placeholder')).toContain('chat.example.com');
    await chat.getByRole('button', { name: 'Remove the stored URL' }).waitFor();
    const chatEvents = events(chat, 'Chat events');
    expect(await checked(chatEvents, 'Completed')).toBe(true);
    expect(await checked(chatEvents, 'Waiting for my answer')).toBe(false);
    expect(await checked(chatEvents, 'Failed')).toBe(false);
  }
});
