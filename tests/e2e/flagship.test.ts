import { REPO, engineStack, type EngineStack } from '../helpers/engine';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/** The root project (the flagship program) through the real engine. */

const TOKEN = 'e2e-flagship-token-3f9a27c1';
let emu: TestEmulator;
let engine: EngineStack;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
  engine = await engineStack({ projectDir: REPO, inPlace: true, emu, token: TOKEN });
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

test('preview shows the creates, up succeeds, and a second preview shows no changes', async () => {
  const preview = await engine.preview();
  expect(preview.changeSummary).toEqual({ create: 7 });
  const up = await engine.up();
  expect(up.summary.result).toBe('succeeded');
  expect(up.summary.resourceChanges).toEqual({ create: 7 });
  const again = await engine.preview({ expectNoChanges: true });
  expect(again.changeSummary).toEqual({ same: 7 });
}, 180_000);
