import type { Command } from '../command';

/** A subcommand as `airlock --help` lists it; its code loads only when it runs. */
export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  load(): Promise<Command>;
}

// Dynamic imports keep start-up to the one command that runs: `sanitize` in a pipeline should not
// pay for parsing the vault, capture and viewer code (the bundle is split along these lines).
/** Every `airlock` subcommand, in the order `airlock --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'sanitize', summary: 'raw bytes on stdin -> sanitized text on stdout (+ removal report)', load: async () => (await import('./sanitize')).sanitizeCommand },
  { name: 'inspect', summary: 'safe annotated hex/caret dump of a raw transcript + removal summary', load: async () => (await import('./inspect')).inspectCommand },
  { name: 'screen', summary: 'what a terminal showed: printed text that was overwritten, erased, concealed or same-colour', load: async () => (await import('./screen')).screenCommand },
  { name: 'capture', summary: 'run a command over pipes; raw bytes to the vault, sanitized envelope out', load: async () => (await import('./capture')).captureCommand },
  { name: 'vault', summary: 'list, show, verify and prune captures in the restricted vault', load: async () => (await import('./vault')).vaultCommand },
  { name: 'request', summary: 'ask for a bounded extract of a raw artifact; a human approves it at a terminal', load: async () => (await import('./request')).requestCommand },
  { name: 'mcp', summary: 'MCP server on stdio for coding agents: sandboxed capture, read_text, list_records, screen', load: async () => (await import('./mcp')).mcpCommand },
  { name: 'agent', summary: "run a coding agent in Airlock's agent sandbox, with 'airlock mcp' outside it", load: async () => (await import('./agent')).agentCommand },
  { name: 'open', summary: 'start the desktop viewer on a transcript file or a restricted:sha256: ref', load: async () => (await import('./open')).openCommand },
  { name: 'audit', summary: 'verify or list the tamper-evident audit log', load: async () => (await import('./audit')).auditCommand },
];
