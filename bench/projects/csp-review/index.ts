import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

/**
 * `count` allow policies, on hosts h0.example.com, h1.example.com, ..., each governing scripts
 * (ten CDNs) and connections (ten APIs). The `after` variant adds a script source to every one (a
 * change the review judges in full, and one that blocks nothing more).
 */

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const count = config.requireNumber('count');
const variant = config.require('variant');

const cdns = Array.from({ length: 10 }, (_, i) => `cdn${i}.example.net`).join(' ');
const apis = Array.from({ length: 10 }, (_, i) => `api${i}.example.net`).join(' ');
const value = `script-src 'self' ${cdns}${variant === 'after' ? ' cdn-new.example.net' : ''}; connect-src 'self' ${apis}`;

for (let i = 0; i < count; i++) {
  new edgeguard.CspPolicy(`policy-${i}`, {
    zoneId,
    description: `bench policy ${i}`,
    action: 'allow',
    expression: `http.host eq "h${i}.example.com"`,
    value,
  });
}

export const policies = count;
