-- The local outbox of libs/mail: where mail goes when no SMTP_URL is configured (the embedded
-- default), so the running service and `npm run admin -- mail list` read the same messages.
CREATE TABLE "mail_outbox" (
    "id" TEXT NOT NULL,
    "to_address" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "text_body" TEXT NOT NULL,
    "html_body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mail_outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "mail_outbox_to_address_created_at_idx" ON "mail_outbox"("to_address", "created_at" DESC);
