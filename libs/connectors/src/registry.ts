import type { Connector } from './connector';
import { gongConnector } from './gong/connector';
import { intercomConnector } from './intercom/connector';
import { slackConnector } from './slack/connector';
import { zendeskConnector } from './zendesk/connector';

/** Every connector, by kind. */
export const CONNECTORS: ReadonlyMap<string, Connector> = new Map<string, Connector>([
  [zendeskConnector.kind, zendeskConnector],
  [gongConnector.kind, gongConnector],
  [intercomConnector.kind, intercomConnector as Connector],
  [slackConnector.kind, slackConnector as Connector],
]);

export const CONNECTOR_KINDS = [...CONNECTORS.keys()];
