-- Issue 23 item 3: welcome credits once per person. A person is their email address: the row outlives
-- the account, so deleting it and signing up again does not grant them again. Only the SHA-256 of the
-- normalised address is kept, with the workspace that received the credits.
CREATE TABLE "welcome_credit_recipients" (
    "email_sha256" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "granted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "welcome_credit_recipients_pkey" PRIMARY KEY ("email_sha256")
);
