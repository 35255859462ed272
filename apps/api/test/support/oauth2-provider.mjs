// A real OAuth 2.0 / OIDC provider (oauth2-mock-server) in its own process, driven over IPC by
// oauth2-provider.ts. It runs outside jest because the package and its dependencies are ESM-only.
import process from 'node:process';
import { OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
await server.start(0, '127.0.0.1');

// What the next requests answer; changed by the parent with {type: 'configure', ...}.
let userInfo = { statusCode: 200, body: { sub: 'johndoe' } };
let tokenOverride = null;

server.service.on('beforeAuthorizeRedirect', (_redirect, req) => {
  process.send({ type: 'request', endpoint: 'authorize', query: req.query });
});
server.service.on('beforeResponse', (response, req) => {
  process.send({
    type: 'request',
    endpoint: 'token',
    body: req.body,
    authorization: req.headers.authorization ?? null,
  });
  if (tokenOverride) Object.assign(response, tokenOverride);
});
server.service.on('beforeUserinfo', (response, req) => {
  process.send({ type: 'request', endpoint: 'userinfo', authorization: req.headers.authorization ?? null });
  Object.assign(response, JSON.parse(JSON.stringify(userInfo)));
});

process.on('message', (message) => {
  if (message.type !== 'configure') return;
  if ('userInfo' in message) userInfo = message.userInfo;
  if ('token' in message) tokenOverride = message.token;
  process.send({ type: 'configured' });
});
process.on('disconnect', () => {
  server.stop().finally(() => process.exit(0));
});
process.send({ type: 'ready', url: server.issuer.url });
