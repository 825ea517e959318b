/**
 * Settles once `reached` holds, asked again every `everyMs`; throws the message `missing` gives
 * once `withinMs` have passed without it. A test waits so for an event it cannot be handed as a
 * promise (a request in the emulator's log, a line the engine logged, a process's state), never a
 * fixed time, on a deadline a machine other work keeps busy still meets.
 */
export async function until(
  reached: () => boolean | Promise<boolean>,
  withinMs: number,
  missing: () => string | Promise<string>,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await reached())) {
    if (Date.now() > deadline) throw new Error(await missing());
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
