import { AuditLog } from '../../audit';
import { createArtifactService } from '../artifact';
import { Vault } from '../../vault';
import { createFollowService, type FollowService, type FollowServiceOptions } from '../follow/follow';
import { createRunningRawReader } from '../follow/running-raw';
import { GrantStore } from '../grants/grants';
import { importFile } from '../import/importer';
import { PromptBroker, type PromptOpener } from '../prompt/prompts';
import { RequestStore } from '../requests';
import { VaultView } from '../vault-view/view';
import type { ArtifactFactory, ArtifactPort } from './artifact-port';
import { createDispatcher, type BridgeDispatcher, type DispatcherDeps, type WindowRegistry } from './dispatcher';

/** Options of {@link createAppServices}: the platform pieces main (or the e2e harness) provides. */
export interface AppServicesOptions {
  readonly vault: Vault;
  readonly demo: boolean;
  readonly version: string;
  readonly origins: DispatcherDeps['origins'];
  readonly opener: PromptOpener;
  readonly windows: WindowRegistry;
  /** Makes the artifact service (default createArtifactService; tests may pass a stand-in). */
  readonly artifactService?: ArtifactFactory;
  /** Options of the follow service (tests: `inline`, a shorter poll interval). */
  readonly follow?: Omit<FollowServiceOptions, 'vault'>;
  /** Grant lifetime in ms (default 15 minutes; `AIRLOCK_GRANT_TTL_MS` in main). */
  readonly grantTtlMs?: number;
  readonly promptTimeoutMs?: number;
  /** The prompt's first back-off wait after a denial (default 10 s; prompts.ts). */
  readonly promptBackoffBaseMs?: number;
  readonly chooseFile: DispatcherDeps['chooseFile'];
  readonly chooseSavePath: DispatcherDeps['chooseSavePath'];
  readonly writeClipboard: DispatcherDeps['writeClipboard'];
}

/** The main-side services of the desktop app, wired together once per vault. */
export interface AppServices {
  readonly vault: Vault;
  readonly audit: AuditLog;
  readonly view: VaultView;
  readonly grants: GrantStore;
  readonly prompts: PromptBroker;
  readonly requests: RequestStore;
  readonly artifact: ArtifactPort;
  /** Running captures followed as they grow. */
  readonly follow: FollowService;
  readonly dispatcher: BridgeDispatcher;
  /** A window main created went away: its grants end, its waiting request is withdrawn. */
  windowClosed(windowId: number): Promise<void>;
  /** The app is quitting: every grant ends (and its reads are audited). */
  shutdown(): Promise<void>;
}

export function createAppServices(o: AppServicesOptions): AppServices {
  const vault = o.vault;
  const audit = AuditLog.forVault(vault.root);
  const view = new VaultView(vault, { demo: o.demo, version: o.version });
  const grants = new GrantStore({ audit, ttlMs: o.grantTtlMs });
  const follow = createFollowService({ vault, ...o.follow });
  const prompts = new PromptBroker({ grants, view, audit, opener: o.opener, running: follow, timeoutMs: o.promptTimeoutMs, backoffBaseMs: o.promptBackoffBaseMs });
  const requests = new RequestStore(vault, audit);
  const artifact = (o.artifactService ?? createArtifactService)({ vault, rawPath: (sha256) => vault.rawPath(sha256) });
  const runningRaw = createRunningRawReader({ vault, grants, follow });
  const dispatcher = createDispatcher({
    vault,
    view,
    grants,
    prompts,
    requests,
    audit,
    windows: o.windows,
    origins: o.origins,
    artifact,
    follow,
    runningRaw,
    chooseFile: o.chooseFile,
    importFile: async (path, opts) => {
      const result = await importFile(vault, audit, path, opts);
      await view.refresh();
      return result;
    },
    chooseSavePath: o.chooseSavePath,
    writeClipboard: o.writeClipboard,
  });
  return {
    vault,
    audit,
    view,
    grants,
    prompts,
    requests,
    artifact,
    follow,
    dispatcher,
    async windowClosed(windowId) {
      dispatcher.windowClosed(windowId);
      await prompts.windowClosed(windowId);
      await prompts.promptClosed(windowId);
      await grants.endWindow(windowId);
    },
    async shutdown() {
      await grants.endAll();
      await artifact.close();
      await follow.close();
    },
  };
}
