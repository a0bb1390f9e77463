import packageJson from '../../package.json' with { type: 'json' };

/** The version `airlock --version` prints: package.json's, bundled in at build time. */
export const AIRLOCK_VERSION: string = packageJson.version;
