import type { Connector } from './connector';
import { zendeskConnector } from './zendesk/connector';

/** Every connector, by kind. */
export const CONNECTORS: ReadonlyMap<string, Connector> = new Map<string, Connector>([[zendeskConnector.kind, zendeskConnector]]);

export const CONNECTOR_KINDS = [...CONNECTORS.keys()];
