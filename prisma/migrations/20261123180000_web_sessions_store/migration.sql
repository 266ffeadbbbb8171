-- Web sessions move to express-session with connect-pg-simple (its table shape: sid, sess, expire).
-- `sid` holds the SHA-256 of the session id, never the id itself; `user_id` is derived from the
-- session so that deleting a person deletes their sessions. Everyone signs in again once.
DROP TABLE "web_sessions";
CREATE TABLE "web_sessions" (
    "sid" TEXT NOT NULL,
    "sess" JSON NOT NULL,
    "expire" TIMESTAMPTZ(6) NOT NULL,
    "user_id" TEXT GENERATED ALWAYS AS ("sess" ->> 'userId') STORED,
    CONSTRAINT "web_sessions_pkey" PRIMARY KEY ("sid"),
    CONSTRAINT "web_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
);
CREATE INDEX "web_sessions_expire_idx" ON "web_sessions"("expire");
CREATE INDEX "web_sessions_user_id_idx" ON "web_sessions"("user_id");
