export { Sanitizer, sanitize, type SanitizerHooks, type SanitizerOptions, type SanitizeResult } from './sanitizer';
export { OffsetMap, SegmentKind, type SegmentSink } from './offset-map';
export { ReportBuilder, type RemovalReport, type CrMode, type ClassCount, type InvisibleCounts, type LineControl } from './report';
export { LineBuffer, MAX_LINE_CELLS } from './line-buffer';
export type { Digest } from './digest';
export { firstNotInert, isInert } from './inert';
export type { SpanLog } from '../parser/sink';
