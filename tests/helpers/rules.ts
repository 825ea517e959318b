import type { ParseResult } from '../../rules/result';

/**
 * What every rule parser promises of a refusal: the offending part, its position (pointing at
 * that part in the text the user wrote), a reason, and a message that says all of it.
 */
export function expectRefusal(
  result: ParseResult<unknown>,
  text: string,
  part: string,
  position: number,
  reason: string,
): void {
  if (result.ok) throw new Error(`accepted ${text}`);
  expect(result.error.part).toBe(part);
  expect(result.error.position).toBe(position);
  expect(result.error.reason).toContain(reason);
  expect(result.error.message).toContain(`at position ${position}: ${result.error.reason}`);
  expect(text.slice(position, position + part.length)).toBe(part);
}
