// Electron security checklist #19 (check which fuses you can change).
// electron-builder afterPack hook: flips the Electron fuses of the packed binary with
// @electron/fuses. Every fuse of the V1 wire is named (strictlyRequireAllFuses), so a new fuse
// in an Electron upgrade fails the build until someone decides it.
// CommonJS because electron-builder require()s its hooks.
/* global require, module, console */
/* eslint-disable @typescript-eslint/no-require-imports */
const { join } = require('node:path');
const { flipFuses, FuseVersion, FuseV1Options } = require('@electron/fuses');

/** The fuse settings, by name (test/app/main/packaging.test.ts checks them). */
const FUSES = {
  // No ELECTRON_RUN_AS_NODE: the app binary cannot be used as a plain Node interpreter.
  RunAsNode: false,
  // Cookies and other session storage encrypted with the OS keychain.
  EnableCookieEncryption: true,
  // NODE_OPTIONS is ignored (no --require of foreign code through the environment).
  EnableNodeOptionsEnvironmentVariable: false,
  // --inspect / --inspect-brk are ignored (no debugger attached to main from the command line).
  EnableNodeCliInspectArguments: false,
  // app.asar is checked against the integrity hash embedded in the binary (macOS/Windows).
  EnableEmbeddedAsarIntegrityValidation: true,
  // Only app.asar is loaded: no unpacked app/ directory beside it can replace our code.
  OnlyLoadAppFromAsar: true,
  // Default V8 snapshot (no browser-specific snapshot shipped).
  LoadBrowserProcessSpecificV8Snapshot: false,
  // file:// gets no extra privileges (we never use file://: the app is served from airlock://).
  GrantFileProtocolExtraPrivileges: false,
  // Electron's default: WebAssembly trap handlers on.
  WasmTrapHandlers: true,
};

/** The @electron/fuses config for a platform/arch. */
function fuseConfig(platform, arch) {
  const config = { version: FuseVersion.V1, strictlyRequireAllFuses: true, resetAdHocDarwinSignature: platform === 'darwin' && arch === 'arm64' };
  for (const [name, value] of Object.entries(FUSES)) {
    if (!(name in FuseV1Options)) throw new Error(`fuses: unknown fuse ${name}`);
    config[FuseV1Options[name]] = value;
  }
  return config;
}

/** Path of the Electron binary electron-builder just packed. */
function electronBinaryPath(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  const name = packager.appInfo.productFilename;
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') return join(appOutDir, `${name}.app`);
  if (electronPlatformName === 'win32') return join(appOutDir, `${name}.exe`);
  return join(appOutDir, packager.executableName);
}

// electron-builder's arch enum: 0 ia32, 1 x64, 2 armv7l, 3 arm64, 4 universal.
const ARCH = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'];

async function afterPack(context) {
  const path = electronBinaryPath(context);
  await flipFuses(path, fuseConfig(context.electronPlatformName, ARCH[context.arch] ?? String(context.arch)));
  console.log(`fuses: flipped ${Object.keys(FUSES).length} fuses on ${path}`);
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.FUSES = FUSES;
module.exports.fuseConfig = fuseConfig;
module.exports.electronBinaryPath = electronBinaryPath;
