/**
 * The bodies of the pages of a list served since the list last changed, by request (its path and
 * query), so that a client that pages through the same long list again is answered without building
 * each page anew. A review lists every script of a host, and a stack's every review lists the same:
 * at 200,000 scripts, building and encoding the pages (5 ms each) took 1.2 s of CPU per review,
 * which the emulator took from the review it served on a two-core machine, where a service's CPU
 * is not the user's (bench/RESULTS.md, issue 30). A page is built once per version of its list and
 * kept while the pages kept hold less than the budget; a change of the list drops them all.
 */
export class ServedPages {
  private version: number | undefined;
  private readonly bodies = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly budgetBytes: number) {}

  /** The body of the page `request` named at the list's `version`, built by `build` unless kept. */
  body(version: number, request: string, build: () => Buffer): Buffer {
    if (version !== this.version) {
      this.bodies.clear();
      this.bytes = 0;
      this.version = version;
    }
    let body = this.bodies.get(request);
    if (body === undefined) {
      body = build();
      if (this.bytes + body.length <= this.budgetBytes) {
        this.bodies.set(request, body);
        this.bytes += body.length;
      }
    }
    return body;
  }
}
