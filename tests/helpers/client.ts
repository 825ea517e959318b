import { z } from 'zod';
import type { HttpClient } from '../../provider/client/http';
import { ZONE_ID } from './emulator';

/**
 * One cheap call of the API through our own client: GET the page security settings of `zoneId`
 * (the fixture's zone by default), for the tests that count calls or attempts.
 */
export function getSettings(http: HttpClient, zoneId: string = ZONE_ID) {
  return http.send({
    operation: 'get settings',
    method: 'GET',
    path: `zones/${zoneId}/page_security`,
    result: z.object({ enabled: z.boolean() }),
  });
}
