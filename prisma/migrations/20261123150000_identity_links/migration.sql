-- Sign-in through OpenID Connect identity providers (spec 5.2 rule 1): one row per account at a provider
-- (the issuer's `sub`), pointing at the Loupe user it signs in as.
CREATE TABLE "identity_links" (
    "provider" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "email" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "last_used_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "identity_links_pkey" PRIMARY KEY ("provider", "subject"),
    CONSTRAINT "identity_links_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "identity_links_user_id_idx" ON "identity_links"("user_id");
