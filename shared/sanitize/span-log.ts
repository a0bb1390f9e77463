// The span log is the parser's (shared/parser/sink.ts): the parser records plain SGR into it itself.
export type { SpanLog } from '../parser/sink';
