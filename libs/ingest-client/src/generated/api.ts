// Generated from the OpenAPI document by openapi-typescript (npm run generate). Do not edit.
export interface paths {
    "/api/v1/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit 1 to 1,000 records as one batch */
        post: operations["submitRecords"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ingest/batches": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List batches, newest first */
        get: operations["listBatches"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ingest/batches/{batchId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Status and counters of one batch */
        get: operations["getBatch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Everything the workspace holds, as NDJSON (needs api:read)
         * @description Streams one JSON object per line: every source (with its segments and attachments), then every signal, opportunity (with its signal ids), shaping note (with every version), company and person, each kind by id. Each line is `{"kind", "cursor", <kind>: {…}}`; the last is `{"kind":"end","complete":true,"counts":{…}}`. A stream that ends without that line was cut short: ask again with `after` = the cursor of the last line received.
         */
        get: operations["exportWorkspace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sources/{sourceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a source and everything that hangs off it (needs api:write, and a key created by an owner or an admin)
         * @description Deletes the source and the record it was built from: segments, search text, vector, attachments and their stored files, the signals taken from it (with their history) and its share of opportunities (counts change at once; an opportunity left without signals goes). Credits already charged stay charged; the batch keeps its counts and adds the record to `deletedCount`. Deleting again answers 404, as does an id of another workspace.
         */
        delete: operations["deleteSource"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/records/{recordId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a record and everything that hangs off it (needs api:write, and a key created by an owner or an admin)
         * @description Deletes the record and the source built from it: segments, search text, vector, attachments and their stored files, the signals taken from it (with their history) and its share of opportunities (counts change at once; an opportunity left without signals goes). Credits already charged stay charged; the batch keeps its counts and adds the record to `deletedCount`. Deleting again answers 404, as does an id of another workspace.
         */
        delete: operations["deleteRecord"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/records/{recordId}/attachments/{position}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The file downloaded for one of a record's attachments (needs api:read)
         * @description Streams the file the worker downloaded (or that was uploaded) for the attachment at `position` in the record's `_attachments`, from wherever the service stores files (its disk or a bucket), so every instance serves what any worker stored. It is always a download (`Content-Disposition: attachment`, with the attachment's filename), typed as it was stored. An attachment not downloaded yet, or whose download failed, has no file: the 404 says its status.
         */
        get: operations["downloadAttachment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/erasures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's erasure requests, newest first: who asked and when (the audit log) */
        get: operations["listErasures"];
        put?: never;
        /**
         * Erase a person from the workspace, in the background (needs api:write, and a key created by an owner)
         * @description The person is who carries this email or participant id (compared exactly, case-insensitively), and the other address and id of the participant entries that carry it. Every record, source, segment, participant entry, signal, shaping note and attachment naming them is redacted in place ("[erased]") or deleted: their participant entries go, a turn or message whose speaker or sender is them is erased whole, signals they said are deleted, files of records naming them are deleted from storage; elsewhere their address and id are replaced. Names are never assumed: with "dry_run": true nothing changes and the request ends "previewed", its preview (GET /api/v1/erasures/{erasureId}) saying what would be erased and offering the names found beside the address or id, each marked shared when another participant carries it; POST /api/v1/erasures/{erasureId}/confirm then erases, with the names you confirm. Without a dry run a suppression of each identifier is added at once: records naming the person are refused (record error PERSON_SUPPRESSED) until it is lifted. Follow the progress with GET /api/v1/erasures/{erasureId}. Credits already charged stay charged.
         */
        post: operations["requestErasure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/erasures/{erasureId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An erasure's progress: status, phase and counts; of a finished dry run, its preview */
        get: operations["getErasure"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/erasures/{erasureId}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm a dry run: the same request erases the person, with the names you tick (needs api:write, and a key created by an owner)
         * @description Only a request whose status is "previewed", within 24 hours. "names" are looked for too, as whole words in every text, and a speaker, sender or who said a signal equal to one is the person; each must be one the preview offered and not shared. The request is queued again (dryRun false, counts from zero) and its identifiers are suppressed at once; whoever confirms is the requester in the audit.
         */
        post: operations["confirmErasure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Active suppressions (with include=lifted, lifted ones too): people whose records are refused */
        get: operations["listSuppressions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/suppressions/{suppressionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Lift a suppression: records naming the person are accepted again (needs api:write, and a key created by an owner) */
        delete: operations["liftSuppression"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/companies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's companies, newest first (needs api:read or api:write) */
        get: operations["listCompanies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/companies:batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upsert 1 to 1,000 companies by external_id, each validated and stored alone (needs api:write)
         * @description A JSON array of companies, `{"companies": [...]}`, or NDJSON (one per line), up to 5 MB. Each item is the whole company: it is created, or replaces the one of the same external_id (a field left out is cleared). Items are stored in order, so a later item sees the earlier ones. The answer counts what was created, updated and refused, and lists the first 20 refusals with their index; a body with no valid item answers 200 too, with its errors. The workspace's evidence is then resolved to its companies again, in the background.
         */
        post: operations["importCompanies"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/companies/{external_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One company (needs api:read or api:write) */
        get: operations["getCompany"];
        /**
         * Create or replace one company by its external_id (needs api:write)
         * @description The body is the whole company: a field left out is cleared. 201 when it was created, 200 when it replaced one. The workspace's evidence is then resolved to its companies again, in the background.
         */
        put: operations["upsertCompany"];
        post?: never;
        /**
         * Delete one company (needs api:write)
         * @description Its domains are freed; its people and the signals that resolved to it stay, unlinked, and the workspace's evidence is resolved again in the background. Deleting again answers 404.
         */
        delete: operations["deleteCompany"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/people": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's people, newest first (needs api:read or api:write) */
        get: operations["listPeople"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/people:batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upsert 1 to 1,000 people by external_id, each validated and stored alone (needs api:write)
         * @description A JSON array of people, `{"people": [...]}`, or NDJSON (one per line), up to 5 MB. Each item is the whole person: it is created, or replaces the one of the same external_id (a field left out is cleared). Items are stored in order, so a later item sees the earlier ones. The answer counts what was created, updated and refused, and lists the first 20 refusals with their index; a body with no valid item answers 200 too, with its errors. The workspace's evidence is then resolved to its companies again, in the background.
         */
        post: operations["importPeople"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/people/{external_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One person (needs api:read or api:write) */
        get: operations["getPerson"];
        /**
         * Create or replace one person by its external_id (needs api:write)
         * @description The body is the whole person: a field left out is cleared. 201 when it was created, 200 when it replaced one. The workspace's evidence is then resolved to its companies again, in the background.
         */
        put: operations["upsertPerson"];
        post?: never;
        /**
         * Delete one person (needs api:write)
         * @description Their company stays. The workspace's evidence is resolved again in the background. Deleting again answers 404.
         */
        delete: operations["deletePerson"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's connections, newest first (needs api:read or api:write) */
        get: operations["listConnections"];
        put?: never;
        /**
         * Connect a vendor (needs api:write)
         * @description Stores the connection with its credentials encrypted (they are never returned), and queues its first sync: a backfill from `settings.start_date`, then every `sync_interval_minutes` (15 by default) from where it stopped. Its records go through the same validation as POST /api/v1/ingest, into the product and project given.
         */
        post: operations["createConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/connections/{connectionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One connection: status, last sync, records brought in, last error (needs api:read or api:write) */
        get: operations["getConnection"];
        put?: never;
        post?: never;
        /**
         * Delete a connection, and with `with_data=true` the records it brought (needs api:write)
         * @description The connection and its credentials go at once. With `with_data=true` its records, with their sources, signals and files, are deleted in the background through the same deletion as DELETE /api/v1/records; without, they stay.
         */
        delete: operations["deleteConnection"];
        options?: never;
        head?: never;
        /**
         * Change settings, credentials, base_url or interval (needs api:write)
         * @description What is given replaces what was. New credentials are checked against the connection's kind; a failing connection becomes active and syncs at once.
         */
        patch: operations["updateConnection"];
        trace?: never;
    };
    "/api/v1/connections/{connectionId}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause a connection: no sync until resumed (needs api:write)
         * @description An active or failing connection becomes paused; its cursor is kept.
         */
        post: operations["pauseConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/connections/{connectionId}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused connection; it syncs at once (needs api:write)
         * @description A paused connection becomes active and a sync is queued; a failing one stays failing until its credentials change.
         */
        post: operations["resumeConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/connections/{connectionId}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sync now (needs api:write)
         * @description Queues a sync from the stored cursor. One waits at most; a sync already running is not doubled.
         */
        post: operations["syncConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/email-forwarding": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Each project's forwarding address (needs api:write)
         * @description A mail forwarded to a project's address becomes an `email` or `email_thread` record of that project (its senders as participants, its files stored), if its sender's domain is one of `sender_domains`; any other sender is refused with a 550 that says why. Reading makes the addresses of projects that have none yet. It needs `api:write`: an address lets records in. The console's Email forwarding page shows the same, and replaces an address or sets the sender domains.
         */
        get: operations["getEmailForwarding"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Record: {
            /**
             * @description What the record is; decides which keys of `data` are read. Every record of one request has the same `_type`.
             * @enum {string}
             */
            _type: "email_thread" | "email" | "meeting_notes" | "call" | "call_transcription" | "conversation" | "message" | "document" | "spreadsheet";
            /**
             * @description The version of this record format.
             * @constant
             */
            _schema_version: "1.0.0";
            /** @description When it happened, in UTC: YYYY-MM-DDThh:mm:ss, optionally .s to .sss, then Z. Kept to the second. */
            _event_at: string;
            /** @description Origin identifiers; at least one entry. */
            _vendor_ids: {
                [key: string]: string;
            };
            /** @description A product of the key's workspace (prod_…). Every record of one request has the same product. */
            _product_id: string;
            /** @description Projects of that product (proj_…) the record belongs to, 1 to 100. */
            _project_ids: string[];
            /**
             * @description evidence: what customers said or did; guidance: how your team works (policies, playbooks); context: background.
             * @enum {string}
             */
            _nature: "evidence" | "guidance" | "context";
            /** @description The content, stored exactly as sent. The keys read for each `_type` (title, transcript, messages…) are in the ingestion guide. */
            data: {
                [key: string]: unknown;
            };
            /** @description Groups the records of one thread or conversation. */
            _thread_id?: string;
            /** @description Who took part, up to 5,000. Names speakers and lets a person be found for erasure. */
            _participants?: components["schemas"]["Participant"][];
            /** @description Files of the record, up to 10; those with a vendor_url are downloaded. */
            _attachments?: components["schemas"]["Attachment"][];
            /** @description Your labels, up to 200 of at most 64 characters. */
            _tags?: string[];
            /** @description What your system knows of the personal data in the record. */
            _pii?: components["schemas"]["Pii"];
        };
        Participant: {
            /** @description The participant in the system the record came from: an email address, a user id or a phone number. Matched by erasure requests. */
            id: string;
            /**
             * @description internal: your team; external: a customer or prospect; unknown: not said.
             * @enum {string}
             */
            role: "internal" | "external" | "unknown";
            /** @description Display name; a speaker in `data` with this name is this participant. */
            name?: string;
            /**
             * Format: email
             * @description Email address; its domain counts as the participant's company.
             */
            email?: string;
            /**
             * @description What kind of participant the source system says it is.
             * @enum {string}
             */
            type?: "user" | "contact" | "workspace_member" | "bot" | "system" | "unknown";
        };
        Attachment: {
            /**
             * @description What the file holds.
             * @enum {string}
             */
            type: "audio" | "video" | "file" | "image" | "text" | "unknown";
            /** @description The file's name, kept for display and download. */
            filename?: string;
            /** @description Size in bytes; a download larger than this fails. At most 2 GB is downloaded. */
            size?: number;
            /** @description Media type, e.g. audio/mpeg. */
            mime_type?: string;
            /** @description Hex SHA-1 of the file; a download that does not match fails. */
            sha1?: string;
            /** @description Hex MD5 of the file; a download that does not match fails. */
            md5?: string;
            /**
             * Format: uri
             * @description An https URL the worker downloads the file from (public addresses only); progress shows on the batch.
             */
            vendor_url?: string;
            /** @description The id of a file uploaded by other means; recorded, not downloaded. */
            upload_intent_id?: string;
        };
        Pii: {
            /** @description The content holds email addresses. */
            contains_email?: boolean;
            /** @description The content holds phone numbers. */
            contains_phone?: boolean;
            /** @description How sensitive the content is, 0 to 1, as your system judged it. */
            sensitive_score?: number;
            /** @description Personal data found in the content, up to 1,000. */
            detected_entities?: components["schemas"]["PiiEntity"][];
            /**
             * @description Whether personal data was removed or encrypted before sending.
             * @enum {string}
             */
            redaction_status?: "unredacted" | "redacted" | "encrypted";
        };
        PiiEntity: {
            /** @description Kind of personal data, e.g. email, phone, name. */
            type: string;
            /** @description The value found. */
            value?: string;
            /** @description How sure the detector was, 0 to 1. */
            confidence?: number;
        };
        RecordError: {
            /** @description Position of the record in the request, from 0. */
            index: number;
            /** @description Stable error code, e.g. VALIDATION_ERROR, DUPLICATE_IN_REQUEST, PERSON_SUPPRESSED. */
            code: string;
            /** @description What was wrong and where, e.g. "_event_at: is not a real date and time". */
            message: string;
        };
        SubmissionResponse: {
            /** @description The batch the accepted records landed in; follow it at GET /api/v1/ingest/batches/{batchId}. */
            batchId: string;
            /** @description Records that passed validation and are stored, duplicates included. */
            acceptedCount: number;
            /** @description Records refused; nothing of them was stored. */
            rejectedCount: number;
            /** @description Errors found in all; `errors` lists the first 20. */
            totalErrorCount: number;
            /** @description Accepted records already sent before (same `_type`, `_vendor_ids` and `_event_at`); stored once, charged once. */
            duplicateCount?: number;
            /** @description The first 20 errors, each with the record's index. */
            errors?: components["schemas"]["RecordError"][];
        };
        Batch: {
            /** @description The batch's id. */
            batchId: string;
            /**
             * @description LANDED: stored, waiting for the worker; PROCESSING; COMPLETE or FAILED: final.
             * @enum {string}
             */
            status: "LANDING" | "LANDED" | "PROCESSING" | "COMPLETE" | "FAILED";
            /** @description When the batch was received, in milliseconds since 1970-01-01 UTC. */
            createdAt: number;
            /** @description Records accepted, duplicates included. */
            acceptedCount: number;
            /** @description Records refused when the batch was sent. */
            rejectedCount: number;
            /** @description Accepted records that had been sent before. */
            duplicateCount: number;
            /** @description Errors of the request and of processing, in all. */
            totalErrorCount: number;
            /** @description The first 20 errors, with the record's index. */
            errors: components["schemas"]["RecordError"][];
            /** @description Where the batch came from: api, or the kind of the connection that brought it (zendesk). */
            source: string;
            /** @description The `_type` of its records. */
            type: string;
            /**
             * @description The format given with the request, if any.
             * @enum {string}
             */
            format?: "text" | "audio" | "video" | "file";
            /** @description Attachments to download (those with a vendor_url); absent when none. */
            attachmentDownloadTotal?: number;
            /** @description Attachments downloaded and checked. */
            attachmentDownloadComplete?: number;
            /** @description Attachments that could not be downloaded. */
            attachmentDownloadFailed?: number;
            /**
             * @description PENDING, IN_PROGRESS, then COMPLETE, PARTIAL_FAILURE or FAILED once every attachment is done.
             * @enum {string}
             */
            attachmentDownloadStatus?: "PENDING" | "IN_PROGRESS" | "COMPLETE" | "PARTIAL_FAILURE" | "FAILED";
            /** @description Records of the batch deleted since (by DELETE or retention); present once one is. */
            deletedCount?: number;
            /** @description What processing the batch cost. */
            billing: {
                /** @description Credits charged: one per processed record that was not a duplicate. */
                totalCreditsCharged: number;
            };
        };
        BatchList: {
            /** @description Batches, newest first. */
            batches: components["schemas"]["Batch"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        ErrorResponse: {
            /** @description Stable error code, e.g. VALIDATION_ERROR, UNAUTHORIZED, RATE_LIMITED. */
            error: string;
            /** @description What was wrong and where, in plain words. */
            message: string;
            /** @description Seconds to wait before retrying (429 and 503), as in the Retry-After header. */
            retryAfter?: number;
            /** @description Facts about the error, e.g. the roles an endpoint needs. */
            details?: {
                [key: string]: unknown;
            };
            /** @description The first 20 refused records of a request, each with its index. */
            errors?: components["schemas"]["RecordError"][];
        };
        IpRateLimited: {
            /** @description What happened and when to retry, in plain words. */
            msg: string;
            /** @description Seconds to wait before retrying, as in the Retry-After header. */
            retryAfterSeconds: number;
            /** @description Requests allowed from one IP address per window. */
            limit: number;
            /** @description The window's length in seconds. */
            windowSeconds: number;
            /**
             * @description Always rate_limit_exceeded (the OAuth error code, for OAuth clients).
             * @constant
             */
            error: "rate_limit_exceeded";
            /** @description The same, for OAuth clients. */
            error_description: string;
            /** @description The same as retryAfterSeconds, for OAuth clients. */
            retry_after: number;
        };
        DeletedSource: {
            /** @description The deleted source's id. */
            id: string;
            /**
             * @description What was deleted.
             * @constant
             */
            object: "source";
            /**
             * @description Always true.
             * @constant
             */
            deleted: true;
            /** @description The record the source was built from, deleted with it (null: the source was written over MCP) */
            recordId: string | null;
        };
        DeletedRecord: {
            /** @description The deleted record's id. */
            id: string;
            /**
             * @description What was deleted.
             * @constant
             */
            object: "record";
            /**
             * @description Always true.
             * @constant
             */
            deleted: true;
            /** @description The source built from the record, deleted with it (null: the record had not become a source) */
            sourceId: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request's id: the X-Request-Id sent (1 to 128 of letters, digits, _ . : -) or a new UUID. Quote it when reporting an error. */
        "X-Request-Id": string;
        /** @description Requests allowed per second for this API key. */
        "X-RateLimit-Limit": number;
        /** @description Requests left for this API key in the current second. */
        "X-RateLimit-Remaining": number;
        /** @description Seconds to wait before retrying. */
        "Retry-After": number;
        /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key and body. */
        "Idempotent-Replayed": "true";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    submitRecords: {
        parameters: {
            query?: {
                format?: "text" | "audio" | "video" | "file";
            };
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "_type": "call_transcription",
                 *         "_schema_version": "1.0.0",
                 *         "_event_at": "2026-03-04T05:06:07Z",
                 *         "_vendor_ids": {
                 *           "gong": "call-8812"
                 *         },
                 *         "_product_id": "prod_01h…",
                 *         "_project_ids": [
                 *           "proj_01h…"
                 *         ],
                 *         "_nature": "evidence",
                 *         "_participants": [
                 *           {
                 *             "id": "ana@globex.test",
                 *             "role": "external",
                 *             "name": "Ana"
                 *           }
                 *         ],
                 *         "data": {
                 *           "title": "Call with Globex",
                 *           "transcript": [
                 *             {
                 *               "speaker": "Ana",
                 *               "text": "Exporting to Excel takes forever."
                 *             }
                 *           ]
                 *         }
                 *       }
                 *     ]
                 */
                "application/json": components["schemas"]["Record"][] | {
                    /** @description The records, 1 to 1,000. */
                    records: components["schemas"]["Record"][];
                };
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description Records received; accepted ones are stored and will be processed */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionResponse"];
                };
            };
            /** @description No record was accepted, or the request breaks a request rule; `errors` lists the records concerned */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Body larger than 5 MB */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Content-Type is neither application/json nor application/x-ndjson */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description This Idempotency-Key was used with a different body */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listBatches: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "batches": [
                     *         {
                     *           "batchId": "bat_01m82…",
                     *           "status": "COMPLETE",
                     *           "createdAt": 1772600767000,
                     *           "acceptedCount": 2,
                     *           "rejectedCount": 1,
                     *           "duplicateCount": 0,
                     *           "totalErrorCount": 1,
                     *           "errors": [
                     *             {
                     *               "index": 1,
                     *               "code": "VALIDATION_ERROR",
                     *               "message": "_event_at: is not a real date and time"
                     *             }
                     *           ],
                     *           "source": "api",
                     *           "type": "call_transcription",
                     *           "billing": {
                     *             "totalCreditsCharged": 2
                     *           }
                     *         }
                     *       ],
                     *       "nextCursor": "MTc3MjYwMDc2NzAwMC5iYXRf…"
                     *     }
                     */
                    "application/json": components["schemas"]["BatchList"];
                };
            };
            /** @description Bad limit or cursor */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getBatch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                batchId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The batch */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "batchId": "bat_01m82…",
                     *       "status": "COMPLETE",
                     *       "createdAt": 1772600767000,
                     *       "acceptedCount": 2,
                     *       "rejectedCount": 1,
                     *       "duplicateCount": 0,
                     *       "totalErrorCount": 1,
                     *       "errors": [
                     *         {
                     *           "index": 1,
                     *           "code": "VALIDATION_ERROR",
                     *           "message": "_event_at: is not a real date and time"
                     *         }
                     *       ],
                     *       "source": "api",
                     *       "type": "call_transcription",
                     *       "billing": {
                     *         "totalCreditsCharged": 2
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Batch"];
                };
            };
            /** @description batchId longer than 128 characters */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such batch in this workspace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    exportWorkspace: {
        parameters: {
            query?: {
                /** @description The cursor of the last line received, to resume */
                after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export, streamed */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {"kind":"source","cursor":"WzAsInNyY18xIl0","source":{"id":"src_1","title":"Call with Globex","segments":[…]}}
                     *     {"kind":"end","complete":true,"resumed":false,"counts":{"source":1,"signal":0,"opportunity":0,"shaping_note":0,"company":0,"person":0}}
                     */
                    "application/x-ndjson": string;
                };
            };
            /** @description A cursor that is not one */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteSource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "src_01m84…",
                     *       "object": "source",
                     *       "deleted": true,
                     *       "recordId": "rec_01m83…"
                     *     }
                     */
                    "application/json": components["schemas"]["DeletedSource"];
                };
            };
            /** @description sourceId longer than 128 characters */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks api:write, or the person who created it is not one of the workspace's owners and admins now (a key acts as its creator; checked on every request) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such source in this workspace (never there, another workspace's, or already deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteRecord: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                recordId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "rec_01m83…",
                     *       "object": "record",
                     *       "deleted": true,
                     *       "sourceId": "src_01m84…"
                     *     }
                     */
                    "application/json": components["schemas"]["DeletedRecord"];
                };
            };
            /** @description recordId longer than 128 characters */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks api:write, or the person who created it is not one of the workspace's owners and admins now (a key acts as its creator; checked on every request) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such record in this workspace (never there, another workspace's, or already deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    downloadAttachment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                recordId: string;
                /** @description The attachment's index in the record's `_attachments`, from 0 */
                position: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description recordId longer than 128 characters, or a position that is not a whole number from 0 to 10,000 */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such record or position in this workspace, or no file for it (yet) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listErasures: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Up to 100 requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "erasures": [
                     *         {
                     *           "id": "era_01m8a…",
                     *           "status": "running",
                     *           "phase": "sources",
                     *           "subjectKind": "email",
                     *           "dryRun": false,
                     *           "counts": {
                     *             "records": 12,
                     *             "attachments": 2,
                     *             "sources": 3
                     *           },
                     *           "requestedBy": "API key key_01m7…",
                     *           "createdAt": 1772600767000,
                     *           "updatedAt": 1772600768000
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description The workspace's erasure requests, newest first. */
                        erasures: {
                            /** @description The erasure request's id. */
                            id: string;
                            /**
                             * @description queued → running → complete; a dry run queued → running → previewed, then confirmed (queued again) or expired; failed: out of retries, it carries on when the person is asked to be erased again.
                             * @enum {string}
                             */
                            status: "queued" | "running" | "previewed" | "complete" | "expired" | "failed";
                            /** @description Where the worker is: discover_records … other, then done. */
                            phase: string;
                            /**
                             * @description Whether the person was named by an email or a participant id (the value itself is never shown).
                             * @enum {string}
                             */
                            subjectKind: "email" | "participant_id";
                            /** @description A dry run (a preview) until confirmed: it changes nothing and suppresses no one. */
                            dryRun: boolean;
                            /** @description What was redacted or deleted so far (of a dry run: what would be). */
                            counts: {
                                /** @description Records redacted. */
                                records?: number;
                                /** @description Attachments deleted with their files. */
                                attachments?: number;
                                /** @description Sources redacted. */
                                sources?: number;
                                /** @description Segments (turns, messages, paragraphs) redacted. */
                                segments?: number;
                                /** @description Signals the person said, deleted. */
                                signalsDeleted?: number;
                                /** @description Signals that mention the person, redacted. */
                                signalsRedacted?: number;
                                /** @description Entries of signals' history redacted. */
                                signalChanges?: number;
                                /** @description Opportunities whose name or words named the person, renamed. */
                                opportunities?: number;
                                /** @description Shaping notes (and their versions) redacted. */
                                shapingNotes?: number;
                                /** @description Entries of the workspace's people with the person's email, or their participant id as external_id, deleted (their company stays). */
                                people?: number;
                                /** @description Other copies redacted: errors kept with batches, replayed answers, skills, job payloads. */
                                other?: number;
                            };
                            /** @description Who asked: the API key, or the person on the privacy page. */
                            requestedBy: string;
                            /** @description When it was asked, in milliseconds since 1970-01-01 UTC. */
                            createdAt: number;
                            /** @description When it last moved on, in milliseconds since 1970-01-01 UTC. */
                            updatedAt: number;
                            /** @description When it ended (complete, previewed, failed), in milliseconds since 1970-01-01 UTC. */
                            completedAt?: number;
                            /** @description Why it failed, when it did. */
                            error?: string;
                            /** @description Of a dry run once previewed (GET /api/v1/erasures/{erasureId} only). */
                            preview?: {
                                /** @description What the erasure would redact or delete, by the addresses and ids alone. */
                                counts: {
                                    /** @description Records redacted. */
                                    records?: number;
                                    /** @description Attachments deleted with their files. */
                                    attachments?: number;
                                    /** @description Sources redacted. */
                                    sources?: number;
                                    /** @description Segments (turns, messages, paragraphs) redacted. */
                                    segments?: number;
                                    /** @description Signals the person said, deleted. */
                                    signalsDeleted?: number;
                                    /** @description Signals that mention the person, redacted. */
                                    signalsRedacted?: number;
                                    /** @description Entries of signals' history redacted. */
                                    signalChanges?: number;
                                    /** @description Opportunities whose name or words named the person, renamed. */
                                    opportunities?: number;
                                    /** @description Shaping notes (and their versions) redacted. */
                                    shapingNotes?: number;
                                    /** @description Entries of the workspace's people with the person's email, or their participant id as external_id, deleted (their company stays). */
                                    people?: number;
                                    /** @description Other copies redacted: errors kept with batches, replayed answers, skills, job payloads. */
                                    other?: number;
                                };
                                /** @description Up to 3 rows of each kind, cut around their first change. */
                                samples: {
                                    /**
                                     * @description What the row is.
                                     * @enum {string}
                                     */
                                    kind: "record" | "source" | "signal" | "signal_change" | "opportunity" | "shaping_note" | "other";
                                    /** @description The row's id. */
                                    id: string;
                                    /** @description Where in the row it first changes (a JSON path, or empty). */
                                    field: string;
                                    /** @description The text around the change, as it is now. */
                                    before: string;
                                    /** @description null: deleted (a signal the person said). */
                                    after: string | null;
                                }[];
                                /** @description Addresses and participant ids found in the participant entries carrying the given ones: erased and suppressed too, unless shared. */
                                identifiers: {
                                    /**
                                     * @description An email address or a participant id.
                                     * @enum {string}
                                     */
                                    kind: "email" | "participant_id";
                                    /** @description The address or id found. */
                                    value: string;
                                    /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                    shared: boolean;
                                    /** @description How many other participants carry it (counted up to 10). */
                                    sharedWith: number;
                                }[];
                                /** @description Names found beside the addresses and ids: looked for only when confirmed (POST …/confirm), a shared one never. */
                                names: {
                                    /** @description A name found beside the person's addresses and ids. */
                                    name: string;
                                    /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                    shared: boolean;
                                    /** @description How many other participants carry it (counted up to 10). */
                                    sharedWith: number;
                                    /** @description How many more rows confirming this name would change (null when shared). */
                                    mentions: number | null;
                                }[];
                                /** @description Until when it can be confirmed (24 hours); then what it found of the person is dropped (status expired). */
                                expiresAt: number;
                            };
                        }[];
                    };
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    requestErasure: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The person's email address, compared case-insensitively. */
                    email?: string;
                    /** @description At least 3 characters: a shorter id is refused (give the email instead). */
                    participant_id?: string;
                    /** @description true: change nothing; find what would be erased and the names to confirm (status previewed), then POST …/confirm. */
                    dry_run?: boolean;
                };
            };
        };
        responses: {
            /** @description Accepted: the request, queued (a dry run: dryRun true) */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "era_01m8a…",
                     *       "status": "queued",
                     *       "phase": "discover_records",
                     *       "subjectKind": "email",
                     *       "dryRun": false,
                     *       "counts": {},
                     *       "requestedBy": "API key key_01m7…",
                     *       "createdAt": 1772600767000,
                     *       "updatedAt": 1772600768000
                     *     }
                     */
                    "application/json": {
                        /** @description The erasure request's id. */
                        id: string;
                        /**
                         * @description queued → running → complete; a dry run queued → running → previewed, then confirmed (queued again) or expired; failed: out of retries, it carries on when the person is asked to be erased again.
                         * @enum {string}
                         */
                        status: "queued" | "running" | "previewed" | "complete" | "expired" | "failed";
                        /** @description Where the worker is: discover_records … other, then done. */
                        phase: string;
                        /**
                         * @description Whether the person was named by an email or a participant id (the value itself is never shown).
                         * @enum {string}
                         */
                        subjectKind: "email" | "participant_id";
                        /** @description A dry run (a preview) until confirmed: it changes nothing and suppresses no one. */
                        dryRun: boolean;
                        /** @description What was redacted or deleted so far (of a dry run: what would be). */
                        counts: {
                            /** @description Records redacted. */
                            records?: number;
                            /** @description Attachments deleted with their files. */
                            attachments?: number;
                            /** @description Sources redacted. */
                            sources?: number;
                            /** @description Segments (turns, messages, paragraphs) redacted. */
                            segments?: number;
                            /** @description Signals the person said, deleted. */
                            signalsDeleted?: number;
                            /** @description Signals that mention the person, redacted. */
                            signalsRedacted?: number;
                            /** @description Entries of signals' history redacted. */
                            signalChanges?: number;
                            /** @description Opportunities whose name or words named the person, renamed. */
                            opportunities?: number;
                            /** @description Shaping notes (and their versions) redacted. */
                            shapingNotes?: number;
                            /** @description Entries of the workspace's people with the person's email, or their participant id as external_id, deleted (their company stays). */
                            people?: number;
                            /** @description Other copies redacted: errors kept with batches, replayed answers, skills, job payloads. */
                            other?: number;
                        };
                        /** @description Who asked: the API key, or the person on the privacy page. */
                        requestedBy: string;
                        /** @description When it was asked, in milliseconds since 1970-01-01 UTC. */
                        createdAt: number;
                        /** @description When it last moved on, in milliseconds since 1970-01-01 UTC. */
                        updatedAt: number;
                        /** @description When it ended (complete, previewed, failed), in milliseconds since 1970-01-01 UTC. */
                        completedAt?: number;
                        /** @description Why it failed, when it did. */
                        error?: string;
                        /** @description Of a dry run once previewed (GET /api/v1/erasures/{erasureId} only). */
                        preview?: {
                            /** @description What the erasure would redact or delete, by the addresses and ids alone. */
                            counts: {
                                /** @description Records redacted. */
                                records?: number;
                                /** @description Attachments deleted with their files. */
                                attachments?: number;
                                /** @description Sources redacted. */
                                sources?: number;
                                /** @description Segments (turns, messages, paragraphs) redacted. */
                                segments?: number;
                                /** @description Signals the person said, deleted. */
                                signalsDeleted?: number;
                                /** @description Signals that mention the person, redacted. */
                                signalsRedacted?: number;
                                /** @description Entries of signals' history redacted. */
                                signalChanges?: number;
                                /** @description Opportunities whose name or words named the person, renamed. */
                                opportunities?: number;
                                /** @description Shaping notes (and their versions) redacted. */
                                shapingNotes?: number;
                                /** @description Entries of the workspace's people with the person's email, or their participant id as external_id, deleted (their company stays). */
                                people?: number;
                                /** @description Other copies redacted: errors kept with batches, replayed answers, skills, job payloads. */
                                other?: number;
                            };
                            /** @description Up to 3 rows of each kind, cut around their first change. */
                            samples: {
                                /**
                                 * @description What the row is.
                                 * @enum {string}
                                 */
                                kind: "record" | "source" | "signal" | "signal_change" | "opportunity" | "shaping_note" | "other";
                                /** @description The row's id. */
                                id: string;
                                /** @description Where in the row it first changes (a JSON path, or empty). */
                                field: string;
                                /** @description The text around the change, as it is now. */
                                before: string;
                                /** @description null: deleted (a signal the person said). */
                                after: string | null;
                            }[];
                            /** @description Addresses and participant ids found in the participant entries carrying the given ones: erased and suppressed too, unless shared. */
                            identifiers: {
                                /**
                                 * @description An email address or a participant id.
                                 * @enum {string}
                                 */
                                kind: "email" | "participant_id";
                                /** @description The address or id found. */
                                value: string;
                                /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                shared: boolean;
                                /** @description How many other participants carry it (counted up to 10). */
                                sharedWith: number;
                            }[];
                            /** @description Names found beside the addresses and ids: looked for only when confirmed (POST …/confirm), a shared one never. */
                            names: {
                                /** @description A name found beside the person's addresses and ids. */
                                name: string;
                                /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                shared: boolean;
                                /** @description How many other participants carry it (counted up to 10). */
                                sharedWith: number;
                                /** @description How many more rows confirming this name would change (null when shared). */
                                mentions: number | null;
                            }[];
                            /** @description Until when it can be confirmed (24 hours); then what it found of the person is dropped (status expired). */
                            expiresAt: number;
                        };
                    };
                };
            };
            /** @description Neither email nor participant_id, an invalid email, a participant id shorter than 3 characters, dry_run not a boolean, or an unknown field */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks api:write, or the person who created it is not one of the workspace's owners now (a key acts as its creator; checked on every request) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Body over 4096 bytes */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not JSON */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getErasure: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                erasureId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The erasure request's id. */
                        id: string;
                        /**
                         * @description queued → running → complete; a dry run queued → running → previewed, then confirmed (queued again) or expired; failed: out of retries, it carries on when the person is asked to be erased again.
                         * @enum {string}
                         */
                        status: "queued" | "running" | "previewed" | "complete" | "expired" | "failed";
                        /** @description Where the worker is: discover_records … other, then done. */
                        phase: string;
                        /**
                         * @description Whether the person was named by an email or a participant id (the value itself is never shown).
                         * @enum {string}
                         */
                        subjectKind: "email" | "participant_id";
                        /** @description A dry run (a preview) until confirmed: it changes nothing and suppresses no one. */
                        dryRun: boolean;
                        /** @description What was redacted or deleted so far (of a dry run: what would be). */
                        counts: {
                            /** @description Records redacted. */
                            records?: number;
                            /** @description Attachments deleted with their files. */
                            attachments?: number;
                            /** @description Sources redacted. */
                            sources?: number;
                            /** @description Segments (turns, messages, paragraphs) redacted. */
                            segments?: number;
                            /** @description Signals the person said, deleted. */
                            signalsDeleted?: number;
                            /** @description Signals that mention the person, redacted. */
                            signalsRedacted?: number;
                            /** @description Entries of signals' history redacted. */
                            signalChanges?: number;
                            /** @description Opportunities whose name or words named the person, renamed. */
                            opportunities?: number;
                            /** @description Shaping notes (and their versions) redacted. */
                            shapingNotes?: number;
                            /** @description Entries of the workspace's people with the person's email, or their participant id as external_id, deleted (their company stays). */
                            people?: number;
                            /** @description Other copies redacted: errors kept with batches, replayed answers, skills, job payloads. */
                            other?: number;
                        };
                        /** @description Who asked: the API key, or the person on the privacy page. */
                        requestedBy: string;
                        /** @description When it was asked, in milliseconds since 1970-01-01 UTC. */
                        createdAt: number;
                        /** @description When it last moved on, in milliseconds since 1970-01-01 UTC. */
                        updatedAt: number;
                        /** @description When it ended (complete, previewed, failed), in milliseconds since 1970-01-01 UTC. */
                        completedAt?: number;
                        /** @description Why it failed, when it did. */
                        error?: string;
                        /** @description Of a dry run once previewed (GET /api/v1/erasures/{erasureId} only). */
                        preview?: {
                            /** @description What the erasure would redact or delete, by the addresses and ids alone. */
                            counts: {
                                /** @description Records redacted. */
                                records?: number;
                                /** @description Attachments deleted with their files. */
                                attachments?: number;
                                /** @description Sources redacted. */
                                sources?: number;
                                /** @description Segments (turns, messages, paragraphs) redacted. */
                                segments?: number;
                                /** @description Signals the person said, deleted. */
                                signalsDeleted?: number;
                                /** @description Signals that mention the person, redacted. */
                                signalsRedacted?: number;
                                /** @description Entries of signals' history redacted. */
                                signalChanges?: number;
                                /** @description Opportunities whose name or words named the person, renamed. */
                                opportunities?: number;
                                /** @description Shaping notes (and their versions) redacted. */
                                shapingNotes?: number;
                                /** @description Entries of the workspace's people with the person's email, or their participant id as external_id, deleted (their company stays). */
                                people?: number;
                                /** @description Other copies redacted: errors kept with batches, replayed answers, skills, job payloads. */
                                other?: number;
                            };
                            /** @description Up to 3 rows of each kind, cut around their first change. */
                            samples: {
                                /**
                                 * @description What the row is.
                                 * @enum {string}
                                 */
                                kind: "record" | "source" | "signal" | "signal_change" | "opportunity" | "shaping_note" | "other";
                                /** @description The row's id. */
                                id: string;
                                /** @description Where in the row it first changes (a JSON path, or empty). */
                                field: string;
                                /** @description The text around the change, as it is now. */
                                before: string;
                                /** @description null: deleted (a signal the person said). */
                                after: string | null;
                            }[];
                            /** @description Addresses and participant ids found in the participant entries carrying the given ones: erased and suppressed too, unless shared. */
                            identifiers: {
                                /**
                                 * @description An email address or a participant id.
                                 * @enum {string}
                                 */
                                kind: "email" | "participant_id";
                                /** @description The address or id found. */
                                value: string;
                                /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                shared: boolean;
                                /** @description How many other participants carry it (counted up to 10). */
                                sharedWith: number;
                            }[];
                            /** @description Names found beside the addresses and ids: looked for only when confirmed (POST …/confirm), a shared one never. */
                            names: {
                                /** @description A name found beside the person's addresses and ids. */
                                name: string;
                                /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                shared: boolean;
                                /** @description How many other participants carry it (counted up to 10). */
                                sharedWith: number;
                                /** @description How many more rows confirming this name would change (null when shared). */
                                mentions: number | null;
                            }[];
                            /** @description Until when it can be confirmed (24 hours); then what it found of the person is dropped (status expired). */
                            expiresAt: number;
                        };
                    };
                };
            };
            /** @description erasureId longer than 128 characters */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such erasure in this workspace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    confirmErasure: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                erasureId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "names": [
                 *         "Ana Planted"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description Names the preview offered (not shared) to look for too, as whole words in every text. None: the addresses and ids only. */
                    names?: string[];
                };
            };
        };
        responses: {
            /** @description Accepted: the erasure, queued */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "era_01m8a…",
                     *       "status": "queued",
                     *       "phase": "discover_records",
                     *       "subjectKind": "participant_id",
                     *       "dryRun": false,
                     *       "counts": {},
                     *       "requestedBy": "API key key_01m7…",
                     *       "createdAt": 1772600767000,
                     *       "updatedAt": 1772600768000
                     *     }
                     */
                    "application/json": {
                        /** @description The erasure request's id. */
                        id: string;
                        /**
                         * @description queued → running → complete; a dry run queued → running → previewed, then confirmed (queued again) or expired; failed: out of retries, it carries on when the person is asked to be erased again.
                         * @enum {string}
                         */
                        status: "queued" | "running" | "previewed" | "complete" | "expired" | "failed";
                        /** @description Where the worker is: discover_records … other, then done. */
                        phase: string;
                        /**
                         * @description Whether the person was named by an email or a participant id (the value itself is never shown).
                         * @enum {string}
                         */
                        subjectKind: "email" | "participant_id";
                        /** @description A dry run (a preview) until confirmed: it changes nothing and suppresses no one. */
                        dryRun: boolean;
                        /** @description What was redacted or deleted so far (of a dry run: what would be). */
                        counts: {
                            /** @description Records redacted. */
                            records?: number;
                            /** @description Attachments deleted with their files. */
                            attachments?: number;
                            /** @description Sources redacted. */
                            sources?: number;
                            /** @description Segments (turns, messages, paragraphs) redacted. */
                            segments?: number;
                            /** @description Signals the person said, deleted. */
                            signalsDeleted?: number;
                            /** @description Signals that mention the person, redacted. */
                            signalsRedacted?: number;
                            /** @description Entries of signals' history redacted. */
                            signalChanges?: number;
                            /** @description Opportunities whose name or words named the person, renamed. */
                            opportunities?: number;
                            /** @description Shaping notes (and their versions) redacted. */
                            shapingNotes?: number;
                            /** @description Entries of the workspace's people with the person's email, or their participant id as external_id, deleted (their company stays). */
                            people?: number;
                            /** @description Other copies redacted: errors kept with batches, replayed answers, skills, job payloads. */
                            other?: number;
                        };
                        /** @description Who asked: the API key, or the person on the privacy page. */
                        requestedBy: string;
                        /** @description When it was asked, in milliseconds since 1970-01-01 UTC. */
                        createdAt: number;
                        /** @description When it last moved on, in milliseconds since 1970-01-01 UTC. */
                        updatedAt: number;
                        /** @description When it ended (complete, previewed, failed), in milliseconds since 1970-01-01 UTC. */
                        completedAt?: number;
                        /** @description Why it failed, when it did. */
                        error?: string;
                        /** @description Of a dry run once previewed (GET /api/v1/erasures/{erasureId} only). */
                        preview?: {
                            /** @description What the erasure would redact or delete, by the addresses and ids alone. */
                            counts: {
                                /** @description Records redacted. */
                                records?: number;
                                /** @description Attachments deleted with their files. */
                                attachments?: number;
                                /** @description Sources redacted. */
                                sources?: number;
                                /** @description Segments (turns, messages, paragraphs) redacted. */
                                segments?: number;
                                /** @description Signals the person said, deleted. */
                                signalsDeleted?: number;
                                /** @description Signals that mention the person, redacted. */
                                signalsRedacted?: number;
                                /** @description Entries of signals' history redacted. */
                                signalChanges?: number;
                                /** @description Opportunities whose name or words named the person, renamed. */
                                opportunities?: number;
                                /** @description Shaping notes (and their versions) redacted. */
                                shapingNotes?: number;
                                /** @description Entries of the workspace's people with the person's email, or their participant id as external_id, deleted (their company stays). */
                                people?: number;
                                /** @description Other copies redacted: errors kept with batches, replayed answers, skills, job payloads. */
                                other?: number;
                            };
                            /** @description Up to 3 rows of each kind, cut around their first change. */
                            samples: {
                                /**
                                 * @description What the row is.
                                 * @enum {string}
                                 */
                                kind: "record" | "source" | "signal" | "signal_change" | "opportunity" | "shaping_note" | "other";
                                /** @description The row's id. */
                                id: string;
                                /** @description Where in the row it first changes (a JSON path, or empty). */
                                field: string;
                                /** @description The text around the change, as it is now. */
                                before: string;
                                /** @description null: deleted (a signal the person said). */
                                after: string | null;
                            }[];
                            /** @description Addresses and participant ids found in the participant entries carrying the given ones: erased and suppressed too, unless shared. */
                            identifiers: {
                                /**
                                 * @description An email address or a participant id.
                                 * @enum {string}
                                 */
                                kind: "email" | "participant_id";
                                /** @description The address or id found. */
                                value: string;
                                /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                shared: boolean;
                                /** @description How many other participants carry it (counted up to 10). */
                                sharedWith: number;
                            }[];
                            /** @description Names found beside the addresses and ids: looked for only when confirmed (POST …/confirm), a shared one never. */
                            names: {
                                /** @description A name found beside the person's addresses and ids. */
                                name: string;
                                /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                shared: boolean;
                                /** @description How many other participants carry it (counted up to 10). */
                                sharedWith: number;
                                /** @description How many more rows confirming this name would change (null when shared). */
                                mentions: number | null;
                            }[];
                            /** @description Until when it can be confirmed (24 hours); then what it found of the person is dropped (status expired). */
                            expiresAt: number;
                        };
                    };
                };
            };
            /** @description A name the preview did not offer or offered as shared, names not a list of strings, an unknown field, or erasureId too long */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks api:write, or the person who created it is not one of the workspace's owners now (a key acts as its creator; checked on every request) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such erasure in this workspace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not a finished preview: still being prepared, confirmed already, not a dry run, or expired */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Body over 4096 bytes */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not JSON */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listSuppressions: {
        parameters: {
            query?: {
                include?: "lifted";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Newest first; a suppression names its person only by a salted hash, never shown */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "suppressions": [
                     *         {
                     *           "id": "sup_01m8a…",
                     *           "kind": "email",
                     *           "erasureId": "era_01m8a…",
                     *           "createdBy": "API key key_01m7…",
                     *           "createdAt": 1772600767000
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description The workspace's suppressions, newest first. */
                        suppressions: {
                            /** @description The suppression's id. */
                            id: string;
                            /**
                             * @description What is suppressed: an email address or a participant id (stored as a hash, never shown).
                             * @enum {string}
                             */
                            kind: "email" | "participant_id";
                            /** @description The erasure that made it. */
                            erasureId?: string;
                            /** @description Who asked for the erasure. */
                            createdBy: string;
                            /** @description Since when records naming the person are refused, in milliseconds since 1970-01-01 UTC. */
                            createdAt: number;
                            /** @description When it was lifted; records naming the person are accepted again. */
                            liftedAt?: number;
                            /** @description Who lifted it. */
                            liftedBy?: string;
                        }[];
                    };
                };
            };
            /** @description include other than lifted */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    liftSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                suppressionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Lifted (kept, with who lifted it) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "sup_01m8a…",
                     *       "kind": "email",
                     *       "erasureId": "era_01m8a…",
                     *       "createdBy": "API key key_01m7…",
                     *       "createdAt": 1772600767000,
                     *       "liftedAt": 1772600800000,
                     *       "liftedBy": "API key key_01m7…"
                     *     }
                     */
                    "application/json": {
                        /** @description The suppression's id. */
                        id: string;
                        /**
                         * @description What is suppressed: an email address or a participant id (stored as a hash, never shown).
                         * @enum {string}
                         */
                        kind: "email" | "participant_id";
                        /** @description The erasure that made it. */
                        erasureId?: string;
                        /** @description Who asked for the erasure. */
                        createdBy: string;
                        /** @description Since when records naming the person are refused, in milliseconds since 1970-01-01 UTC. */
                        createdAt: number;
                        /** @description When it was lifted; records naming the person are accepted again. */
                        liftedAt?: number;
                        /** @description Who lifted it. */
                        liftedBy?: string;
                    };
                };
            };
            /** @description suppressionId longer than 128 characters */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks api:write, or the person who created it is not one of the workspace's owners now (a key acts as its creator; checked on every request) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such active suppression in this workspace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listCompanies: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "companies": [
                     *         {
                     *           "external_id": "crm-0017",
                     *           "name": "Globex",
                     *           "domains": [
                     *             "globex.com",
                     *             "globex.co.uk"
                     *           ],
                     *           "arr": 120000,
                     *           "plan": "enterprise",
                     *           "segment": "mid-market",
                     *           "stage": "customer",
                     *           "renewal_date": "2027-03-31",
                     *           "attributes": {
                     *             "region": "EMEA",
                     *             "seats": 240,
                     *             "strategic": true
                     *           },
                     *           "created_at": "2026-11-27T10:00:00.000Z",
                     *           "updated_at": "2026-11-27T10:00:00.000Z"
                     *         }
                     *       ],
                     *       "nextCursor": "MTc3MjYwMDc2NzAwMC5jbXBf…"
                     *     }
                     */
                    "application/json": {
                        /** @description One page of companies, newest first. */
                        companies: {
                            /** @description The team's own id. */
                            external_id: string;
                            /** @description The company's name. */
                            name: string;
                            /** @description Email domains that identify it, lower case. */
                            domains: string[];
                            /** @description Annual recurring revenue, or null. */
                            arr: number | null;
                            /** @description Its plan, or null. */
                            plan: string | null;
                            /** @description Its segment, or null. */
                            segment: string | null;
                            /** @description Its stage, or null. */
                            stage: string | null;
                            /** @description Its next renewal (YYYY-MM-DD), or null. */
                            renewal_date: string | null;
                            /** @description Its free attributes. */
                            attributes: {
                                [key: string]: string | number | boolean;
                            };
                            /** @description When it was first stored, as an ISO 8601 UTC time. */
                            created_at: string;
                            /** @description When it was last changed, as an ISO 8601 UTC time. */
                            updated_at: string;
                        }[];
                        /** @description Pass as `cursor` for the next page; absent on the last. */
                        nextCursor?: string;
                    };
                };
            };
            /** @description Bad limit or cursor */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    importCompanies: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "external_id": "crm-0017",
                 *         "name": "Globex",
                 *         "domains": [
                 *           "globex.com",
                 *           "globex.co.uk"
                 *         ],
                 *         "arr": 120000,
                 *         "plan": "enterprise",
                 *         "segment": "mid-market",
                 *         "stage": "customer",
                 *         "renewal_date": "2027-03-31",
                 *         "attributes": {
                 *           "region": "EMEA",
                 *           "seats": 240,
                 *           "strategic": true
                 *         }
                 *       }
                 *     ]
                 */
                "application/json": {
                    /** @description The team's own id (e.g. the CRM's): the company is upserted by it. */
                    external_id: string;
                    /** @description The company's name. */
                    name: string;
                    /** @description Email domains that identify it (up to 50), stored lower case and once each. A domain names one company of a workspace; free-mail domains (gmail.com…) are refused. */
                    domains?: string[];
                    /** @description Annual recurring revenue from it, in the workspace's currency (≥ 0, kept to 2 decimals). */
                    arr?: number | null;
                    /** @description Its plan, as the team names it (e.g. "enterprise"). */
                    plan?: string | null;
                    /** @description Its segment (e.g. "mid-market"). */
                    segment?: string | null;
                    /** @description Its stage: trial, customer, churned… as the team names them. */
                    stage?: string | null;
                    /** @description Its next renewal, as YYYY-MM-DD. */
                    renewal_date?: string | null;
                    /** @description Free attributes: up to 100 names (1 to 128 characters) each with a string (up to 1000 characters), a number or a boolean. */
                    attributes?: {
                        [key: string]: string | number | boolean;
                    };
                }[] | {
                    /** @description The companies, 1 to 1,000. */
                    companies: {
                        /** @description The team's own id (e.g. the CRM's): the company is upserted by it. */
                        external_id: string;
                        /** @description The company's name. */
                        name: string;
                        /** @description Email domains that identify it (up to 50), stored lower case and once each. A domain names one company of a workspace; free-mail domains (gmail.com…) are refused. */
                        domains?: string[];
                        /** @description Annual recurring revenue from it, in the workspace's currency (≥ 0, kept to 2 decimals). */
                        arr?: number | null;
                        /** @description Its plan, as the team names it (e.g. "enterprise"). */
                        plan?: string | null;
                        /** @description Its segment (e.g. "mid-market"). */
                        segment?: string | null;
                        /** @description Its stage: trial, customer, churned… as the team names them. */
                        stage?: string | null;
                        /** @description Its next renewal, as YYYY-MM-DD. */
                        renewal_date?: string | null;
                        /** @description Free attributes: up to 100 names (1 to 128 characters) each with a string (up to 1000 characters), a number or a boolean. */
                        attributes?: {
                            [key: string]: string | number | boolean;
                        };
                    }[];
                };
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description What was stored and what was refused */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "createdCount": 2,
                     *       "updatedCount": 1,
                     *       "rejectedCount": 1,
                     *       "errors": [
                     *         {
                     *           "index": 3,
                     *           "code": "DOMAIN_TAKEN",
                     *           "message": "domains[0]: \"globex.com\" is already a domain of company \"crm-0017\"; a domain names one company: remove it there first"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description Items stored that were new. */
                        createdCount: number;
                        /** @description Items that replaced one of the same external_id. */
                        updatedCount: number;
                        /** @description Items refused; nothing of them was stored. */
                        rejectedCount: number;
                        /** @description The first 20 errors, each with the item's index. */
                        errors: {
                            /** @description Position of the item in the request, from 0. */
                            index: number;
                            /** @description Stable error code: VALIDATION_ERROR, DOMAIN_TAKEN, FREE_MAIL_DOMAIN, EMAIL_TAKEN, UNKNOWN_COMPANY, PERSON_SUPPRESSED, INVALID_JSON, TOO_MANY_ITEMS. */
                            code: string;
                            /** @description What was wrong and where, e.g. "domains[0]: \"acme.com\" is already a domain of company \"crm-17\"". */
                            message: string;
                        }[];
                    };
                };
            };
            /** @description The body is not one: not JSON, no items, more than 1,000 (`errors` lists those beyond), or not an array or a wrapper object */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Body larger than 5 MB */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Content-Type is neither application/json nor application/x-ndjson */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getCompany: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The company's external_id, URL-encoded. */
                external_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The company */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "external_id": "crm-0017",
                     *       "name": "Globex",
                     *       "domains": [
                     *         "globex.com",
                     *         "globex.co.uk"
                     *       ],
                     *       "arr": 120000,
                     *       "plan": "enterprise",
                     *       "segment": "mid-market",
                     *       "stage": "customer",
                     *       "renewal_date": "2027-03-31",
                     *       "attributes": {
                     *         "region": "EMEA",
                     *         "seats": 240,
                     *         "strategic": true
                     *       },
                     *       "created_at": "2026-11-27T10:00:00.000Z",
                     *       "updated_at": "2026-11-27T10:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The team's own id. */
                        external_id: string;
                        /** @description The company's name. */
                        name: string;
                        /** @description Email domains that identify it, lower case. */
                        domains: string[];
                        /** @description Annual recurring revenue, or null. */
                        arr: number | null;
                        /** @description Its plan, or null. */
                        plan: string | null;
                        /** @description Its segment, or null. */
                        segment: string | null;
                        /** @description Its stage, or null. */
                        stage: string | null;
                        /** @description Its next renewal (YYYY-MM-DD), or null. */
                        renewal_date: string | null;
                        /** @description Its free attributes. */
                        attributes: {
                            [key: string]: string | number | boolean;
                        };
                        /** @description When it was first stored, as an ISO 8601 UTC time. */
                        created_at: string;
                        /** @description When it was last changed, as an ISO 8601 UTC time. */
                        updated_at: string;
                    };
                };
            };
            /** @description external_id longer than 256 characters or holding control characters */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such company in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    upsertCompany: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The company's external_id, URL-encoded. */
                external_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Globex",
                 *       "domains": [
                 *         "globex.com",
                 *         "globex.co.uk"
                 *       ],
                 *       "arr": 120000,
                 *       "plan": "enterprise",
                 *       "segment": "mid-market",
                 *       "stage": "customer",
                 *       "renewal_date": "2027-03-31",
                 *       "attributes": {
                 *         "region": "EMEA",
                 *         "seats": 240,
                 *         "strategic": true
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description The team's own id (e.g. the CRM's); in a PUT it may be left out, and must equal the path's when given. */
                    external_id?: string;
                    /** @description The company's name. */
                    name: string;
                    /** @description Email domains that identify it (up to 50), stored lower case and once each. A domain names one company of a workspace; free-mail domains (gmail.com…) are refused. */
                    domains?: string[];
                    /** @description Annual recurring revenue from it, in the workspace's currency (≥ 0, kept to 2 decimals). */
                    arr?: number | null;
                    /** @description Its plan, as the team names it (e.g. "enterprise"). */
                    plan?: string | null;
                    /** @description Its segment (e.g. "mid-market"). */
                    segment?: string | null;
                    /** @description Its stage: trial, customer, churned… as the team names them. */
                    stage?: string | null;
                    /** @description Its next renewal, as YYYY-MM-DD. */
                    renewal_date?: string | null;
                    /** @description Free attributes: up to 100 names (1 to 128 characters) each with a string (up to 1000 characters), a number or a boolean. */
                    attributes?: {
                        [key: string]: string | number | boolean;
                    };
                };
            };
        };
        responses: {
            /** @description Replaced: the stored object */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "external_id": "crm-0017",
                     *       "name": "Globex",
                     *       "domains": [
                     *         "globex.com",
                     *         "globex.co.uk"
                     *       ],
                     *       "arr": 120000,
                     *       "plan": "enterprise",
                     *       "segment": "mid-market",
                     *       "stage": "customer",
                     *       "renewal_date": "2027-03-31",
                     *       "attributes": {
                     *         "region": "EMEA",
                     *         "seats": 240,
                     *         "strategic": true
                     *       },
                     *       "created_at": "2026-11-27T10:00:00.000Z",
                     *       "updated_at": "2026-11-27T10:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The team's own id. */
                        external_id: string;
                        /** @description The company's name. */
                        name: string;
                        /** @description Email domains that identify it, lower case. */
                        domains: string[];
                        /** @description Annual recurring revenue, or null. */
                        arr: number | null;
                        /** @description Its plan, or null. */
                        plan: string | null;
                        /** @description Its segment, or null. */
                        segment: string | null;
                        /** @description Its stage, or null. */
                        stage: string | null;
                        /** @description Its next renewal (YYYY-MM-DD), or null. */
                        renewal_date: string | null;
                        /** @description Its free attributes. */
                        attributes: {
                            [key: string]: string | number | boolean;
                        };
                        /** @description When it was first stored, as an ISO 8601 UTC time. */
                        created_at: string;
                        /** @description When it was last changed, as an ISO 8601 UTC time. */
                        updated_at: string;
                    };
                };
            };
            /** @description Created: the stored object (Location names it) */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "external_id": "crm-0017",
                     *       "name": "Globex",
                     *       "domains": [
                     *         "globex.com",
                     *         "globex.co.uk"
                     *       ],
                     *       "arr": 120000,
                     *       "plan": "enterprise",
                     *       "segment": "mid-market",
                     *       "stage": "customer",
                     *       "renewal_date": "2027-03-31",
                     *       "attributes": {
                     *         "region": "EMEA",
                     *         "seats": 240,
                     *         "strategic": true
                     *       },
                     *       "created_at": "2026-11-27T10:00:00.000Z",
                     *       "updated_at": "2026-11-27T10:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The team's own id. */
                        external_id: string;
                        /** @description The company's name. */
                        name: string;
                        /** @description Email domains that identify it, lower case. */
                        domains: string[];
                        /** @description Annual recurring revenue, or null. */
                        arr: number | null;
                        /** @description Its plan, or null. */
                        plan: string | null;
                        /** @description Its segment, or null. */
                        segment: string | null;
                        /** @description Its stage, or null. */
                        stage: string | null;
                        /** @description Its next renewal (YYYY-MM-DD), or null. */
                        renewal_date: string | null;
                        /** @description Its free attributes. */
                        attributes: {
                            [key: string]: string | number | boolean;
                        };
                        /** @description When it was first stored, as an ISO 8601 UTC time. */
                        created_at: string;
                        /** @description When it was last changed, as an ISO 8601 UTC time. */
                        updated_at: string;
                    };
                };
            };
            /** @description A field that is wrong (named), an unknown field, not JSON, or a bad external_id */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Clashes with another company of the workspace */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Body over 262144 bytes */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not JSON */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteCompany: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The company's external_id, URL-encoded. */
                external_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "external_id": "crm-0017",
                     *       "object": "company",
                     *       "deleted": true
                     *     }
                     */
                    "application/json": {
                        /** @description The deleted company's external_id. */
                        external_id: string;
                        /**
                         * @description What was deleted.
                         * @constant
                         */
                        object: "company";
                        /**
                         * @description Always true.
                         * @constant
                         */
                        deleted: true;
                    };
                };
            };
            /** @description external_id longer than 256 characters or holding control characters */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such company in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listPeople: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "people": [
                     *         {
                     *           "external_id": "contact-88",
                     *           "email": "ana@globex.com",
                     *           "name": "Ana Planted",
                     *           "company_external_id": "crm-0017",
                     *           "attributes": {
                     *             "role": "Head of Finance"
                     *           },
                     *           "created_at": "2026-11-27T10:00:00.000Z",
                     *           "updated_at": "2026-11-27T10:00:00.000Z"
                     *         }
                     *       ],
                     *       "nextCursor": "MTc3MjYwMDc2NzAwMC5jbXBf…"
                     *     }
                     */
                    "application/json": {
                        /** @description One page of people, newest first. */
                        people: {
                            /** @description The team's own id. */
                            external_id: string;
                            /** @description Their email address, lower case, or null. */
                            email: string | null;
                            /** @description Their name, or null. */
                            name: string | null;
                            /** @description The external_id of their company, or null (none given, or the company was deleted). */
                            company_external_id: string | null;
                            /** @description Their free attributes. */
                            attributes: {
                                [key: string]: string | number | boolean;
                            };
                            /** @description When it was first stored, as an ISO 8601 UTC time. */
                            created_at: string;
                            /** @description When it was last changed, as an ISO 8601 UTC time. */
                            updated_at: string;
                        }[];
                        /** @description Pass as `cursor` for the next page; absent on the last. */
                        nextCursor?: string;
                    };
                };
            };
            /** @description Bad limit or cursor */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    importPeople: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "external_id": "contact-88",
                 *         "email": "ana@globex.com",
                 *         "name": "Ana Planted",
                 *         "company_external_id": "crm-0017",
                 *         "attributes": {
                 *           "role": "Head of Finance"
                 *         }
                 *       }
                 *     ]
                 */
                "application/json": {
                    /** @description The team's own id (e.g. the CRM's contact id): the person is upserted by it. */
                    external_id: string;
                    /** @description Their email address, stored lower case; unique in the workspace. Matched against a record participant's email or id. */
                    email?: string | null;
                    /** @description Their name. */
                    name?: string | null;
                    /** @description The external_id of the company they belong to (it must exist): wins over their email's domain. */
                    company_external_id?: string | null;
                    /** @description Free attributes: up to 100 names (1 to 128 characters) each with a string (up to 1000 characters), a number or a boolean. */
                    attributes?: {
                        [key: string]: string | number | boolean;
                    };
                }[] | {
                    /** @description The people, 1 to 1,000. */
                    people: {
                        /** @description The team's own id (e.g. the CRM's contact id): the person is upserted by it. */
                        external_id: string;
                        /** @description Their email address, stored lower case; unique in the workspace. Matched against a record participant's email or id. */
                        email?: string | null;
                        /** @description Their name. */
                        name?: string | null;
                        /** @description The external_id of the company they belong to (it must exist): wins over their email's domain. */
                        company_external_id?: string | null;
                        /** @description Free attributes: up to 100 names (1 to 128 characters) each with a string (up to 1000 characters), a number or a boolean. */
                        attributes?: {
                            [key: string]: string | number | boolean;
                        };
                    }[];
                };
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description What was stored and what was refused */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "createdCount": 2,
                     *       "updatedCount": 1,
                     *       "rejectedCount": 1,
                     *       "errors": [
                     *         {
                     *           "index": 0,
                     *           "code": "UNKNOWN_COMPANY",
                     *           "message": "company_external_id: no company \"crm-x\" in this workspace; send the company first"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description Items stored that were new. */
                        createdCount: number;
                        /** @description Items that replaced one of the same external_id. */
                        updatedCount: number;
                        /** @description Items refused; nothing of them was stored. */
                        rejectedCount: number;
                        /** @description The first 20 errors, each with the item's index. */
                        errors: {
                            /** @description Position of the item in the request, from 0. */
                            index: number;
                            /** @description Stable error code: VALIDATION_ERROR, DOMAIN_TAKEN, FREE_MAIL_DOMAIN, EMAIL_TAKEN, UNKNOWN_COMPANY, PERSON_SUPPRESSED, INVALID_JSON, TOO_MANY_ITEMS. */
                            code: string;
                            /** @description What was wrong and where, e.g. "domains[0]: \"acme.com\" is already a domain of company \"crm-17\"". */
                            message: string;
                        }[];
                    };
                };
            };
            /** @description The body is not one: not JSON, no items, more than 1,000 (`errors` lists those beyond), or not an array or a wrapper object */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Body larger than 5 MB */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Content-Type is neither application/json nor application/x-ndjson */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getPerson: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person's external_id, URL-encoded. */
                external_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The person */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "external_id": "contact-88",
                     *       "email": "ana@globex.com",
                     *       "name": "Ana Planted",
                     *       "company_external_id": "crm-0017",
                     *       "attributes": {
                     *         "role": "Head of Finance"
                     *       },
                     *       "created_at": "2026-11-27T10:00:00.000Z",
                     *       "updated_at": "2026-11-27T10:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The team's own id. */
                        external_id: string;
                        /** @description Their email address, lower case, or null. */
                        email: string | null;
                        /** @description Their name, or null. */
                        name: string | null;
                        /** @description The external_id of their company, or null (none given, or the company was deleted). */
                        company_external_id: string | null;
                        /** @description Their free attributes. */
                        attributes: {
                            [key: string]: string | number | boolean;
                        };
                        /** @description When it was first stored, as an ISO 8601 UTC time. */
                        created_at: string;
                        /** @description When it was last changed, as an ISO 8601 UTC time. */
                        updated_at: string;
                    };
                };
            };
            /** @description external_id longer than 256 characters or holding control characters */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such person in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    upsertPerson: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person's external_id, URL-encoded. */
                external_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ana@globex.com",
                 *       "name": "Ana Planted",
                 *       "company_external_id": "crm-0017",
                 *       "attributes": {
                 *         "role": "Head of Finance"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description The team's own id; in a PUT it may be left out, and must equal the path's when given. */
                    external_id?: string;
                    /** @description Their email address, stored lower case; unique in the workspace. Matched against a record participant's email or id. */
                    email?: string | null;
                    /** @description Their name. */
                    name?: string | null;
                    /** @description The external_id of the company they belong to (it must exist): wins over their email's domain. */
                    company_external_id?: string | null;
                    /** @description Free attributes: up to 100 names (1 to 128 characters) each with a string (up to 1000 characters), a number or a boolean. */
                    attributes?: {
                        [key: string]: string | number | boolean;
                    };
                };
            };
        };
        responses: {
            /** @description Replaced: the stored object */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "external_id": "contact-88",
                     *       "email": "ana@globex.com",
                     *       "name": "Ana Planted",
                     *       "company_external_id": "crm-0017",
                     *       "attributes": {
                     *         "role": "Head of Finance"
                     *       },
                     *       "created_at": "2026-11-27T10:00:00.000Z",
                     *       "updated_at": "2026-11-27T10:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The team's own id. */
                        external_id: string;
                        /** @description Their email address, lower case, or null. */
                        email: string | null;
                        /** @description Their name, or null. */
                        name: string | null;
                        /** @description The external_id of their company, or null (none given, or the company was deleted). */
                        company_external_id: string | null;
                        /** @description Their free attributes. */
                        attributes: {
                            [key: string]: string | number | boolean;
                        };
                        /** @description When it was first stored, as an ISO 8601 UTC time. */
                        created_at: string;
                        /** @description When it was last changed, as an ISO 8601 UTC time. */
                        updated_at: string;
                    };
                };
            };
            /** @description Created: the stored object (Location names it) */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "external_id": "contact-88",
                     *       "email": "ana@globex.com",
                     *       "name": "Ana Planted",
                     *       "company_external_id": "crm-0017",
                     *       "attributes": {
                     *         "role": "Head of Finance"
                     *       },
                     *       "created_at": "2026-11-27T10:00:00.000Z",
                     *       "updated_at": "2026-11-27T10:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The team's own id. */
                        external_id: string;
                        /** @description Their email address, lower case, or null. */
                        email: string | null;
                        /** @description Their name, or null. */
                        name: string | null;
                        /** @description The external_id of their company, or null (none given, or the company was deleted). */
                        company_external_id: string | null;
                        /** @description Their free attributes. */
                        attributes: {
                            [key: string]: string | number | boolean;
                        };
                        /** @description When it was first stored, as an ISO 8601 UTC time. */
                        created_at: string;
                        /** @description When it was last changed, as an ISO 8601 UTC time. */
                        updated_at: string;
                    };
                };
            };
            /** @description A field that is wrong (named), an unknown field, not JSON, or a bad external_id */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Clashes with another person of the workspace */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Body over 262144 bytes */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not JSON */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deletePerson: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person's external_id, URL-encoded. */
                external_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "external_id": "contact-88",
                     *       "object": "person",
                     *       "deleted": true
                     *     }
                     */
                    "application/json": {
                        /** @description The deleted person's external_id. */
                        external_id: string;
                        /**
                         * @description What was deleted.
                         * @constant
                         */
                        object: "person";
                        /**
                         * @description Always true.
                         * @constant
                         */
                        deleted: true;
                    };
                };
            };
            /** @description external_id longer than 256 characters or holding control characters */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such person in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listConnections: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every connection */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "connections": [
                     *         {
                     *           "id": "conn_01m8eebbedjs1cs914635ehk4n",
                     *           "kind": "zendesk",
                     *           "product_id": "prod_01h…",
                     *           "project_id": "proj_01h…",
                     *           "base_url": "https://acme.zendesk.com",
                     *           "settings": {
                     *             "start_date": "2026-01-01"
                     *           },
                     *           "status": "active",
                     *           "sync_interval_minutes": 15,
                     *           "last_synced_at": "2026-11-28T09:15:02.000Z",
                     *           "last_success_at": "2026-11-28T09:15:02.000Z",
                     *           "last_error": null,
                     *           "last_error_at": null,
                     *           "records": 10412,
                     *           "duplicates": 37,
                     *           "rejected": 0,
                     *           "companies": 214,
                     *           "people": 3120,
                     *           "created_at": "2026-11-20T08:00:00.000Z",
                     *           "updated_at": "2026-11-28T09:15:02.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description The workspace's connections, newest first. */
                        connections: {
                            /** @description The connection's id (conn_…). */
                            id: string;
                            /**
                             * @description The vendor.
                             * @enum {string}
                             */
                            kind: "zendesk" | "intercom" | "gong" | "slack";
                            /** @description The product its records go to. */
                            product_id: string;
                            /** @description The project its records go to. */
                            project_id: string;
                            /** @description The vendor's address. */
                            base_url: string;
                            /** @description The connection's settings, as given. */
                            settings: {
                                [key: string]: unknown;
                            };
                            /**
                             * @description active: synced on its schedule; paused: not synced until resumed; failing: the vendor refused the credentials, not synced until they change.
                             * @enum {string}
                             */
                            status: "active" | "paused" | "failing";
                            /** @description Minutes between scheduled syncs. */
                            sync_interval_minutes: number;
                            /** @description When a sync last stored a page or ended, ISO 8601. */
                            last_synced_at: string | null;
                            /** @description When a sync last read to the end. */
                            last_success_at: string | null;
                            /** @description Why the last sync failed, or which vendor objects it refused and why; null when all went well. */
                            last_error: string | null;
                            /** @description When last_error happened, ISO 8601. */
                            last_error_at: string | null;
                            /** @description Records it brought in (not counting duplicates). */
                            records: number;
                            /** @description Objects read again with nothing new: stored once. */
                            duplicates: number;
                            /** @description Objects refused (malformed, or records that failed validation). */
                            rejected: number;
                            /** @description Companies it created from the vendor's organizations. */
                            companies: number;
                            /** @description People it created from the vendor's end users. */
                            people: number;
                            /** @description When it was made, ISO 8601. */
                            created_at: string;
                            /** @description When it last changed, ISO 8601. */
                            updated_at: string;
                        }[];
                    };
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createConnection: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "zendesk",
                 *       "product_id": "prod_01h…",
                 *       "project_id": "proj_01h…",
                 *       "base_url": "https://acme.zendesk.com",
                 *       "credentials": {
                 *         "email": "ops@acme.com",
                 *         "api_token": "…"
                 *       },
                 *       "settings": {
                 *         "start_date": "2026-01-01",
                 *         "tags": [
                 *           "feedback"
                 *         ]
                 *       }
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Zendesk Support.
                     * @constant
                     */
                    kind: "zendesk";
                    /** @description The product of this workspace the records go to. */
                    product_id: string;
                    /** @description The project of that product the records go to. */
                    project_id: string;
                    /**
                     * Format: uri
                     * @description The vendor's address, e.g. https://acme.zendesk.com. Private and loopback addresses are refused (unless FETCH_ALLOW_LOOPBACK).
                     */
                    base_url: string;
                    /** @description `{email, api_token}` or `{access_token}`: stored encrypted, never returned. */
                    credentials: {
                        /**
                         * Format: email
                         * @description The Zendesk user the API token belongs to (an admin, or an agent who sees the tickets to bring in).
                         */
                        email: string;
                        /** @description An API token (Admin Center → Apps and integrations → Zendesk API). */
                        api_token: string;
                    } | {
                        /** @description An OAuth access token with the `read` scope. */
                        access_token: string;
                    };
                    /** @description Which tickets to bring, and since when. */
                    settings?: {
                        /**
                         * Format: date
                         * @description Backfill tickets changed since this day (YYYY-MM-DD); 90 days before the connection was made when absent.
                         */
                        start_date?: string;
                        /** @description Only tickets of these brands. */
                        brand_ids?: number[];
                        /** @description Only tickets with at least one of these tags. */
                        tags?: string[];
                        /** @description Tickets per export page (Zendesk allows up to 1,000). */
                        page_size?: number;
                    };
                    /** @description Minutes between scheduled syncs, 5 to 1440; 15 by default. */
                    sync_interval_minutes?: number;
                } | {
                    /**
                     * @description Intercom.
                     * @constant
                     */
                    kind: "intercom";
                    /** @description The product of this workspace the records go to. */
                    product_id: string;
                    /** @description The project of that product the records go to. */
                    project_id: string;
                    /**
                     * Format: uri
                     * @description Intercom's API address: https://api.intercom.io by default; https://api.eu.intercom.io or https://api.au.intercom.io for a workspace hosted in Europe or Australia.
                     */
                    base_url?: string;
                    /** @description `{access_token}`: stored encrypted, never returned. */
                    credentials: {
                        /** @description An Intercom access token with the permissions Read conversations, Read and list users and companies, and Read admins. */
                        access_token: string;
                    };
                    /** @description Since when to bring conversations, and the page size. */
                    settings?: {
                        /**
                         * Format: date
                         * @description Backfill conversations updated since this day (YYYY-MM-DD); 90 days before the connection was made when absent.
                         */
                        start_date?: string;
                        /** @description Conversations per search page (Intercom allows up to 150; 50 by default). */
                        page_size?: number;
                    };
                    /** @description Minutes between scheduled syncs, 5 to 1440; 15 by default. */
                    sync_interval_minutes?: number;
                } | {
                    /**
                     * @description Gong (calls and their transcripts).
                     * @constant
                     */
                    kind: "gong";
                    /** @description The product of this workspace the records go to. */
                    product_id: string;
                    /** @description The project of that product the records go to. */
                    project_id: string;
                    /**
                     * Format: uri
                     * @description https://api.gong.io by default; with an OAuth token, the `api_base_url_for_customer` Gong gave with it.
                     * @default https://api.gong.io
                     */
                    base_url?: string;
                    /** @description `{access_key, access_key_secret}` or `{access_token}`: stored encrypted, never returned. */
                    credentials: {
                        /** @description The access key (Gong: Admin center → Settings → Ecosystem → API → Get API Key; a technical administrator makes it). */
                        access_key: string;
                        /** @description The access key secret, shown once, with the key. */
                        access_key_secret: string;
                    } | {
                        /** @description An OAuth access token with api:calls:read:basic, api:calls:read:extensive and api:calls:read:transcript (and api:calls:read:media-url for recordings). */
                        access_token: string;
                    };
                    /** @description Which calls to bring, and since when. */
                    settings?: {
                        /**
                         * Format: date
                         * @description Backfill calls that started on or after this day (YYYY-MM-DD); 90 days before the connection was made when absent.
                         */
                        start_date?: string;
                        /** @description Only the calls of this Gong workspace. */
                        workspace_id?: string;
                        /** @description Give each call's recording (its audio URL, else its video URL) as an attachment to download; true by default. An OAuth token needs api:calls:read:media-url for it. */
                        include_media?: boolean;
                        /** @description A call is read once its start is this many minutes old, so Gong has had time to transcribe it; 180 by default. */
                        delay_minutes?: number;
                    };
                    /** @description Minutes between scheduled syncs, 5 to 1440; 15 by default. */
                    sync_interval_minutes?: number;
                } | {
                    /**
                     * @description Slack.
                     * @constant
                     */
                    kind: "slack";
                    /** @description The product of this workspace the records go to. */
                    product_id: string;
                    /** @description The project of that product the records go to. */
                    project_id: string;
                    /**
                     * Format: uri
                     * @description Slack's Web API address: https://slack.com by default.
                     */
                    base_url?: string;
                    /** @description `{token}`: stored encrypted, never returned. */
                    credentials: {
                        /** @description A bot token (xoxb-…, the app invited to each channel) or a user token (xoxp-…) with channels:history, groups:history, channels:read, groups:read, users:read and users:read.email. */
                        token: string;
                    };
                    /** @description Which channels to bring (`channel_ids`, required), and since when. */
                    settings: {
                        /** @description The channels to bring (public C… or private G… ids); the app must be a member of each. */
                        channel_ids: string[];
                        /**
                         * Format: date
                         * @description Backfill messages posted since this day (YYYY-MM-DD); 90 days before the connection was made when absent.
                         */
                        start_date?: string;
                        /** @description Messages per history page (Slack allows up to 999 and advises 200; 200 by default; 15 for a non-Marketplace app distributed to other workspaces). */
                        page_size?: number;
                        /** @description Threads whose parent is at most this many days older than the newest message read are read again when they get a new reply (14 by default; 0: never). */
                        reply_window_days?: number;
                        /** @description Also bring messages and threads posted only by bots and apps (left out by default). */
                        include_bots?: boolean;
                    };
                    /** @description Minutes between scheduled syncs, 5 to 1440; 15 by default. */
                    sync_interval_minutes?: number;
                };
            };
        };
        responses: {
            /** @description Created (Location names it); its first sync is queued */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "conn_01m8eebbedjs1cs914635ehk4n",
                     *       "kind": "zendesk",
                     *       "product_id": "prod_01h…",
                     *       "project_id": "proj_01h…",
                     *       "base_url": "https://acme.zendesk.com",
                     *       "settings": {
                     *         "start_date": "2026-01-01"
                     *       },
                     *       "status": "active",
                     *       "sync_interval_minutes": 15,
                     *       "last_synced_at": null,
                     *       "last_success_at": null,
                     *       "last_error": null,
                     *       "last_error_at": null,
                     *       "records": 0,
                     *       "duplicates": 0,
                     *       "rejected": 0,
                     *       "companies": 0,
                     *       "people": 0,
                     *       "created_at": "2026-11-20T08:00:00.000Z",
                     *       "updated_at": "2026-11-28T09:15:02.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The connection's id (conn_…). */
                        id: string;
                        /**
                         * @description The vendor.
                         * @enum {string}
                         */
                        kind: "zendesk" | "intercom" | "gong" | "slack";
                        /** @description The product its records go to. */
                        product_id: string;
                        /** @description The project its records go to. */
                        project_id: string;
                        /** @description The vendor's address. */
                        base_url: string;
                        /** @description The connection's settings, as given. */
                        settings: {
                            [key: string]: unknown;
                        };
                        /**
                         * @description active: synced on its schedule; paused: not synced until resumed; failing: the vendor refused the credentials, not synced until they change.
                         * @enum {string}
                         */
                        status: "active" | "paused" | "failing";
                        /** @description Minutes between scheduled syncs. */
                        sync_interval_minutes: number;
                        /** @description When a sync last stored a page or ended, ISO 8601. */
                        last_synced_at: string | null;
                        /** @description When a sync last read to the end. */
                        last_success_at: string | null;
                        /** @description Why the last sync failed, or which vendor objects it refused and why; null when all went well. */
                        last_error: string | null;
                        /** @description When last_error happened, ISO 8601. */
                        last_error_at: string | null;
                        /** @description Records it brought in (not counting duplicates). */
                        records: number;
                        /** @description Objects read again with nothing new: stored once. */
                        duplicates: number;
                        /** @description Objects refused (malformed, or records that failed validation). */
                        rejected: number;
                        /** @description Companies it created from the vendor's organizations. */
                        companies: number;
                        /** @description People it created from the vendor's end users. */
                        people: number;
                        /** @description When it was made, ISO 8601. */
                        created_at: string;
                        /** @description When it last changed, ISO 8601. */
                        updated_at: string;
                    };
                };
            };
            /** @description A wrong field, a base_url that is refused, or a product or project not in this workspace */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Body over 65536 bytes */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not JSON */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The connection's id (conn_…). */
                connectionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connection */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "conn_01m8eebbedjs1cs914635ehk4n",
                     *       "kind": "zendesk",
                     *       "product_id": "prod_01h…",
                     *       "project_id": "proj_01h…",
                     *       "base_url": "https://acme.zendesk.com",
                     *       "settings": {
                     *         "start_date": "2026-01-01"
                     *       },
                     *       "status": "active",
                     *       "sync_interval_minutes": 15,
                     *       "last_synced_at": "2026-11-28T09:15:02.000Z",
                     *       "last_success_at": "2026-11-28T09:15:02.000Z",
                     *       "last_error": null,
                     *       "last_error_at": null,
                     *       "records": 10412,
                     *       "duplicates": 37,
                     *       "rejected": 0,
                     *       "companies": 214,
                     *       "people": 3120,
                     *       "created_at": "2026-11-20T08:00:00.000Z",
                     *       "updated_at": "2026-11-28T09:15:02.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The connection's id (conn_…). */
                        id: string;
                        /**
                         * @description The vendor.
                         * @enum {string}
                         */
                        kind: "zendesk" | "intercom" | "gong" | "slack";
                        /** @description The product its records go to. */
                        product_id: string;
                        /** @description The project its records go to. */
                        project_id: string;
                        /** @description The vendor's address. */
                        base_url: string;
                        /** @description The connection's settings, as given. */
                        settings: {
                            [key: string]: unknown;
                        };
                        /**
                         * @description active: synced on its schedule; paused: not synced until resumed; failing: the vendor refused the credentials, not synced until they change.
                         * @enum {string}
                         */
                        status: "active" | "paused" | "failing";
                        /** @description Minutes between scheduled syncs. */
                        sync_interval_minutes: number;
                        /** @description When a sync last stored a page or ended, ISO 8601. */
                        last_synced_at: string | null;
                        /** @description When a sync last read to the end. */
                        last_success_at: string | null;
                        /** @description Why the last sync failed, or which vendor objects it refused and why; null when all went well. */
                        last_error: string | null;
                        /** @description When last_error happened, ISO 8601. */
                        last_error_at: string | null;
                        /** @description Records it brought in (not counting duplicates). */
                        records: number;
                        /** @description Objects read again with nothing new: stored once. */
                        duplicates: number;
                        /** @description Objects refused (malformed, or records that failed validation). */
                        rejected: number;
                        /** @description Companies it created from the vendor's organizations. */
                        companies: number;
                        /** @description People it created from the vendor's end users. */
                        people: number;
                        /** @description When it was made, ISO 8601. */
                        created_at: string;
                        /** @description When it last changed, ISO 8601. */
                        updated_at: string;
                    };
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such connection in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteConnection: {
        parameters: {
            query?: {
                with_data?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description The connection's id (conn_…). */
                connectionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "conn_01m8eebbedjs1cs914635ehk4n",
                     *       "object": "connection",
                     *       "deleted": true,
                     *       "data": "deleting"
                     *     }
                     */
                    "application/json": {
                        /** @description The deleted connection's id. */
                        id: string;
                        /**
                         * @description What was deleted.
                         * @constant
                         */
                        object: "connection";
                        /**
                         * @description Always true.
                         * @constant
                         */
                        deleted: true;
                        /**
                         * @description kept: the records it brought stay; deleting: they are being deleted in the background, with their sources.
                         * @enum {string}
                         */
                        data: "kept" | "deleting";
                    };
                };
            };
            /** @description with_data neither true nor false */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such connection in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The connection's id (conn_…). */
                connectionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "credentials": {
                 *         "access_token": "…"
                 *       }
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description The vendor's address, e.g. https://acme.zendesk.com. Private and loopback addresses are refused (unless FETCH_ALLOW_LOOPBACK).
                     */
                    base_url?: string;
                    /** @description New credentials, of the form the connection's kind takes (Zendesk: `{email, api_token}` or `{access_token}`; Intercom: `{access_token}`; Gong: `{access_key, access_key_secret}` or `{access_token}`; Slack: `{token}`). */
                    credentials?: {
                        [key: string]: unknown;
                    };
                    /** @description The whole settings of the connection's kind; a setting left out is cleared. */
                    settings?: {
                        [key: string]: unknown;
                    };
                    /** @description Minutes between scheduled syncs, 5 to 1440; 15 by default. */
                    sync_interval_minutes?: number;
                };
            };
        };
        responses: {
            /** @description The connection */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "conn_01m8eebbedjs1cs914635ehk4n",
                     *       "kind": "zendesk",
                     *       "product_id": "prod_01h…",
                     *       "project_id": "proj_01h…",
                     *       "base_url": "https://acme.zendesk.com",
                     *       "settings": {
                     *         "start_date": "2026-01-01"
                     *       },
                     *       "status": "active",
                     *       "sync_interval_minutes": 15,
                     *       "last_synced_at": "2026-11-28T09:15:02.000Z",
                     *       "last_success_at": "2026-11-28T09:15:02.000Z",
                     *       "last_error": null,
                     *       "last_error_at": null,
                     *       "records": 10412,
                     *       "duplicates": 37,
                     *       "rejected": 0,
                     *       "companies": 214,
                     *       "people": 3120,
                     *       "created_at": "2026-11-20T08:00:00.000Z",
                     *       "updated_at": "2026-11-28T09:15:02.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The connection's id (conn_…). */
                        id: string;
                        /**
                         * @description The vendor.
                         * @enum {string}
                         */
                        kind: "zendesk" | "intercom" | "gong" | "slack";
                        /** @description The product its records go to. */
                        product_id: string;
                        /** @description The project its records go to. */
                        project_id: string;
                        /** @description The vendor's address. */
                        base_url: string;
                        /** @description The connection's settings, as given. */
                        settings: {
                            [key: string]: unknown;
                        };
                        /**
                         * @description active: synced on its schedule; paused: not synced until resumed; failing: the vendor refused the credentials, not synced until they change.
                         * @enum {string}
                         */
                        status: "active" | "paused" | "failing";
                        /** @description Minutes between scheduled syncs. */
                        sync_interval_minutes: number;
                        /** @description When a sync last stored a page or ended, ISO 8601. */
                        last_synced_at: string | null;
                        /** @description When a sync last read to the end. */
                        last_success_at: string | null;
                        /** @description Why the last sync failed, or which vendor objects it refused and why; null when all went well. */
                        last_error: string | null;
                        /** @description When last_error happened, ISO 8601. */
                        last_error_at: string | null;
                        /** @description Records it brought in (not counting duplicates). */
                        records: number;
                        /** @description Objects read again with nothing new: stored once. */
                        duplicates: number;
                        /** @description Objects refused (malformed, or records that failed validation). */
                        rejected: number;
                        /** @description Companies it created from the vendor's organizations. */
                        companies: number;
                        /** @description People it created from the vendor's end users. */
                        people: number;
                        /** @description When it was made, ISO 8601. */
                        created_at: string;
                        /** @description When it last changed, ISO 8601. */
                        updated_at: string;
                    };
                };
            };
            /** @description A field that is wrong (named; credentials are never echoed), an unknown field, or not JSON */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such connection in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Body over 65536 bytes */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not JSON */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    pauseConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The connection's id (conn_…). */
                connectionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connection */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "conn_01m8eebbedjs1cs914635ehk4n",
                     *       "kind": "zendesk",
                     *       "product_id": "prod_01h…",
                     *       "project_id": "proj_01h…",
                     *       "base_url": "https://acme.zendesk.com",
                     *       "settings": {
                     *         "start_date": "2026-01-01"
                     *       },
                     *       "status": "active",
                     *       "sync_interval_minutes": 15,
                     *       "last_synced_at": "2026-11-28T09:15:02.000Z",
                     *       "last_success_at": "2026-11-28T09:15:02.000Z",
                     *       "last_error": null,
                     *       "last_error_at": null,
                     *       "records": 10412,
                     *       "duplicates": 37,
                     *       "rejected": 0,
                     *       "companies": 214,
                     *       "people": 3120,
                     *       "created_at": "2026-11-20T08:00:00.000Z",
                     *       "updated_at": "2026-11-28T09:15:02.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The connection's id (conn_…). */
                        id: string;
                        /**
                         * @description The vendor.
                         * @enum {string}
                         */
                        kind: "zendesk" | "intercom" | "gong" | "slack";
                        /** @description The product its records go to. */
                        product_id: string;
                        /** @description The project its records go to. */
                        project_id: string;
                        /** @description The vendor's address. */
                        base_url: string;
                        /** @description The connection's settings, as given. */
                        settings: {
                            [key: string]: unknown;
                        };
                        /**
                         * @description active: synced on its schedule; paused: not synced until resumed; failing: the vendor refused the credentials, not synced until they change.
                         * @enum {string}
                         */
                        status: "active" | "paused" | "failing";
                        /** @description Minutes between scheduled syncs. */
                        sync_interval_minutes: number;
                        /** @description When a sync last stored a page or ended, ISO 8601. */
                        last_synced_at: string | null;
                        /** @description When a sync last read to the end. */
                        last_success_at: string | null;
                        /** @description Why the last sync failed, or which vendor objects it refused and why; null when all went well. */
                        last_error: string | null;
                        /** @description When last_error happened, ISO 8601. */
                        last_error_at: string | null;
                        /** @description Records it brought in (not counting duplicates). */
                        records: number;
                        /** @description Objects read again with nothing new: stored once. */
                        duplicates: number;
                        /** @description Objects refused (malformed, or records that failed validation). */
                        rejected: number;
                        /** @description Companies it created from the vendor's organizations. */
                        companies: number;
                        /** @description People it created from the vendor's end users. */
                        people: number;
                        /** @description When it was made, ISO 8601. */
                        created_at: string;
                        /** @description When it last changed, ISO 8601. */
                        updated_at: string;
                    };
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such connection in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    resumeConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The connection's id (conn_…). */
                connectionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connection */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "conn_01m8eebbedjs1cs914635ehk4n",
                     *       "kind": "zendesk",
                     *       "product_id": "prod_01h…",
                     *       "project_id": "proj_01h…",
                     *       "base_url": "https://acme.zendesk.com",
                     *       "settings": {
                     *         "start_date": "2026-01-01"
                     *       },
                     *       "status": "active",
                     *       "sync_interval_minutes": 15,
                     *       "last_synced_at": "2026-11-28T09:15:02.000Z",
                     *       "last_success_at": "2026-11-28T09:15:02.000Z",
                     *       "last_error": null,
                     *       "last_error_at": null,
                     *       "records": 10412,
                     *       "duplicates": 37,
                     *       "rejected": 0,
                     *       "companies": 214,
                     *       "people": 3120,
                     *       "created_at": "2026-11-20T08:00:00.000Z",
                     *       "updated_at": "2026-11-28T09:15:02.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The connection's id (conn_…). */
                        id: string;
                        /**
                         * @description The vendor.
                         * @enum {string}
                         */
                        kind: "zendesk" | "intercom" | "gong" | "slack";
                        /** @description The product its records go to. */
                        product_id: string;
                        /** @description The project its records go to. */
                        project_id: string;
                        /** @description The vendor's address. */
                        base_url: string;
                        /** @description The connection's settings, as given. */
                        settings: {
                            [key: string]: unknown;
                        };
                        /**
                         * @description active: synced on its schedule; paused: not synced until resumed; failing: the vendor refused the credentials, not synced until they change.
                         * @enum {string}
                         */
                        status: "active" | "paused" | "failing";
                        /** @description Minutes between scheduled syncs. */
                        sync_interval_minutes: number;
                        /** @description When a sync last stored a page or ended, ISO 8601. */
                        last_synced_at: string | null;
                        /** @description When a sync last read to the end. */
                        last_success_at: string | null;
                        /** @description Why the last sync failed, or which vendor objects it refused and why; null when all went well. */
                        last_error: string | null;
                        /** @description When last_error happened, ISO 8601. */
                        last_error_at: string | null;
                        /** @description Records it brought in (not counting duplicates). */
                        records: number;
                        /** @description Objects read again with nothing new: stored once. */
                        duplicates: number;
                        /** @description Objects refused (malformed, or records that failed validation). */
                        rejected: number;
                        /** @description Companies it created from the vendor's organizations. */
                        companies: number;
                        /** @description People it created from the vendor's end users. */
                        people: number;
                        /** @description When it was made, ISO 8601. */
                        created_at: string;
                        /** @description When it last changed, ISO 8601. */
                        updated_at: string;
                    };
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such connection in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    syncConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The connection's id (conn_…). */
                connectionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "conn_01m8eebbedjs1cs914635ehk4n",
                     *       "object": "connection",
                     *       "sync": "queued"
                     *     }
                     */
                    "application/json": {
                        /** @description The connection's id. */
                        id: string;
                        /**
                         * @description What was asked to sync.
                         * @constant
                         */
                        object: "connection";
                        /**
                         * @description A sync is queued.
                         * @constant
                         */
                        sync: "queued";
                    };
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such connection in this workspace (never there, another workspace's, or deleted) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Paused, or failing until its credentials change */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getEmailForwarding: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The addresses and the sender rule */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "enabled": true,
                     *       "addresses": [
                     *         {
                     *           "product_id": "prod_01h…",
                     *           "product_name": "Acme app",
                     *           "project_id": "proj_01h…",
                     *           "project_name": "Support",
                     *           "address": "fwd+k3q7x2m9tz4hbn6wdr5yc8vjpa@replies.example.com"
                     *         }
                     *       ],
                     *       "sender_domains": [
                     *         "acme.com"
                     *       ],
                     *       "sender_domains_from_members": true
                     *     }
                     */
                    "application/json": {
                        /** @description Whether this server receives mail (MAIL_REPLY_DOMAIN with an SMTP receiver); without it there are no addresses. */
                        enabled: boolean;
                        /** @description One per project of the workspace (none when `enabled` is false). */
                        addresses: {
                            /** @description The project's product. */
                            product_id: string;
                            /** @description The product's name. */
                            product_name: string;
                            /** @description The project whose sources forwarded mail becomes. */
                            project_id: string;
                            /** @description The project's name. */
                            project_name: string;
                            /** @description Where to forward: `fwd+<26 random characters>@<inbound domain>`. Made on first read, kept until replaced on the console. */
                            address: string;
                        }[];
                        /** @description The domains whose senders may forward (and whose people are internal participants); subdomains too. */
                        sender_domains: string[];
                        /** @description True when no list is set: the domains of the workspace members' emails apply. */
                        sender_domains_from_members: boolean;
                    };
                };
            };
            /** @description API key missing, unknown or revoked */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The key lacks the permission this endpoint needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address across the service (an IpRateLimited body); see the Retry-After header */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"] | components["schemas"]["IpRateLimited"];
                };
            };
            /** @description Unexpected server error; retry */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
}
