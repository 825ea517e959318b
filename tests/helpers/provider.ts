import { configure } from '../../provider/dynamic/context';
import { TEST_TOKEN, type TestEmulator } from './emulator';

/**
 * Points the provider runtime of this test process at `emu`, the way the Pulumi engine does it:
 * through `configure` with the stack's `edgeguard:*` configuration.
 */
export async function configureProvider(emu: TestEmulator, extra: Record<string, string> = {}): Promise<void> {
  const config: Record<string, string> = {
    'edgeguard:baseUrl': emu.baseUrl,
    'edgeguard:apiToken': TEST_TOKEN,
    ...extra,
  };
  await configure({
    config: {
      get: (key: string) => config[key],
      require: (key: string) => {
        const value = config[key];
        if (value === undefined) throw new Error(`missing config ${key}`);
        return value;
      },
    },
  });
}
