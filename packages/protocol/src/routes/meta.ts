import { HealthResponseSchema, ReadinessResponseSchema } from '../rest/health';
import { API, defineOperations, json } from './operation';

/** The service itself: liveness and readiness probes, this API's document and its reference page. */
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
  getReadiness: {
    method: 'GET',
    path: `${API}/ready`,
    tag: 'meta',
    auth: 'public',
    action: 'public',
    summary: 'Readiness probe: whether this replica takes new requests (503 while it drains for a shutdown)',
    responses: {
      200: json('serving', ReadinessResponseSchema),
      503: json(
        'draining (finishing what it serves before it stops: send new requests elsewhere), or the database or the storage does not answer',
        ReadinessResponseSchema,
      ),
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
