-- Issue 23 item 4: the log no longer carries a mail's reply address (revoke+<token>@…); the local
-- outbox keeps it with the message, for `npm run admin -- mail list` on this machine.
ALTER TABLE "mail_outbox" ADD COLUMN "reply_to" TEXT;
