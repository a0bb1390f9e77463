/** Why a vault operation was refused; the CLI maps these to exit codes and messages. */
export type VaultErrorCode =
  | 'no-vault'
  | 'bad-location'
  | 'not-a-directory'
  | 'insecure'
  | 'not-writable'
  | 'bad-id'
  | 'bad-ref'
  | 'bad-record'
  | 'not-found'
  | 'exists'
  | 'raw-missing'
  | 'too-large'
  | 'full';

/**
 * A vault error whose message is safe to print: every caller-supplied fragment in it has been
 * passed through terminalSafeLine by the code that throws it.
 */
export class VaultError extends Error {
  override readonly name = 'VaultError';
  constructor(
    readonly code: VaultErrorCode,
    message: string,
  ) {
    super(message);
  }
}
