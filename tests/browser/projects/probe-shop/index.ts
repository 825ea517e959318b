import * as pulumi from '@pulumi/pulumi';
import * as edgeguard from 'pulumi-edgeguard';

const config = new pulumi.Config();

// The shop's payment pages, the scripts authorized on them (each with why it is there, PCI DSS
// 6.4.3), the frames they may embed and where a card typed on them may go: as the test gives them.
const inventory = new edgeguard.ScriptInventory('shop-scripts', {
  zoneId: config.require('zoneId'),
  ...(JSON.parse(config.require('inventory')) as Omit<edgeguard.ScriptInventoryArgs, 'zoneId'>),
});

export const cspSources = inventory.cspSources;
