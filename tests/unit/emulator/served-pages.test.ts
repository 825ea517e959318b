import { ServedPages } from '../../../emulator/core/served-pages';

/** The emulator's kept list pages (`emulator/core/served-pages.ts`): built once per version of the list, within a budget. */
describe('ServedPages', () => {
  const counting = () => {
    const built: string[] = [];
    const build = (request: string, bytes: number) => () => {
      built.push(request);
      return Buffer.alloc(bytes, request);
    };
    return { built, build };
  };

  test('a page asked again at the same version is the one built; a new version builds every page anew', () => {
    const pages = new ServedPages(1000);
    const { built, build } = counting();
    expect(pages.body(1, 'a', build('a', 10)).toString()).toBe('a'.repeat(10));
    expect(pages.body(1, 'a', build('a', 10)).toString()).toBe('a'.repeat(10));
    pages.body(1, 'b', build('b', 10));
    expect(built).toEqual(['a', 'b']);
    pages.body(2, 'a', build('a', 10));
    pages.body(2, 'b', build('b', 10));
    pages.body(1, 'a', build('a', 10));
    expect(built).toEqual(['a', 'b', 'a', 'b', 'a']);
  });

  test('pages beyond the budget are served and not kept; those kept stay', () => {
    const pages = new ServedPages(25);
    const { built, build } = counting();
    for (const request of ['a', 'b', 'c', 'a', 'b', 'c']) pages.body(1, request, build(request, 10));
    expect(built).toEqual(['a', 'b', 'c', 'c']);
  });
});
