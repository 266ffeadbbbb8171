import { isIP } from 'node:net';
import type { Config } from './index';

/** A development default still on where the service is reachable by others: which setting, and what to do. */
export interface ProductionWarning {
  setting: string;
  message: string;
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}

/**
 * Whether the service is set up for others to reach: it listens beyond loopback, or clients reach it
 * over https (PUBLIC_BASE_URL behind a proxy that terminates TLS).
 */
export function servesOthers(config: Pick<Config, 'host' | 'publicBaseUrl'>): boolean {
  return !isLoopback(config.host) || config.publicBaseUrl?.startsWith('https://') === true;
}

/**
 * The development defaults that must not stay on in production, one warning each, logged at start;
 * none when the service serves loopback only (the embedded setup on a laptop).
 */
export function productionWarnings(config: Pick<Config, 'host' | 'publicBaseUrl' | 'smtpUrl' | 'metricsToken' | 'fetchAllowLoopback' | 'connectionsKey'>): ProductionWarning[] {
  if (!servesOthers(config)) return [];
  const warnings: ProductionWarning[] = [];
  if (!config.smtpUrl) {
    warnings.push({ setting: 'SMTP_URL', message: 'SMTP_URL is not set: sign-in codes are written to the log instead of mailed, so whoever reads the log can sign in as anyone. Set SMTP_URL.' });
  }
  if (!config.metricsToken) {
    warnings.push({ setting: 'METRICS_TOKEN', message: 'METRICS_TOKEN is not set: /metrics is open to anyone who reaches the service. Set METRICS_TOKEN, or keep /metrics off the proxy.' });
  }
  if (config.fetchAllowLoopback) {
    warnings.push({ setting: 'FETCH_ALLOW_LOOPBACK', message: 'FETCH_ALLOW_LOOPBACK is on: URLs sent by users (attachments, connections, client metadata) may reach services on this machine. Turn it off outside tests.' });
  }
  if (!config.connectionsKey) {
    warnings.push({ setting: 'CONNECTIONS_KEY', message: 'CONNECTIONS_KEY is not set: the key that seals connections\' credentials is a default kept in the database beside them, so a copy of the database opens them. Set CONNECTIONS_KEY and keep it apart from the database.' });
  }
  return warnings;
}
