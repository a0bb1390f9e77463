export { Parser } from './parser';
export { NoopSink, type ParserSink } from './sink';
export { SpanClass, SpanFlag, SPAN_CLASS_NAMES, SPAN_CLASS_COUNT, type SpanClassName } from './span-class';
export { DEFAULT_LIMITS, resolveLimits, MAX_CSI_PARAM_BYTES, MAX_ESC_INTERMEDIATES, MAX_STRING_BYTES, type ParserLimits } from './limits';
export { State, STATE_NAMES } from './states';
