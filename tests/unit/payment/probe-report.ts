import { probeReport } from '../../../provider/payment/probe';
import type { ProbePage, ProbeReport } from '../../../provider/payment/probe-schema';

/** The report of a probe of one inventory whose pages are `pages`, as the unit tests of the probe build it. */
export function reportOf(pages: ProbePage[], zoneId: string, strict = false): ProbeReport {
  return probeReport({
    project: 'shop',
    stack: 'prod',
    toolVersion: '0.1.0',
    browser: 'chrome/156',
    staging: { resolve: [], insecure: false },
    settings: { devices: ['desktop', 'phone'], loads: 1, settleSeconds: 5, cardLast4: '1111', submit: false, strict },
    evaluatedAt: '2026-11-27T10:00:00.000Z',
    inventories: [{ name: 'checkout-scripts', urn: 'urn:inventory', zoneId, pages }],
  });
}
