import { parseScriptInventory, type ScriptInventory } from '../../rules/inventory';

/** The inventory of `pages` and `scripts` as the rules parse it; throws with the rules' message when they refuse it. */
export function inventoryOf(pages: string[], scripts: Array<Record<string, string>> = []): ScriptInventory {
  const parsed = parseScriptInventory({ pages, scripts });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}
