const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface ConnectionFacts {
  to: string;
  applicationName: string;
  redirectHost: string;
  workspaceName: string;
  permissions: string[];
  at: Date;
  grantId: string;
  /** Where the account pages are, to disconnect it there. */
  accountUrl: string;
  /** The connection's reply address (revoke+…@domain) and the Message-ID the mail carries; without them, no reply revokes. */
  reply?: { address: string; messageId: string } | undefined;
}

/** The confirmation sent the first time an application is connected to a workspace (spec 5.2 rule 5, 5.7 rule 4). */
export function connectionConfirmation(f: ConnectionFacts) {
  const when = f.at.toUTCString();
  // Fixed text: application and workspace names are free text chosen by others (issue 23 item 5).
  const subject = 'An application was connected to your Loupe workspace';
  const text = [
    `${f.applicationName} now has access to the Loupe workspace "${f.workspaceName}" as you.`,
    '',
    `Application:  ${f.applicationName} (returns to ${f.redirectHost})`,
    `Workspace:    ${f.workspaceName}`,
    `When:         ${when}`,
    'Permissions:',
    ...f.permissions.map((p) => `  - ${p}`),
    '',
    ...(f.reply
      ? ['Did not do this, or want to disconnect it? Reply to this email (any text will do, REVOKE is',
        'enough) and this connection ends: every token the application holds stops working.',
        `You can also disconnect it under Connected applications: ${f.accountUrl}`]
      : ['Did not do this, or want to disconnect it? Open Connected applications in your account and revoke it;',
        `every token the application holds stops working: ${f.accountUrl}`]),
    '',
    `Reference: ${f.grantId}`,
  ].join('\n');
  const html = `<div style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;color:#18181b;max-width:560px">
<p><strong>${escape(f.applicationName)}</strong> now has access to the Loupe workspace <strong>${escape(f.workspaceName)}</strong> as you.</p>
<table style="border-collapse:collapse;font-size:14px">
<tr><td style="color:#52525b;padding:2px 12px 2px 0">Application</td><td>${escape(f.applicationName)} (returns to ${escape(f.redirectHost)})</td></tr>
<tr><td style="color:#52525b;padding:2px 12px 2px 0">Workspace</td><td>${escape(f.workspaceName)}</td></tr>
<tr><td style="color:#52525b;padding:2px 12px 2px 0">When</td><td>${escape(when)}</td></tr>
</table>
<p style="margin-bottom:4px">Permissions:</p><ul style="margin-top:0">${f.permissions.map((p) => `<li>${escape(p)}</li>`).join('')}</ul>
${f.reply
    ? `<p>Did not do this, or want to disconnect it? <strong>Reply to this email</strong> (REVOKE is enough) and this connection ends: every token the application holds stops working. You can also disconnect it under <a href="${escape(f.accountUrl)}">Connected applications</a>.</p>`
    : `<p>Did not do this, or want to disconnect it? Open <a href="${escape(f.accountUrl)}">Connected applications</a> in your account and revoke it: every token the application holds stops working.</p>`}
<p style="color:#71717a;font-size:12px">Reference: ${escape(f.grantId)}</p></div>`;
  return {
    to: f.to, subject, text, html, kind: 'connection-confirmation',
    ...(f.reply ? { replyTo: f.reply.address, messageId: f.reply.messageId } : {}),
  };
}

/** The answer to a reply that revoked a connection. */
export function revocationConfirmation(f: { to: string; applicationName: string; workspaceName: string; at: Date }) {
  const subject = 'An application was disconnected from your Loupe workspace';
  const text = [
    `We disconnected ${f.applicationName} from the Loupe workspace "${f.workspaceName}", as you asked by replying to its confirmation email.`,
    `Every token it held stopped working at ${f.at.toUTCString()}. To use it again, connect it again from the application.`,
  ].join('\n');
  const html = `<div style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;color:#18181b;max-width:560px">
<p>We disconnected <strong>${escape(f.applicationName)}</strong> from the Loupe workspace <strong>${escape(f.workspaceName)}</strong>, as you asked by replying to its confirmation email.</p>
<p>Every token it held stopped working at ${escape(f.at.toUTCString())}. To use it again, connect it again from the application.</p></div>`;
  return { to: f.to, subject, text, html, kind: 'revocation-confirmation' };
}
