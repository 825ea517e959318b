/**
 * Spec 3: the statuses the detected lists return, one listing each (`active` when none is asked
 * for). A module that loads nothing, so that the read helpers take it without loading the client
 * (and zod) when the package's root entry point is loaded.
 */
export const DETECTED_STATUSES = ['active', 'infrequent'] as const;
