import { notifyBody } from './notify';

describe('svc notify set flags', () => {
  it('turns the flags into the PUT body; none and all clear', () => {
    expect(
      notifyBody({
        email: 'on',
        emailTo: 'me@example.com',
        emailEvents: 'waiting_for_input,failed',
        chatUrl: 'none',
        projects: 'all',
      }),
    ).toEqual({
      email: { enabled: true, address: 'me@example.com', events: ['waiting_for_input', 'failed'] },
      chat: { url: null },
      projects: null,
    });
    expect(notifyBody({ chat: 'off', chatFormat: 'teams', chatEvents: 'none' })).toEqual({
      chat: { enabled: false, format: 'teams', events: [] },
    });
  });

  it('refuses no option and bad values as usage errors', () => {
    expect(() => notifyBody({})).toThrow('give at least one option');
    expect(() => notifyBody({ email: 'maybe' })).toThrow('--email: on or off');
    expect(() => notifyBody({ emailEvents: 'exploded' })).toThrow('bad setting email.events.0');
    expect(() => notifyBody({ chatUrl: 'ftp://x' })).toThrow('bad setting chat.url');
  });
});
