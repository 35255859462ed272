import nodemailer, { type Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends mail; `available` is false when the server has no SMTP_URL. */
export interface Mailer {
  readonly available: boolean;
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Mail through SMTP (nodemailer) from SMTP_URL; without one, every send fails as unavailable. */
export function smtpMailer(smtpUrl: string | null, from: string): Mailer {
  if (!smtpUrl) {
    return {
      available: false,
      send: () => Promise.reject(new Error('e-mail is not configured on this server (SMTP_URL)')),
      close: () => undefined,
    };
  }
  const url = new URL(smtpUrl);
  const transport: Transporter = nodemailer.createTransport({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  });
  return {
    available: true,
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close: () => transport.close(),
  };
}
