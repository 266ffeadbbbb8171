-- Email sign-in codes: only an HMAC of the code is stored; a code dies after 5 wrong guesses.
CREATE TABLE "sign_in_codes" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "ip" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "consumed_at" TIMESTAMPTZ(3),

    CONSTRAINT "sign_in_codes_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "sign_in_codes_email_created_at_idx" ON "sign_in_codes"("email", "created_at" DESC);

-- Browser sessions of the web pages: the cookie holds the token, the table its SHA-256.
CREATE TABLE "web_sessions" (
    "id_hash" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "web_sessions_pkey" PRIMARY KEY ("id_hash")
);
CREATE INDEX "web_sessions_user_id_idx" ON "web_sessions"("user_id");
ALTER TABLE "web_sessions" ADD CONSTRAINT "web_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
