/**
 * Errors are values: anything in the emulator throws an {@link ApiError} and one error handler
 * (see `app.ts`) turns it into the vendor's envelope. Codes are collected here so that a reader
 * (and a test) can see every code the emulator can answer with.
 */

/** One entry of the envelope's `errors[]`. */
export interface ErrorEntry {
  code: number;
  message: string;
}

/** Error codes the emulator answers with. The contract fixes some; the rest are our choice. */
export const ErrorCode = {
  /** Contract: no or bad credentials (HTTP 401). */
  authentication: 10000,
  /** Credentials that are valid but may not act on this zone/account, or the wrong kind (403). */
  forbidden: 9109,
  /** Contract: malformed identifier in a path, or unknown zone/account. */
  invalidZoneOrAccount: 7003,
  /** No route for the URI (404). */
  noRoute: 7000,
  /** The URI exists but not with this method (405). */
  methodNotAllowed: 7001,
  /** A body that is not JSON, or a JSON body that does not parse (415/400). */
  malformedBody: 6007,
  /** Content-Type other than JSON for a request with a body (415). */
  unsupportedMediaType: 6003,
  /** A body over the size limit (413). */
  bodyTooLarge: 6008,
  /** A field of the body or query is invalid (400); the message names it. */
  invalidInput: 1004,
  /** Unknown objects (404), one code per kind. */
  scriptNotFound: 1001,
  connectionNotFound: 1002,
  cookieNotFound: 1003,
  policyNotFound: 1005,
  poolNotFound: 1008,
  alertPolicyNotFound: 1009,
  customHostnameNotFound: 1436,
  /** Contract: a custom hostname that already exists in the zone (409). */
  duplicateCustomHostname: 1406,
  /** Contract/spec 7: hostname over 64 characters without branding. */
  hostnameTooLong: 1469,
  /** Contract/spec 8: certificate issuance rate exceeded (429). */
  issuanceRateLimited: 971,
  /** Contract "API rate limit": a credential past its calls per window, or blocked (429); the issuance limit's code. */
  apiRateLimited: 971,
  /** A real or injected server fault (5xx). */
  internal: 1000,
} as const;

/** An error answered as the vendor's envelope with `status`; `headers` are added to the reply. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ErrorEntry[],
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(errors.map((e) => `${e.code}: ${e.message}`).join('; '));
    this.name = 'ApiError';
  }
}

/** 400 for one bad field: the message is `<field>: <reason>`. */
export function invalidField(field: string, reason: string, code: number = ErrorCode.invalidInput): ApiError {
  return new ApiError(400, [{ code, message: `${field}: ${reason}` }]);
}

/** 404 for an object that does not exist (or no longer does). */
export function notFound(kind: string, id: string, code: number): ApiError {
  return new ApiError(404, [{ code, message: `${kind} ${id} not found` }]);
}
