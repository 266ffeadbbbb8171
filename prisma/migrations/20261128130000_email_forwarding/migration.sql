-- Email forwarding (issue 45): each project's inbound address, and the sender domains a workspace accepts.
-- The local part's token is the capability (`fwd+<token>@MAIL_REPLY_DOMAIN`); it is kept as is because the
-- console shows it to the workspace's members at any time, as Front and Productboard show theirs. Rotating it
-- replaces the row's token: the old address is then refused with 550.
CREATE TABLE "inbound_addresses" (
    "token" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "inbound_addresses_pkey" PRIMARY KEY ("token"),
    CONSTRAINT "inbound_addresses_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "inbound_addresses_workspace_id_project_id_key" ON "inbound_addresses"("workspace_id", "project_id");

-- Domains whose senders may forward mail to the workspace's addresses; none listed: its members' email domains.
CREATE TABLE "inbound_sender_domains" (
    "workspace_id" TEXT NOT NULL,
    "domain" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "inbound_sender_domains_pkey" PRIMARY KEY ("workspace_id", "domain"),
    CONSTRAINT "inbound_sender_domains_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
