import { ACCOUNT_ID, call, startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../helpers/emulator';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

describe('envelope, routing and errors', () => {
  test('an unknown route is a 404 envelope', async () => {
    const reply = await emu.api('GET', 'nope/nothing');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ result: null, success: false, errors: [{ code: 7000, message: expect.stringContaining('no route') }], messages: [] });
  });
});
