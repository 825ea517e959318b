import * as fs from 'node:fs';
import * as path from 'node:path';
import * as rpc from '@pulumi/pulumi/runtime/rpc';
import * as signatures from '../../../provider/pack/pulumi-signatures';

/**
 * The pack's start (`provider/pack/start.ts`) gives `@pulumi/policy` `pulumi-signatures.ts` in
 * place of `@pulumi/pulumi/runtime/rpc`: what it uses of that module must be the SDK's.
 */
describe("the pack's stand-in for @pulumi/pulumi/runtime/rpc", () => {
  test('holds the SDK signatures @pulumi/policy reads and writes properties with', () => {
    expect({ ...signatures }).toEqual({
      specialSigKey: rpc.specialSigKey,
      specialAssetSig: rpc.specialAssetSig,
      specialArchiveSig: rpc.specialArchiveSig,
      specialSecretSig: rpc.specialSecretSig,
    });
  });

  test('holds every constant of that module @pulumi/policy uses', () => {
    const used = new Set<string>();
    const folder = path.dirname(require.resolve('@pulumi/policy/package.json'));
    for (const file of fs.readdirSync(folder).filter((name) => name.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(folder, file), 'utf8');
      const name = /const (\w+) = require\("@pulumi\/pulumi\/runtime\/rpc"\)/.exec(text)?.[1];
      if (name === undefined) continue;
      for (const match of text.matchAll(new RegExp(`\\b${name}\\.(\\w+)`, 'g'))) used.add(match[1]!);
    }
    expect([...used].sort()).toEqual(Object.keys(signatures).sort());
  });
});
