import { listAlertPolicies, type AlertPolicy } from '../client/notifications';
import { listCustomHostnames, type CustomHostname } from '../client/custom-hostnames';
import type { HttpClient } from '../client/http';
import { listPools, type Pool } from '../client/load-balancing';
import { getSettings, listPolicies, type PageSecurityPolicy, type PageSecuritySettings } from '../client/page-security';

/**
 * What `edgeguard-import` reads from the service: everything of a zone, and optionally of an
 * account, that EdgeGuard's resources can declare, as the client reads it. Reading only: no
 * request here writes.
 */

/** A zone's objects. */
export interface LiveZone {
  zoneId: string;
  pageSecurity: PageSecuritySettings;
  cspPolicies: PageSecurityPolicy[];
  customHostnames: CustomHostname[];
}

/** An account's objects. */
export interface LiveAccount {
  accountId: string;
  /** Every notification policy, of any alert type. */
  alertPolicies: AlertPolicy[];
  /** The pools that still carry a legacy `notification_email`, in the list's order (name). */
  legacyPools: Pool[];
}

/** Everything read for one run. */
export interface Live {
  zone: LiveZone;
  /** Absent when no account was asked for. */
  account?: LiveAccount;
}

/** Reads the zone's page security setting, CSP policies and custom hostnames. */
export async function readZone(http: HttpClient, zoneId: string): Promise<LiveZone> {
  const pageSecurity = await getSettings(http, zoneId);
  const cspPolicies = await listPolicies(http, zoneId);
  const customHostnames: CustomHostname[] = [];
  for await (const record of listCustomHostnames(http, zoneId)) customHostnames.push(record);
  return { zoneId, pageSecurity, cspPolicies, customHostnames };
}

/** Reads the account's notification policies and the pools that still have a legacy e-mail. */
export async function readAccount(http: HttpClient, accountId: string): Promise<LiveAccount> {
  const alertPolicies = await listAlertPolicies(http, { accountId });
  const legacyPools = (await listPools(http, { accountId })).filter((pool) => pool.notification_email !== '');
  return { accountId, alertPolicies, legacyPools };
}
