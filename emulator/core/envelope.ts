import type { ErrorEntry } from './errors';

/** Spec 2.1: `result_info` of list responses. */
export interface ResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages: number;
}

/** Spec 2.1: the response envelope of every operation. */
export interface Envelope<T> {
  result: T | null;
  success: boolean;
  errors: ErrorEntry[];
  messages: unknown[];
  result_info?: ResultInfo;
}

/** A success envelope; `resultInfo` only for list responses. */
export function success<T>(result: T, resultInfo?: ResultInfo): Envelope<T> {
  const envelope: Envelope<T> = { result, success: true, errors: [], messages: [] };
  if (resultInfo) envelope.result_info = resultInfo;
  return envelope;
}

/**
 * {@link success}'s envelope as the bytes of its JSON, around a result that is JSON text already (a
 * list whose items' JSON is kept between requests): the same fields in the same order.
 */
export function successBody(resultJson: string, resultInfo?: ResultInfo): Buffer {
  const rest = JSON.stringify(success(null, resultInfo)).slice('{"result":null'.length);
  return Buffer.from(`{"result":${resultJson}${rest}`, 'utf8');
}

/** Contract: a failure has `success: false`, `result: null` and at least one error. */
export function failure(errors: ErrorEntry[]): Envelope<null> {
  return { result: null, success: false, errors, messages: [] };
}
