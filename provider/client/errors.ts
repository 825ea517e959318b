import { inspect } from 'node:util';

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

/**
 * Root of every error the client throws.
 *
 * An error reads as its name, message and stack wherever it is printed, not as a dump of its data
 * (status, request, headers, ...): `util.inspect`, which Node and the Pulumi engine print errors
 * with, shows the stack alone, and the data is kept in non-enumerable properties
 * ({@link EdgeGuardError.keep}), which `JSON.stringify` and spreads leave out. Node would print an
 * `errors` array and a `cause` whatever their enumerability, hence the custom inspect. The client
 * sets no `cause`: its messages carry the cause's code and text.
 */
export class EdgeGuardError extends Error {
  override name = 'EdgeGuardError';

  /** What `util.inspect` prints: the stack, which begins with the name and the message. */
  [inspect.custom](): string {
    return this.stack ?? `${this.name}: ${this.message}`;
  }

  /** Sets `values` as read-only properties that are not enumerable. Subclasses declare them with `declare readonly`. */
  protected keep<K extends keyof this>(values: Pick<this, K>): void {
    for (const [key, value] of Object.entries(values))
      Object.defineProperty(this, key, { value, enumerable: false, writable: false, configurable: true });
  }
}

/** The service answered with a failure envelope (or a failure status). */
export class APIError extends EdgeGuardError {
  override name = 'APIError';
  /** The HTTP status. */
  declare readonly status: number;
  /** The envelope's `errors[]`. */
  declare readonly errors: readonly ApiErrorEntry[];
  /** What was asked. */
  declare readonly request: RequestDescription;
  /** The response's headers (`retry-after`, ...). */
  declare readonly headers: Readonly<Record<string, string | string[] | undefined>>;

  constructor(
    status: number,
    errors: readonly ApiErrorEntry[],
    request: RequestDescription,
    headers: Readonly<Record<string, string | string[] | undefined>> = {},
  ) {
    const detail =
      errors.length > 0 ? errors.map((e) => `[${e.code}] ${e.message}`).join('; ') : 'no error details in the response';
    super(`${request.operation} (${request.method} ${request.path}) failed: HTTP ${status}: ${detail}`);
    this.keep({ status, errors, request, headers });
  }

  /** Whether one of the API's error entries has `code`. */
  hasCode(code: number): boolean {
    return this.errors.some((e) => e.code === code);
  }

  /** The right subclass for `status`. */
  static of(
    status: number,
    errors: readonly ApiErrorEntry[],
    request: RequestDescription,
    headers: Record<string, string | string[] | undefined> = {},
  ): APIError {
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
  /** What was asked. */
  declare readonly request: RequestDescription;
  /** Why there was no answer, as the system said it: `ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:1)`. */
  declare readonly causeMessage: string;
  /** The base address the request went to (never a secret), so the message says where to look. */
  declare readonly baseUrl: string | undefined;
  /** The system error code (`ECONNREFUSED`, `ECONNRESET`, ...), if there was one. */
  declare readonly code: string | undefined;

  constructor(request: RequestDescription, causeMessage: string, baseUrl?: string, code?: string) {
    super(
      `${request.operation} (${request.method} ${request.path}) got no response: ${causeMessage}` +
        (baseUrl ? `; check that the service at ${baseUrl} is reachable` : ''),
    );
    this.keep({ request, causeMessage, baseUrl, code });
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
