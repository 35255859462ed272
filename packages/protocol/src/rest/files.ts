import { z } from 'zod';
import { TimestampSchema } from '../common';

/** One entry of a workspace or storage listing. */
export const FileEntrySchema = z.object({
  name: z.string(),
  /** relative to the workspace (or storage) root, `/`-separated */
  path: z.string(),
  type: z.enum(['file', 'dir']),
  size: z.int().min(0),
  modified_at: TimestampSchema,
});
export type FileEntry = z.infer<typeof FileEntrySchema>;

/** GET /workflows/{id}/files?path=<dir> (and storage listings): a plain array, not a page. */
export const FileListSchema = z.array(FileEntrySchema);

/** `?path=<dir>` of listings and multipart uploads; the server still checks it against the root. */
export const FilesQuerySchema = z.object({ path: z.string().max(4096).default('') });
export type FilesQuery = z.infer<typeof FilesQuerySchema>;

/** A stored upload (`PUT …/files/<path>`, each file of a multipart `POST`, `PUT …/storage/<path>`). */
export const FileWrittenSchema = z.object({
  path: z.string(),
  size: z.int().min(0),
  /** hex SHA-256 of the content, where the server computed it */
  sha256: z.string().optional(),
});
export type FileWritten = z.infer<typeof FileWrittenSchema>;
