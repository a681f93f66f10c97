import nodemailer from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** A stable Message-ID (`<...@...>`): a resend after a crash is recognisably the same message. */
  messageId: string;
}

/** What sends mail: SMTP in every process (D13); tests give the same thing a local SMTP server. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * Mail through SMTP with nodemailer (a maintained client: STARTTLS, AUTH, pooling and the MIME
 * encoding of headers and bodies are its business, not ours). `SMTP_URL` carries the host, port,
 * security and credentials, e.g. `smtp://user:pass@mail.example:587`.
 */
export function smtpMailer(smtpUrl: string, from: string): Mailer {
  // Bounded waits: a mail server that does not answer fails the activity, which Temporal retries.
  const transport = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }, { from });
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, messageId: mail.messageId });
    },
    close: () => transport.close(),
  };
}
