import { createHash, randomBytes } from 'node:crypto';

/** Contract: identifiers are 32 lowercase hexadecimal characters. */
const ID_PATTERN = /^[0-9a-f]{32}$/;

/** A new random identifier. */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

/** Whether `value` is a well-formed identifier. */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

/**
 * An identifier derived from `parts`, so that a seed applied twice names the same objects and
 * upserts them instead of adding copies.
 */
export function stableId(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);
}

/** Hex SHA-256, used to keep credentials out of the data directory. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
