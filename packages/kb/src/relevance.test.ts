import { chunkArticle } from './chunker';
import { embedChunks } from './embed-chunks';
import { createHashingEmbedder } from './embedder';
import { searchKb } from './search';
import type { KbArticleInput } from './types';

// A small but realistic knowledge base: several articles whose sections share vocabulary.
const ARTICLES: KbArticleInput[] = [
  {
    id: 'auth',
    title: 'Authentication and tokens',
    content: `Users sign in through the configured identity provider; the server issues ES256 JWTs.

## Session cookies
The session cookie is HttpOnly and SameSite=Lax. It is marked Secure when the server is served over https.

## Rotating the signing key
To rotate the JWT signing key, generate a new EC P-256 private key in PEM format, point
jwt_private_key at it and restart the server. Old tokens signed with the previous key stop
verifying, so users must sign in again. Publish the new public key through the JWKS endpoint.

## API tokens for CI
Create a token with scope api from the settings page and store it as a CI secret.`,
  },
  {
    id: 'db',
    title: 'Database operations',
    content: `The service stores everything in SQLite by default or PostgreSQL in production.

## Backups
Take a nightly backup with pg_dump in custom format and copy the file off the machine.

## Restoring from a backup
Stop the server, create an empty database, then restore the dump with pg_restore --clean.
Start the server again; migrations run on start-up and bring the schema up to date.

## Migrations
Schema migrations are generated from the Prisma schema and applied at start-up.`,
  },
  {
    id: 'workers',
    title: 'Running workers',
    content: `Workers run the agent loop and connect to the server over a WebSocket.

## LLM configuration
Each worker reads its own config file: the llm section sets base_url, model, temperature and
api_key or api_key_env for any OpenAI-compatible endpoint.

## Heartbeats and reconnects
A worker sends a heartbeat every few seconds. When heartbeats stop the server marks the worker
offline and its workflows go back to the queue; the worker reconnects with backoff and resends
any update that was not acknowledged.

## Labels and capacity
Labels route workflows to workers; capacity limits how many workflows a worker runs at once.`,
  },
  {
    id: 'storage',
    title: 'Files and object storage',
    content: `Every project has object storage and every workflow has a workspace.

## Upload limits
Uploads are streamed to a temporary file and renamed when complete. Files larger than
STORAGE_MAX_UPLOAD_BYTES (2 GiB by default) are refused with status 413 payload_too_large.

## Paths
Paths are checked against the storage root; .. segments and symlinks that escape it give 400.`,
  },
  {
    id: 'deploy',
    title: 'Deploying the service',
    content: `This article covers installing the server on a single machine.

## Docker Compose
The repository ships a docker compose file with the api, a worker and PostgreSQL. Copy the
example environment file, set the secrets and run docker compose up -d.

## Reverse proxy
Put nginx or Caddy in front of the api and forward WebSocket upgrades for /svc/ws.`,
  },
];

const CASES: Array<[query: string, articleId: string, heading: string]> = [
  ['How do I rotate the JWT signing key?', 'auth', '## Rotating the signing key'],
  ['restore the postgres database from a dump', 'db', '## Restoring from a backup'],
  ['worker keeps going offline, heartbeat missed', 'workers', '## Heartbeats and reconnects'],
  ['which model and api key does a worker use for the LLM', 'workers', '## LLM configuration'],
  ['uploading a 3 GiB file fails with 413', 'storage', '## Upload limits'],
  ['deploy with docker compose', 'deploy', '## Docker Compose'],
  ['nginx websocket proxy', 'deploy', '## Reverse proxy'],
];

describe('search relevance with the hashing embedder', () => {
  const embedder = createHashingEmbedder();
  const indexed = Promise.all(ARTICLES.map((article) => embedChunks(chunkArticle(article), embedder))).then((lists) =>
    lists.flat(),
  );

  it.each(CASES)('ranks the matching section first for %j', async (query, articleId, heading) => {
    const results = await searchKb(query, embedder, await indexed);
    expect(results).toHaveLength(5);
    expect(results[0]).toMatchObject({ article_id: articleId });
    expect(results[0]?.text.startsWith(heading)).toBe(true);
    expect(results[0]?.score).toBeGreaterThan((results[1]?.score ?? 0) + 0.01);
  });
});
