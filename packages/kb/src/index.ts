export { chunkArticle, chunkEmbeddingText } from './chunker';
export { embedChunks, type EmbeddedChunk } from './embed-chunks';
export {
  createHashingEmbedder,
  DEFAULT_HASHING_DIMENSIONS,
  type Embedder,
  type HashingEmbedderOptions,
} from './embedder';
export { KbError, type KbErrorCode } from './errors';
export { joinKbText, splitKbText, UNTITLED, type KbTextArticle } from './kb-text';
export { cosineTopK, DEFAULT_TOP_K, searchChunks, searchKb, type Scored, type SearchableChunk } from './search';
export type { KbArticleInput, KbChunk, KbSearchResult } from './types';
export { bytesToFloat32, cosineSimilarity, float32ToBytes, l2Normalize } from './vector';
