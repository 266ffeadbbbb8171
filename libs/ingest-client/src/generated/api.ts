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
         * @description Streams one JSON object per line: every source (with its segments and attachments), then every signal, opportunity (with its signal ids) and shaping note (with every version), each kind by id. Each line is `{"kind", "cursor", <kind>: {…}}`; the last is `{"kind":"end","complete":true,"counts":{…}}`. A stream that ends without that line was cut short: ask again with `after` = the cursor of the last line received.
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
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Record: {
            /** @enum {string} */
            _type: "email_thread" | "email" | "meeting_notes" | "call" | "call_transcription" | "conversation" | "message" | "document" | "spreadsheet";
            /** @constant */
            _schema_version: "1.0.0";
            _event_at: string;
            /** @description Origin identifiers; at least one entry. */
            _vendor_ids: {
                [key: string]: string;
            };
            _product_id: string;
            _project_ids: string[];
            /** @enum {string} */
            _nature: "evidence" | "guidance" | "context";
            data: {
                [key: string]: unknown;
            };
            _thread_id?: string;
            _participants?: components["schemas"]["Participant"][];
            _attachments?: components["schemas"]["Attachment"][];
            _tags?: string[];
            _pii?: components["schemas"]["Pii"];
        };
        Participant: {
            id: string;
            /** @enum {string} */
            role: "internal" | "external" | "unknown";
            name?: string;
            /** Format: email */
            email?: string;
            /** @enum {string} */
            type?: "user" | "contact" | "workspace_member" | "bot" | "system" | "unknown";
        };
        Attachment: {
            /** @enum {string} */
            type: "audio" | "video" | "file" | "image" | "text" | "unknown";
            filename?: string;
            size?: number;
            mime_type?: string;
            sha1?: string;
            md5?: string;
            /** Format: uri */
            vendor_url?: string;
            upload_intent_id?: string;
        };
        Pii: {
            contains_email?: boolean;
            contains_phone?: boolean;
            sensitive_score?: number;
            detected_entities?: components["schemas"]["PiiEntity"][];
            /** @enum {string} */
            redaction_status?: "unredacted" | "redacted" | "encrypted";
        };
        PiiEntity: {
            type: string;
            value?: string;
            confidence?: number;
        };
        RecordError: {
            index: number;
            code: string;
            message: string;
        };
        SubmissionResponse: {
            batchId: string;
            acceptedCount: number;
            rejectedCount: number;
            totalErrorCount: number;
            duplicateCount?: number;
            errors?: components["schemas"]["RecordError"][];
        };
        Batch: {
            batchId: string;
            /** @enum {string} */
            status: "LANDING" | "LANDED" | "PROCESSING" | "COMPLETE" | "FAILED";
            createdAt: number;
            acceptedCount: number;
            rejectedCount: number;
            duplicateCount: number;
            totalErrorCount: number;
            errors: components["schemas"]["RecordError"][];
            source: string;
            type: string;
            /** @enum {string} */
            format?: "text" | "audio" | "video" | "file";
            attachmentDownloadTotal?: number;
            attachmentDownloadComplete?: number;
            attachmentDownloadFailed?: number;
            /** @enum {string} */
            attachmentDownloadStatus?: "PENDING" | "IN_PROGRESS" | "COMPLETE" | "PARTIAL_FAILURE" | "FAILED";
            deletedCount?: number;
            billing: {
                totalCreditsCharged: number;
            };
        };
        BatchList: {
            batches: components["schemas"]["Batch"][];
            nextCursor?: string;
        };
        ErrorResponse: {
            error: string;
            message: string;
            retryAfter?: number;
            details?: {
                [key: string]: unknown;
            };
            errors?: components["schemas"]["RecordError"][];
        };
        DeletedSource: {
            id: string;
            /** @constant */
            object: "source";
            /** @constant */
            deleted: true;
            /** @description The record the source was built from, deleted with it (null: the source was written over MCP) */
            recordId: string | null;
        };
        DeletedRecord: {
            id: string;
            /** @constant */
            object: "record";
            /** @constant */
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
                     *     {"kind":"end","complete":true,"resumed":false,"counts":{"source":1,"signal":0,"opportunity":0,"shaping_note":0}}
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
                        erasures: {
                            id: string;
                            /**
                             * @description queued → running → complete; a dry run queued → running → previewed, then confirmed (queued again) or expired; failed: out of retries, it carries on when the person is asked to be erased again.
                             * @enum {string}
                             */
                            status: "queued" | "running" | "previewed" | "complete" | "expired" | "failed";
                            /** @description Where the worker is: discover_records … other, then done. */
                            phase: string;
                            /** @enum {string} */
                            subjectKind: "email" | "participant_id";
                            /** @description A dry run (a preview) until confirmed: it changes nothing and suppresses no one. */
                            dryRun: boolean;
                            /** @description What was redacted or deleted so far (of a dry run: what would be). */
                            counts: {
                                records?: number;
                                attachments?: number;
                                sources?: number;
                                segments?: number;
                                signalsDeleted?: number;
                                signalsRedacted?: number;
                                signalChanges?: number;
                                opportunities?: number;
                                shapingNotes?: number;
                                other?: number;
                            };
                            requestedBy: string;
                            createdAt: number;
                            updatedAt: number;
                            completedAt?: number;
                            error?: string;
                            /** @description Of a dry run once previewed (GET /api/v1/erasures/{erasureId} only). */
                            preview?: {
                                /** @description What the erasure would redact or delete, by the addresses and ids alone. */
                                counts: {
                                    records?: number;
                                    attachments?: number;
                                    sources?: number;
                                    segments?: number;
                                    signalsDeleted?: number;
                                    signalsRedacted?: number;
                                    signalChanges?: number;
                                    opportunities?: number;
                                    shapingNotes?: number;
                                    other?: number;
                                };
                                /** @description Up to 3 rows of each kind, cut around their first change. */
                                samples: {
                                    /** @enum {string} */
                                    kind: "record" | "source" | "signal" | "signal_change" | "opportunity" | "shaping_note" | "other";
                                    id: string;
                                    /** @description Where in the row it first changes (a JSON path, or empty). */
                                    field: string;
                                    before: string;
                                    /** @description null: deleted (a signal the person said). */
                                    after: string | null;
                                }[];
                                /** @description Addresses and participant ids found in the participant entries carrying the given ones: erased and suppressed too, unless shared. */
                                identifiers: {
                                    /** @enum {string} */
                                    kind: "email" | "participant_id";
                                    value: string;
                                    /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                    shared: boolean;
                                    /** @description How many other participants carry it (counted up to 10). */
                                    sharedWith: number;
                                }[];
                                /** @description Names found beside the addresses and ids: looked for only when confirmed (POST …/confirm), a shared one never. */
                                names: {
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
                        id: string;
                        /**
                         * @description queued → running → complete; a dry run queued → running → previewed, then confirmed (queued again) or expired; failed: out of retries, it carries on when the person is asked to be erased again.
                         * @enum {string}
                         */
                        status: "queued" | "running" | "previewed" | "complete" | "expired" | "failed";
                        /** @description Where the worker is: discover_records … other, then done. */
                        phase: string;
                        /** @enum {string} */
                        subjectKind: "email" | "participant_id";
                        /** @description A dry run (a preview) until confirmed: it changes nothing and suppresses no one. */
                        dryRun: boolean;
                        /** @description What was redacted or deleted so far (of a dry run: what would be). */
                        counts: {
                            records?: number;
                            attachments?: number;
                            sources?: number;
                            segments?: number;
                            signalsDeleted?: number;
                            signalsRedacted?: number;
                            signalChanges?: number;
                            opportunities?: number;
                            shapingNotes?: number;
                            other?: number;
                        };
                        requestedBy: string;
                        createdAt: number;
                        updatedAt: number;
                        completedAt?: number;
                        error?: string;
                        /** @description Of a dry run once previewed (GET /api/v1/erasures/{erasureId} only). */
                        preview?: {
                            /** @description What the erasure would redact or delete, by the addresses and ids alone. */
                            counts: {
                                records?: number;
                                attachments?: number;
                                sources?: number;
                                segments?: number;
                                signalsDeleted?: number;
                                signalsRedacted?: number;
                                signalChanges?: number;
                                opportunities?: number;
                                shapingNotes?: number;
                                other?: number;
                            };
                            /** @description Up to 3 rows of each kind, cut around their first change. */
                            samples: {
                                /** @enum {string} */
                                kind: "record" | "source" | "signal" | "signal_change" | "opportunity" | "shaping_note" | "other";
                                id: string;
                                /** @description Where in the row it first changes (a JSON path, or empty). */
                                field: string;
                                before: string;
                                /** @description null: deleted (a signal the person said). */
                                after: string | null;
                            }[];
                            /** @description Addresses and participant ids found in the participant entries carrying the given ones: erased and suppressed too, unless shared. */
                            identifiers: {
                                /** @enum {string} */
                                kind: "email" | "participant_id";
                                value: string;
                                /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                shared: boolean;
                                /** @description How many other participants carry it (counted up to 10). */
                                sharedWith: number;
                            }[];
                            /** @description Names found beside the addresses and ids: looked for only when confirmed (POST …/confirm), a shared one never. */
                            names: {
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
                        id: string;
                        /**
                         * @description queued → running → complete; a dry run queued → running → previewed, then confirmed (queued again) or expired; failed: out of retries, it carries on when the person is asked to be erased again.
                         * @enum {string}
                         */
                        status: "queued" | "running" | "previewed" | "complete" | "expired" | "failed";
                        /** @description Where the worker is: discover_records … other, then done. */
                        phase: string;
                        /** @enum {string} */
                        subjectKind: "email" | "participant_id";
                        /** @description A dry run (a preview) until confirmed: it changes nothing and suppresses no one. */
                        dryRun: boolean;
                        /** @description What was redacted or deleted so far (of a dry run: what would be). */
                        counts: {
                            records?: number;
                            attachments?: number;
                            sources?: number;
                            segments?: number;
                            signalsDeleted?: number;
                            signalsRedacted?: number;
                            signalChanges?: number;
                            opportunities?: number;
                            shapingNotes?: number;
                            other?: number;
                        };
                        requestedBy: string;
                        createdAt: number;
                        updatedAt: number;
                        completedAt?: number;
                        error?: string;
                        /** @description Of a dry run once previewed (GET /api/v1/erasures/{erasureId} only). */
                        preview?: {
                            /** @description What the erasure would redact or delete, by the addresses and ids alone. */
                            counts: {
                                records?: number;
                                attachments?: number;
                                sources?: number;
                                segments?: number;
                                signalsDeleted?: number;
                                signalsRedacted?: number;
                                signalChanges?: number;
                                opportunities?: number;
                                shapingNotes?: number;
                                other?: number;
                            };
                            /** @description Up to 3 rows of each kind, cut around their first change. */
                            samples: {
                                /** @enum {string} */
                                kind: "record" | "source" | "signal" | "signal_change" | "opportunity" | "shaping_note" | "other";
                                id: string;
                                /** @description Where in the row it first changes (a JSON path, or empty). */
                                field: string;
                                before: string;
                                /** @description null: deleted (a signal the person said). */
                                after: string | null;
                            }[];
                            /** @description Addresses and participant ids found in the participant entries carrying the given ones: erased and suppressed too, unless shared. */
                            identifiers: {
                                /** @enum {string} */
                                kind: "email" | "participant_id";
                                value: string;
                                /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                shared: boolean;
                                /** @description How many other participants carry it (counted up to 10). */
                                sharedWith: number;
                            }[];
                            /** @description Names found beside the addresses and ids: looked for only when confirmed (POST …/confirm), a shared one never. */
                            names: {
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
                        id: string;
                        /**
                         * @description queued → running → complete; a dry run queued → running → previewed, then confirmed (queued again) or expired; failed: out of retries, it carries on when the person is asked to be erased again.
                         * @enum {string}
                         */
                        status: "queued" | "running" | "previewed" | "complete" | "expired" | "failed";
                        /** @description Where the worker is: discover_records … other, then done. */
                        phase: string;
                        /** @enum {string} */
                        subjectKind: "email" | "participant_id";
                        /** @description A dry run (a preview) until confirmed: it changes nothing and suppresses no one. */
                        dryRun: boolean;
                        /** @description What was redacted or deleted so far (of a dry run: what would be). */
                        counts: {
                            records?: number;
                            attachments?: number;
                            sources?: number;
                            segments?: number;
                            signalsDeleted?: number;
                            signalsRedacted?: number;
                            signalChanges?: number;
                            opportunities?: number;
                            shapingNotes?: number;
                            other?: number;
                        };
                        requestedBy: string;
                        createdAt: number;
                        updatedAt: number;
                        completedAt?: number;
                        error?: string;
                        /** @description Of a dry run once previewed (GET /api/v1/erasures/{erasureId} only). */
                        preview?: {
                            /** @description What the erasure would redact or delete, by the addresses and ids alone. */
                            counts: {
                                records?: number;
                                attachments?: number;
                                sources?: number;
                                segments?: number;
                                signalsDeleted?: number;
                                signalsRedacted?: number;
                                signalChanges?: number;
                                opportunities?: number;
                                shapingNotes?: number;
                                other?: number;
                            };
                            /** @description Up to 3 rows of each kind, cut around their first change. */
                            samples: {
                                /** @enum {string} */
                                kind: "record" | "source" | "signal" | "signal_change" | "opportunity" | "shaping_note" | "other";
                                id: string;
                                /** @description Where in the row it first changes (a JSON path, or empty). */
                                field: string;
                                before: string;
                                /** @description null: deleted (a signal the person said). */
                                after: string | null;
                            }[];
                            /** @description Addresses and participant ids found in the participant entries carrying the given ones: erased and suppressed too, unless shared. */
                            identifiers: {
                                /** @enum {string} */
                                kind: "email" | "participant_id";
                                value: string;
                                /** @description Another participant (with an address or id the person does not have) carries it too: never used. */
                                shared: boolean;
                                /** @description How many other participants carry it (counted up to 10). */
                                sharedWith: number;
                            }[];
                            /** @description Names found beside the addresses and ids: looked for only when confirmed (POST …/confirm), a shared one never. */
                            names: {
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
                        suppressions: {
                            id: string;
                            /** @enum {string} */
                            kind: "email" | "participant_id";
                            erasureId?: string;
                            createdBy: string;
                            createdAt: number;
                            liftedAt?: number;
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
                        id: string;
                        /** @enum {string} */
                        kind: "email" | "participant_id";
                        erasureId?: string;
                        createdBy: string;
                        createdAt: number;
                        liftedAt?: number;
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
            /** @description Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header */
            429: {
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
