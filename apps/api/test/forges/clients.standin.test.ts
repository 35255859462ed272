import { startStandInForge, type StandInForge, type StandInForgeKind } from '@svc/test-kit';
import { forgeClient, repositoryPath, type ForgeClient } from '../../src/forges';

/**
 * The forge clients through the real client libraries (@octokit/rest, gitea-js, @gitbeaker/rest) against
 * a STAND-IN forge API that validates each request and answer (GitHub: its published OpenAPI description).
 */
describe.each<StandInForgeKind>(['github', 'gitea', 'gitlab'])('forge client against a stand-in %s API', (kind) => {
  let forge: StandInForge;
  let client: ForgeClient;

  beforeAll(async () => {
    forge = await startStandInForge(kind, {
      issues: [{ number: 7, title: 'Add a footer', body: 'The page needs a footer.', labels: ['svc'] }],
    });
    // The stand-in listens on loopback: what WEBHOOK_ALLOW_PRIVATE_TARGETS allows.
    client = forgeClient(
      { forge: kind, apiBaseUrl: forge.apiBaseUrl, path: repositoryPath(forge.cloneUrl), token: forge.token },
      { allowPrivate: true },
    );
  });
  afterAll(() => forge.close());
  afterEach(() => {
    const seen = forge.violations.splice(0);
    expect(seen).toEqual([]);
  });

  it('stand-in: finds no pull request, opens one, then finds it instead of opening a second', async () => {
    expect(await client.findPullRequest('svc/1-footer', 'main')).toBeNull();
    const opened = await client.openPullRequest({
      head: 'svc/1-footer',
      base: 'main',
      title: 'Add a footer',
      body: '# Report',
    });
    expect(opened).toMatchObject({ head: 'svc/1-footer', base: 'main', state: 'open' });
    expect(opened.url).toMatch(/^http/);
    expect(await client.findPullRequest('svc/1-footer', 'main')).toMatchObject({
      number: opened.number,
      url: opened.url,
    });
    expect(forge.pulls).toHaveLength(1);
    expect(forge.pulls[0]).toMatchObject({ title: 'Add a footer', body: '# Report' });
  });

  it('stand-in: posts commit statuses and comments, reads an issue', async () => {
    const sha = 'a'.repeat(40);
    await client.postStatus(sha, {
      state: 'pending',
      context: 'svc',
      description: 'running',
      targetUrl: 'http://svc.test/run',
    });
    await client.postStatus(sha, {
      state: 'failure',
      context: 'svc',
      description: 'failed',
      targetUrl: 'http://svc.test/run',
    });
    expect(forge.statuses.map((status) => status.state)).toEqual(
      kind === 'gitlab' ? ['pending', 'failed'] : ['pending', 'failure'],
    );
    await client.postComment(7, 'a comment', { onMergeRequest: false });
    expect(forge.comments).toEqual([{ number: 7, body: 'a comment', on: 'issue' }]);
    expect(await client.getIssue(7)).toMatchObject({
      number: 7,
      title: 'Add a footer',
      body: 'The page needs a footer.',
      labels: ['svc'],
    });
  });

  it('stand-in: a wrong token is refused and reported as a forge error without the token', async () => {
    const wrong = forgeClient(
      { forge: kind, apiBaseUrl: forge.apiBaseUrl, path: repositoryPath(forge.cloneUrl), token: 'not-the-token-xyz' },
      { allowPrivate: true },
    );
    const error = await wrong.getIssue(7).then(
      () => null,
      (caught: unknown) => caught as Error,
    );
    expect(error?.name).toBe('ForgeError');
    expect(error?.message).not.toContain('not-the-token-xyz');
    forge.violations.length = 0; // the refusal itself is recorded as a violation by design
  });

  it.each([
    ['an internal IP literal', (base: string) => base],
    ['a name that resolves to an internal address', (base: string) => base.replace('127.0.0.1', 'localhost')],
  ])('stand-in: %s is refused at connect time unless allowed; nothing reaches the forge', async (_what, at) => {
    const seen = forge.requests.length;
    const target = {
      forge: kind,
      apiBaseUrl: at(forge.apiBaseUrl),
      path: repositoryPath(forge.cloneUrl),
      token: forge.token,
    };
    for (const refused of [forgeClient(target), forgeClient(target, { allowPrivate: false })]) {
      const error = await refused.getIssue(7).then(
        () => null,
        (caught: unknown) => caught as Error,
      );
      expect(error?.name).toBe('ForgeError');
      expect(error?.message).toMatch(/refused: .*internal address/);
      expect(error?.message).not.toContain(forge.token);
    }
    expect(forge.requests.length).toBe(seen);
    // Allowed, the same client reaches it.
    expect(await forgeClient(target, { allowPrivate: true }).getIssue(7)).toMatchObject({ number: 7 });
    expect(forge.requests.length).toBe(seen + 1);
  });
});

describe('the GitHub stand-in validates against the OpenAPI description', () => {
  it('stand-in: records a body the description refuses', async () => {
    const forge = await startStandInForge('github');
    try {
      const response = await fetch(`${forge.apiBaseUrl}/repos/acme/widgets/statuses/${'b'.repeat(40)}`, {
        method: 'POST',
        headers: { authorization: `token ${forge.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ state: 'done' }),
      });
      expect(response.status).toBe(422);
      expect(forge.violations.join('\n')).toMatch(/state/);
    } finally {
      await forge.close();
    }
  });
});

describe('repositoryPath', () => {
  it.each([
    ['https://github.com/acme/widgets.git', 'acme/widgets'],
    ['git@github.com:acme/widgets.git', 'acme/widgets'],
    ['ssh://git@gitlab.example/group/sub/widgets.git', 'group/sub/widgets'],
    ['https://gitea.example/acme/widgets', 'acme/widgets'],
  ])('%s → %s', (url, path) => expect(repositoryPath(url)).toBe(path));
});
