#!/usr/bin/env node
// A real SMTP server (npm smtp-server) as its own process for tests: listens on a loopback port, prints
// one JSON line per event on stdout: {"type":"listening","port"} and {"type":"mail","from","to","raw"}
// (raw: the message, base64). With SMTP_USER and SMTP_PASS set, it requires AUTH with them.
'use strict';
const { SMTPServer } = require('smtp-server');

const user = process.env.SMTP_USER;
const pass = process.env.SMTP_PASS;
const say = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

const server = new SMTPServer({
  secure: false,
  disabledCommands: user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
  allowInsecureAuth: true,
  authOptional: !user,
  logger: false,
  onAuth(auth, _session, callback) {
    if (auth.username === user && auth.password === pass) return callback(null, { user: auth.username });
    say({ type: 'auth_refused', username: auth.username });
    return callback(new Error('Invalid username or password'));
  },
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => {
      say({
        type: 'mail',
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('base64'),
      });
      callback();
    });
  },
});
server.on('error', (err) => process.stderr.write(`smtp-server error: ${err.message}\n`));
server.listen(Number(process.env.SMTP_PORT || 0), '127.0.0.1', () =>
  say({ type: 'listening', port: server.server.address().port }),
);
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
