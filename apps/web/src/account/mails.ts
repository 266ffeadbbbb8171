const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The invitation to join a workspace: who invites, to what, with which role, and the link (valid 7
 * days). The subject is fixed text: a workspace name is whatever its creator typed, and a subject is
 * what a spam filter and a reader trust most (issue 23 item 5).
 */
export function invitationMail(f: { to: string; workspaceName: string; invitedBy: string; role: string; link: string; expiresAt: Date }) {
  const subject = 'You are invited to a Loupe workspace';
  const text = [
    `${f.invitedBy} invited you to join the Loupe workspace "${f.workspaceName}" as ${f.role === 'admin' ? 'an admin' : f.role === 'owner' ? 'an owner' : 'a member'}.`,
    '',
    'Accept the invitation:',
    f.link,
    '',
    `Sign in with this address (${f.to}); if you have no Loupe account yet, signing in creates one.`,
    `The link works once and until ${f.expiresAt.toUTCString()}.`,
  ].join('\n');
  const html = `<div style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;color:#18181b;max-width:560px">
<p><strong>${escape(f.invitedBy)}</strong> invited you to join the Loupe workspace <strong>${escape(f.workspaceName)}</strong>.</p>
<p><a href="${escape(f.link)}" style="display:inline-block;background:#3b3bd4;color:#fff;padding:10px 16px;border-radius:8px;text-decoration:none;font-weight:600">Accept the invitation</a></p>
<p style="color:#52525b;font-size:14px">Sign in with this address (${escape(f.to)}); if you have no Loupe account yet, signing in creates one. The link works once and until ${escape(f.expiresAt.toUTCString())}.</p></div>`;
  return { to: f.to, subject, text, html, kind: 'invitation' };
}
