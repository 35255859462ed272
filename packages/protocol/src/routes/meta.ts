import { HealthResponseSchema } from '../rest/health';
import { API, defineOperations, json } from './operation';

/** The service itself: health probe, this API's document and its reference page. */
export const META_OPERATIONS = defineOperations({
  getHealth: {
    method: 'GET',
    path: `${API}/health`,
    tag: 'meta',
    auth: 'public',
    action: 'public',
    summary: 'Liveness, database and storage probe',
    responses: {
      200: json("up; degraded when the data directory's disk is full", HealthResponseSchema),
      503: json('the database or the storage does not answer', HealthResponseSchema),
    },
  },
  getOpenApiDocument: {
    method: 'GET',
    path: `${API}/openapi.json`,
    tag: 'meta',
    auth: 'public',
    action: 'public',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'the document', contentType: 'application/json' } },
  },
  getDocsPage: {
    method: 'GET',
    path: `${API}/docs`,
    tag: 'meta',
    auth: 'public',
    action: 'public',
    summary: 'This document rendered as an HTML reference page',
    responses: { 200: { description: 'HTML', contentType: 'text/html' } },
  },
});
