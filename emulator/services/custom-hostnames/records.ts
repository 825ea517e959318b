import { Collection } from '../../core/store';

/**
 * Custom hostnames (spec 2.9, 3; contract "Custom hostnames (zone level)"): the stored record, the
 * wire record and the collections this service owns.
 */

/** The two certificate authorities of the contract. */
export type CertificateAuthority = 'google' | 'lets_encrypt';

/** What a client may ask for: `""` lets the service choose (spec 2.9). */
export type RequestedCertificateAuthority = '' | CertificateAuthority;

/** Contract: the statuses of spec 3, in lowercase, plus `pending` (ownership not validated yet). */
export type CustomHostnameStatus = 'pending' | 'active' | 'moved' | 'blocked' | 'caa_error';

/** The certificate's state as `ssl.status` reports it. */
export type SslStatus = 'pending_validation' | 'active' | 'caa_error';

/** The `ssl` settings as the client asked for them. */
export interface RequestedSsl {
  method: 'txt' | 'http';
  type: 'dv';
  /** Kept as asked, not as chosen, so that `""` is chosen again on each evaluation. */
  certificate_authority: RequestedCertificateAuthority;
}

/**
 * A custom hostname as stored. The status is not stored: it is judged on every read from the DNS
 * and zone holds of the world, and only the facts that judgement cannot recompute are kept
 * (`validated_ca`, `moved_at_ms`).
 */
export interface StoredCustomHostname {
  id: string;
  zone_id: string;
  /** Lowercase; may start with `*.`. */
  hostname: string;
  ssl: RequestedSsl;
  /** Spec 2.9: `<vendor>_branding` (the wire name depends on the vendor token). */
  branding: boolean;
  /** Fixed at creation so the TXT name stays the same if the emulator's vendor token changes. */
  ownership_verification: { type: 'txt'; name: string; value: string };
  created_at: string;
  /**
   * The CA that issued the certificate, set when validation succeeded; `null` until then. Once
   * set, CAA is no longer consulted (the certificate exists) until a PATCH restarts validation.
   */
  validated_ca: CertificateAuthority | null;
  /** Emulator-clock time at which the hostname was first seen `moved`; `null` when it is not. */
  moved_at_ms: number | null;
}

/** The record on the wire (contract); `<vendor>_branding` is added by {@link customHostnameView}. */
export interface CustomHostnameView {
  id: string;
  hostname: string;
  status: CustomHostnameStatus;
  verification_errors: string[];
  ssl: {
    method: RequestedSsl['method'];
    type: RequestedSsl['type'];
    /** The CA in use, never `""`: for a requested `""` it is the one the service chose. */
    certificate_authority: CertificateAuthority;
    status: SslStatus;
  };
  ownership_verification: { type: 'txt'; name: string; value: string };
  created_at: string;
  [brandingField: string]: unknown;
}

/** What an evaluation says about a live record (see `validation.ts`). */
export interface Judgement {
  status: CustomHostnameStatus;
  verificationErrors: string[];
  certificateAuthority: CertificateAuthority;
  sslStatus: SslStatus;
}

/** Per-zone certificate issuance history (spec 8), kept durably so a restart keeps a block. */
export interface IssuanceState {
  zone_id: string;
  /** Emulator-clock times of successful creates still inside the window, oldest first. */
  issued_at_ms: number[];
  /** End of the current block; `null` when there is none. */
  blocked_until_ms: number | null;
}

export const customHostnames = new Collection<StoredCustomHostname>('custom_hostnames');
export const issuance = new Collection<IssuanceState>('custom_hostname_issuance');

/** The TXT owner name of ownership validation for `hostname` (a wildcard validates at its base name). */
export function ownershipRecordName(vendor: string, hostname: string): string {
  return `_${vendor}-custom-hostname.${hostname.replace(/^\*\./, '')}`;
}

/** The wire record of `record` as judged now. */
export function customHostnameView(
  record: StoredCustomHostname,
  judgement: Judgement,
  vendor: string,
): CustomHostnameView {
  return {
    id: record.id,
    hostname: record.hostname,
    status: judgement.status,
    verification_errors: judgement.verificationErrors,
    ssl: {
      method: record.ssl.method,
      type: record.ssl.type,
      certificate_authority: judgement.certificateAuthority,
      status: judgement.sslStatus,
    },
    [`${vendor}_branding`]: record.branding,
    ownership_verification: { ...record.ownership_verification },
    created_at: record.created_at,
  };
}

/**
 * The record in the vendor's dialect: `ssl.<vendor>_branding` in place of the top-level field, and
 * the statuses of its schema, which has no `caa_error`: a hostname whose CAA records forbid the CA
 * is `pending` with `ssl.status` `pending_validation`, and the reason in `ssl.validation_errors`.
 */
export function vendorCustomHostnameView(record: StoredCustomHostname, judgement: Judgement, vendor: string) {
  const view = customHostnameView(record, judgement, vendor);
  const caa = judgement.status === 'caa_error';
  return {
    id: view.id,
    hostname: view.hostname,
    status: caa ? 'pending' : view.status,
    verification_errors: view.verification_errors,
    ssl: {
      ...view.ssl,
      status: view.ssl.status === 'caa_error' ? 'pending_validation' : view.ssl.status,
      [`${vendor}_branding`]: record.branding,
      ...(caa ? { validation_errors: judgement.verificationErrors.map((message) => ({ message })) } : {}),
    },
    ownership_verification: view.ownership_verification,
    created_at: view.created_at,
  };
}

/** List order of the contract: creation time, ties broken by id, so paging is stable. */
export function byCreationThenId(a: StoredCustomHostname, b: StoredCustomHostname): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}
