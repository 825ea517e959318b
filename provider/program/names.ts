/**
 * The Pulumi names `edgeguard-import` gives the objects it declares: readable (made from what the
 * object is: a policy's description, a hostname, a notification's name), stable (the same objects
 * give the same names on every run, whatever order the service lists them in), unique within a
 * kind (the engine's requirement), and valid (lower-case letters, digits and hyphens, at most
 * {@link MAX_NAME} characters, so that a declaration's first line stays within the print width).
 */

/** The longest name given: room for the longest kind (`hostname`), a hyphen and a whole id. */
export const MAX_NAME = 41;
/** The characters of an id added to a name that two objects would share. */
const ID_SUFFIX = 8;

/** `text` as lower-case words joined by hyphens, cut at a word boundary to at most `max` characters. */
export function slug(text: string, max: number): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  let result = '';
  for (const word of words) {
    const longer = result === '' ? word : `${result}-${word}`;
    if (longer.length > max) return result === '' ? word.slice(0, max) : result;
    result = longer;
  }
  return result;
}

/** One object to name. */
export interface Nameable {
  /** The object's id: it breaks ties, so it must be unique. */
  id: string;
  /** What the name is made from; when it has no letter or digit, `fallback` is used. */
  text: string;
}

/**
 * A name per object: `<kind>-<slug of its text>`; objects whose names would be the same get
 * `-<first characters of the id>` as well, as many characters as make every name unique.
 */
export function uniqueNames(kind: string, fallback: string, items: readonly Nameable[]): Map<string, string> {
  const room = MAX_NAME - kind.length - 1;
  const base = (item: Nameable, max: number) => `${kind}-${slug(item.text, max) || slug(fallback, max)}`;
  const bases = new Map(items.map((item) => [item.id, base(item, room)]));
  const counts = new Map<string, number>();
  for (const name of bases.values()) counts.set(name, (counts.get(name) ?? 0) + 1);
  const maxId = Math.max(ID_SUFFIX, ...items.map((item) => item.id.length));
  for (let length = ID_SUFFIX; length <= maxId; length += 1) {
    const names = new Map(
      items.map((item) => {
        const plain = bases.get(item.id)!;
        if (counts.get(plain) === 1) return [item.id, plain];
        const suffix = slug(item.id, length);
        const left = room - suffix.length - 1;
        return [item.id, left > 0 ? `${base(item, left)}-${suffix}` : `${kind}-${suffix}`];
      }),
    );
    if (new Set(names.values()).size === items.length) return names;
  }
  // Only a name made from text that holds another object's id can get here: number them all.
  return new Map(items.map((item, index) => [item.id, `${kind}-${index + 1}`]));
}
