// What the viewer's redaction of a vault's text is made with (the artifact index's secrets column,
// the screen views of sealed and running captures): the capture's redaction stage with the vault's
// allowlist, read at each call. An allowlist the capture would refuse is not used: the built-in
// rules alone redact more, never less.
import { AllowlistFileError, loadRedaction } from '../../redact/policy';
import { secretsKey, type SecretsSetup } from './build-secrets';

export async function vaultSecretsSetup(root: string): Promise<SecretsSetup> {
  try {
    const { source, info } = await loadRedaction(root);
    return { allowlist: source, key: secretsKey(info.allowlist?.sha256 ?? null) };
  } catch (err) {
    if (err instanceof AllowlistFileError) return { allowlist: null, key: secretsKey('unusable') };
    throw err;
  }
}
