// The secret-redaction stage: runs after the sanitizer, on its text, with its own rules, report and
// false-positive policy (docs/secrets.md).
export { Redactor, MAX_LISTED, type RedactorOptions, type StreamRedactionReport } from './redactor';
export { RULES, RULESET, ruleById, shannonEntropy, type Rule } from './rules';
export { parseAllowlist, AllowlistError, DEFAULT_POLICY, MAX_ALLOWLIST_BYTES, type RedactionPolicy, type PatternEntry } from './allowlist';
export { MARKER_OPEN, MARKER_CLOSE, MARKER_FORMAT, markerText, markerBytes, checkMarkers, type Redaction } from './marker';
export { scanBytes, mergeDetections, type Detection, type ScanResult } from './detect';
export { windowRedactions } from './window';
