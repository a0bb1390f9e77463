/**
 * An incremental hash of the raw input, supplied by the platform (Node's crypto in the CLI, Web
 * Crypto elsewhere) so that `shared/` stays free of platform APIs.
 */
export interface Digest {
  update(bytes: Uint8Array): void;
  /** Lower-case hex digest; called once, after the last update. */
  digest(): string;
}
