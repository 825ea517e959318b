/**
 * One error tree for every call to the service (modelled on the vendor's official SDK): callers
 * branch on classes, never on message text. Messages name the operation, the HTTP status and the
 * API's error codes and messages; they never contain a credential, because nothing that builds
 * them is given one.
 */

/** One entry of the envelope's `errors[]`. */
export interface ApiErrorEntry {
  code: number;
  message: string;
}

/** What was asked, for messages: an operation name and the request line without credentials. */
export interface RequestDescription {
  /** A name a user recognises, like `create CSP policy`. */
  operation: string;
  method: string;
  /** The path below the base address, with its query. */
  path: string;
}

/** Root of every error the client throws. */
export class EdgeGuardError extends Error {
  override name = 'EdgeGuardError';
}

/** The service answered with a failure envelope (or a failure status). */
export class APIError extends EdgeGuardError {
  override name = 'APIError';
  constructor(
    readonly status: number,
    readonly errors: readonly ApiErrorEntry[],
    readonly request: RequestDescription,
    readonly headers: Readonly<Record<string, string | string[] | undefined>> = {},
  ) {
    const detail = errors.length > 0 ? errors.map((e) => `[${e.code}] ${e.message}`).join('; ') : 'no error details in the response';
    super(`${request.operation} (${request.method} ${request.path}) failed: HTTP ${status}: ${detail}`);
  }

  /** Whether one of the API's error entries has `code`. */
  hasCode(code: number): boolean {
    return this.errors.some((e) => e.code === code);
  }

  /** The right subclass for `status`. */
  static of(status: number, errors: readonly ApiErrorEntry[], request: RequestDescription, headers: Record<string, string | string[] | undefined> = {}): APIError {
    const Class =
      status === 400
        ? BadRequestError
        : status === 401
          ? AuthenticationError
          : status === 403
            ? PermissionDeniedError
            : status === 404
              ? NotFoundError
              : status === 409
                ? ConflictError
                : status === 429
                  ? RateLimitError
                  : status >= 500
                    ? InternalServerError
                    : APIError;
    return new Class(status, errors, request, headers);
  }
}

export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
}
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/** The request did not get an answer: refused, reset, or the connection failed. */
export class APIConnectionError extends EdgeGuardError {
  override name = 'APIConnectionError';
  constructor(
    readonly request: RequestDescription,
    readonly causeMessage: string,
    /** The base address the request went to (never a secret), so the message says where to look. */
    readonly baseUrl?: string,
  ) {
    super(
      `${request.operation} (${request.method} ${request.path}) got no response: ${causeMessage}` +
        (baseUrl ? `; check that the service at ${baseUrl} is reachable, or set edgeguard:baseUrl (or EDGEGUARD_BASE_URL) to its address` : ''),
    );
  }
}

/** One attempt took longer than its timeout. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
}

/** The answer was not the envelope or result the contract promises. */
export class APIResponseError extends EdgeGuardError {
  override name = 'APIResponseError';
}
