/** The types of `postject`'s API (the package ships none): the one function the plugin build calls. */
declare module 'postject' {
  /** Injects `data` into the executable `file` as the resource `name`, and flips the fuse `options.sentinelFuse`. */
  export function inject(
    file: string,
    name: string,
    data: Buffer,
    options?: { sentinelFuse?: string; machoSegmentName?: string; overwrite?: boolean },
  ): Promise<void>;
}
