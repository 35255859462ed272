import { apiJson, apiVoid } from '../../lib/api';
import { McpServerListSchema, McpServerSchema, type McpServerSettings } from '@svc/protocol';

const enc = encodeURIComponent;
const serversPath = (projectId: string) => `/projects/${enc(projectId)}/mcp-servers`;

export const listMcpServers = async (projectId: string) =>
  (await apiJson(serversPath(projectId), McpServerListSchema)).items;
/** Creates the server or replaces all its settings. */
export const putMcpServer = (projectId: string, name: string, settings: McpServerSettings) =>
  apiJson(`${serversPath(projectId)}/${enc(name)}`, McpServerSchema, { method: 'PUT', json: settings });
export const deleteMcpServer = (projectId: string, name: string) =>
  apiVoid(`${serversPath(projectId)}/${enc(name)}`, { method: 'DELETE' });
