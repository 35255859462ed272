import {
  FileListSchema,
  KB_SEARCH_DEFAULT_K,
  KbSearchResponseSchema,
  TemplateListSchema,
  WorkerListSchema,
  type FileEntry,
  type KbSearchResult,
  type Template,
  type Worker,
} from '@svc/protocol';
import { RestClient } from './rest-client';

export interface ListFilesOptions {
  /** directory relative to the workspace root; '' (default) is the root */
  path?: string;
  /** every file and directory below `path`, not just its entries */
  recursive?: boolean;
}

export const workflowPath = (workflowId: string): string => `/workflows/${encodeURIComponent(workflowId)}`;

/** The REST client plus the calls the worker and the web app both make. */
export class SvcClient extends RestClient {
  /** `GET /workflows/{id}/files?path=`: a directory listing of a workflow workspace. */
  listFiles(workflowId: string, options: ListFilesOptions = {}): Promise<FileEntry[]> {
    return this.request(`${workflowPath(workflowId)}/files`, FileListSchema, {
      query: { path: options.path ?? '', recursive: options.recursive ? 1 : undefined },
    });
  }

  /** `GET /kb/search?q=&k=`: the best `k` chunks of the knowledge base, each with its article. */
  searchKb(query: string, k = KB_SEARCH_DEFAULT_K): Promise<KbSearchResult[]> {
    return this.request('/kb/search', KbSearchResponseSchema, { query: { q: query, k } });
  }

  /** `GET /workers`: every registered worker. */
  listWorkers(): Promise<Worker[]> {
    return this.request('/workers', WorkerListSchema);
  }

  /** `GET /templates`: one per branch of the template repository. */
  listTemplates(): Promise<Template[]> {
    return this.request('/templates', TemplateListSchema);
  }
}
