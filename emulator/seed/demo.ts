import type { SeedDocument } from './seed';

/** The demo seed: placeholder until the services land. */
export function demoSeed(): SeedDocument {
  return {};
}
