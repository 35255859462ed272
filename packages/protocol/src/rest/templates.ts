import { z } from 'zod';
import { MAX_NAME_CHARS } from '../common';

/** One entry of GET /templates (one per remote branch of the template repository). */
export const TemplateSchema = z.object({ name: z.string(), description: z.string() });
export type Template = z.infer<typeof TemplateSchema>;

/** GET /templates: a plain array (the list is as short as the repository's branch list). */
export const TemplateListSchema = z.array(TemplateSchema);

/** POST /workflows/{id}/template (the worker's `use_template`): copies that branch into the workspace. */
export const UseTemplateRequestSchema = z.object({ name: z.string().min(1).max(MAX_NAME_CHARS) }).strict();
export type UseTemplateRequest = z.infer<typeof UseTemplateRequestSchema>;

/** The answer to POST /workflows/{id}/template: the template now in the workspace. */
export const UseTemplateResponseSchema = z.object({ name: z.string() });
export type UseTemplateResponse = z.infer<typeof UseTemplateResponseSchema>;
