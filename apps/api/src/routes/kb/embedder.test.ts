import { embeddingsEndpoint } from './embedder';

describe('embeddingsEndpoint', () => {
  it.each([
    ['http://llm.local:8080', 'http://llm.local:8080/v1/embeddings'],
    ['http://llm.local:8080/v1/', 'http://llm.local:8080/v1/embeddings'],
    ['https://api.example.test/v1/embeddings', 'https://api.example.test/v1/embeddings'],
    ['https://gw.example.test/openai/v1', 'https://gw.example.test/openai/v1/embeddings'],
  ])('%s -> %s', (url, endpoint) => {
    expect(embeddingsEndpoint(url)).toBe(endpoint);
  });
});
