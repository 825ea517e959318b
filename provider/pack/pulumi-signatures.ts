/**
 * What `@pulumi/policy` uses of `@pulumi/pulumi/runtime/rpc`: the signatures of the engine's
 * special property values (assets, archives, secrets), with which it reads and writes a resource's
 * properties. That module loads the SDK's runtime, its settings and its logging first: 90 ms of the
 * 300 ms the engine waits for the pack before it runs the program, at every preview with the pack
 * (bench/RESULTS.md, issue 30). `./start.ts` gives `@pulumi/policy` this module instead. The
 * values are the engine's wire protocol; a unit test holds them equal to the SDK's.
 */
export const specialSigKey = '4dabf18193072939515e22adb298388d';
export const specialAssetSig = 'c44067f5952c0a294b673a41bacd8c17';
export const specialArchiveSig = '0def7320c3a5731c473e5ecbe6d01bc7';
export const specialSecretSig = '1b47061264138c4ac30d75fd1eb44270';
