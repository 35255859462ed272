import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatPayload, postChat } from './chat';

const message = { title: 'Shop #3 Build it failed', text: 'Error:\nboom <script>', url: 'https://svc.example/p/w' };

describe('chat payloads', () => {
  it('Slack: text and mrkdwn blocks, angle brackets escaped', () => {
    const body = chatPayload('slack', message) as { text: string; blocks: { text: { text: string } }[] };
    expect(body.text).toContain('<https://svc.example/p/w|Open the run>');
    expect(body.blocks[0]!.text.text).toContain('boom &lt;script&gt;');
  });
  it('Teams: a MessageCard with an OpenUri action', () => {
    expect(chatPayload('teams', message)).toMatchObject({
      '@type': 'MessageCard',
      title: message.title,
      potentialAction: [{ '@type': 'OpenUri', targets: [{ uri: message.url }] }],
    });
  });
  it('Discord: content of at most 2000 characters, no mentions', () => {
    const body = chatPayload('discord', { ...message, text: 'x'.repeat(5000) }) as { content: string };
    expect(body.content).toHaveLength(2000);
    expect(body).toMatchObject({ allowed_mentions: { parse: [] } });
  });
});

describe('postChat', () => {
  it('refuses internal addresses unless allowed, and posts JSON when allowed', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        bodies.push(text);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      await expect(postChat(url, { text: 'x' }, { allowPrivate: false })).rejects.toThrow('internal addresses');
      await expect(
        postChat(url.replace('127.0.0.1', 'localhost'), { text: 'x' }, { allowPrivate: false }),
      ).rejects.toThrow('internal host names');
      expect(bodies).toEqual([]);
      await postChat(url, { text: 'hello' }, { allowPrivate: true });
      expect(bodies).toEqual(['{"text":"hello"}']);
    } finally {
      server.close();
    }
  });
});
