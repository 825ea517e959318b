import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { unknownCheckingProxy, type PolicyResource, type StackValidationArgs } from '@pulumi/policy';
import { REVIEW_OUTPUT_ENV, type PackOutput } from '../../provider/review/pack-analysis';
import { TEST_TOKEN, type TestEmulator } from './emulator';

/**
 * The policy pack's stack policies called in the test's own process, as the engine calls them in
 * the pack's: resources as @pulumi/policy hands them over, and the environment the pack reads (the
 * service's settings, and where it writes its output for `edgeguard-review`).
 */

/** The environment of pack runs against a test emulator, from {@link packEnvironment}. */
export interface PackEnvironment {
  /** A temporary folder of the test file's own. */
  dir: string;
  /** The output the pack wrote last, for `edgeguard-review`. */
  output(): PackOutput;
  /** Puts the process's environment back as it was and removes the folder. */
  restore(): void;
}

/**
 * Points the pack at `emu` ({@link TEST_TOKEN}) and its output at a new temporary folder named
 * after `prefix`, until `restore`.
 */
export function packEnvironment(emu: TestEmulator, prefix: string): PackEnvironment {
  const saved = { ...process.env };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const output = path.join(dir, 'review.json');
  process.env.EDGEGUARD_BASE_URL = emu.baseUrl;
  process.env.EDGEGUARD_API_TOKEN = TEST_TOKEN;
  process.env[REVIEW_OUTPUT_ENV] = output;
  return {
    dir,
    output: () => JSON.parse(fs.readFileSync(output, 'utf8')) as PackOutput,
    restore: () => {
      process.env = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An enabled CspPolicy of the dynamic provider on `host`, as @pulumi/policy hands it to a stack policy. */
export function cspPolicyResource(
  name: string,
  policy: { zoneId: string; host: string; value: string; action?: string },
): PolicyResource {
  return {
    type: 'pulumi-nodejs:dynamic/edgeguard:CspPolicy',
    urn: `urn:pulumi:dev::shop::pulumi-nodejs:dynamic/edgeguard:CspPolicy::${name}`,
    name,
    props: unknownCheckingProxy({
      zoneId: policy.zoneId,
      action: policy.action ?? 'allow',
      expression: `http.host eq "${policy.host}"`,
      value: policy.value,
      enabled: true,
    }),
  } as unknown as PolicyResource;
}

/** A stack policy's arguments: `resources`, and no configuration of the pack. */
export function stackArgs(resources: PolicyResource[]): StackValidationArgs {
  return { resources, getConfig: () => ({}) } as unknown as StackValidationArgs;
}
