// The usage lines of `airlock vault import`, apart from its code (which loads only when it runs).

export const IMPORT_USAGE = `  airlock vault import FILE [--format auto|plain|script|asciicast] [--timing FILE] [--vault DIR] [--json]`;

export const IMPORT_HELP = `import stores FILE in the vault (created if missing) as a restricted artifact with a record,
as "Open file…" in the app does: plain bytes, a script(1) typescript (the session between its
header and footer lines; --timing names its timing file, else one beside it is used) or an
asciicast v2/v3 (rebuilt from its decoded text: not byte-exact). --format auto (the default)
tells them apart by name and first bytes. It prints the record and the artifact references,
with what was removed, most dangerous first.`;
