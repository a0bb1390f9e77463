// Public surface of capture: import from here, not from the individual files.
export {
  runCapture,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_TEXT,
  MAX_TEXT_CEILING,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_DRAIN_GRACE_MS,
  type CaptureOptions,
  type CaptureOutcome,
  type Termination,
  type TerminationReason,
} from './capture';
export { SpawnError, type ChildExit } from './child';
export { childEnvironment, PLAIN_OUTPUT_ENV, COLOUR_FORCING_ENV, type EnvEdit, type EnvSummary } from './child-env';
export { ChunkLog, CHUNK_FIELDS, MAX_CHUNK_ROWS, STREAMS, type ChunkLogJson, type ChunkRow, type StreamName } from './chunk-log';
export { buildEnvelope, ENVELOPE_VERSION, NO_SANDBOX, type CaptureEnvelope, type CaptureLimits, type PerStream } from './envelope';
export { captureExitStatus, exitStatus, EXIT_NOT_FOUND, EXIT_CANNOT_EXECUTE, EXIT_TIMEOUT, EXIT_TRUNCATED } from './exit-status';
export { buildCaptureRecord, captureAuditDetails, CAPTURE_RECORD_VERSION } from './record';
export { summaryLines, removedSummary, formatBytes, seamLine, CONTINUATION, TEXT_GUTTER } from './render';
export { captureOptionsEnd, splitCaptureArgs, parseEnvEdit, type CaptureArgs } from './args';
export { commandString, shellQuote } from '../terminal/shell-quote';
export { TextWindow, type TextTruncation, type WindowedText } from './text-window';
export {
  planSandbox,
  probeBwrap,
  inheritedFds,
  coverInheritedFds,
  protectedPaths,
  airlockDataDir,
  insideAirlockSandbox,
  explainHiddenPath,
  SandboxError,
  SANDBOX_MODES,
  type SandboxMode,
  type SandboxInfo,
  type SandboxPlan,
  type SandboxOptions,
  type ChildLaunch,
  type BwrapProbe,
} from './sandbox';
export { buildView, SANDBOX_MARKER, type SandboxProfile, type SandboxView } from './sandbox-view';
export { planNetwork, NETWORK_MODES, HOST_NETWORK_WARNING, type NetworkMode, type NetworkInfo } from './network';
export { LiveRows, type LiveRowsOptions } from './live-rows';
