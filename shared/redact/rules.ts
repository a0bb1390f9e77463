/**
 * The rule set of the redaction stage: one entry per kind of credential. Each rule names `keys` —
 * short literals of which every match contains one, found by one pass over the bytes — and a
 * `pattern` run only on a line that holds a key, so the cost of a rule is paid where its key
 * occurs, not per byte. Formats follow the issuers' documentation and the patterns of
 * secretlint's recommended preset (MIT) and gitleaks (MIT) where those are right; see
 * docs/secrets.md for what each rule covers and what it does not.
 *
 * A pattern's named group `v` is the value that is redacted (default: the whole match); the rest
 * of the match is context that stays readable (`Authorization: Bearer`, `postgres://app:`).
 */
export interface Rule {
  /** Stable id: the marker, the counts and the allowlist name rules by it. */
  readonly id: string;
  readonly title: string;
  /** Literals (ASCII) of which every match contains one; the scan looks for these (scan.ts). A literal written `\\bKEY` starts a word. */
  readonly keys: readonly string[];
  /**
   * The keys match in any case: they are names that tools print in several cases (HTTP headers,
   * environment variables, JSON fields), and the pattern has the `i` flag. Token prefixes are
   * never caseless: `AKIA` and `ghp_` are formats.
   */
  readonly caseless?: boolean;
  /** Global regex with the `d` flag, run once over each line that holds one of the keys. */
  readonly pattern: RegExp;
  /** Shannon entropy (bits per character) the value must reach; rules without one match on format alone. */
  readonly minEntropy?: number;
  /** A literal the match's line must hold before the pattern is run at all (a cheap pre-check). */
  readonly requires?: string;
  /** A check of the value beyond its pattern: false leaves it (a placeholder, a variable, a plain word). */
  readonly plausible?: (value: string) => boolean;
}

/** The rule set's name and version, recorded with every redaction (bump the version on any rule change). */
export const RULESET = { name: 'airlock-secrets', version: 2 } as const;

// Word edges: a token must not continue a longer word on either side.
const L = '(?<![A-Za-z0-9_])';
const R = '(?![A-Za-z0-9_])';
// A key name's connector to its value: `=`, `:`, `=>`, optional quotes and spaces.
const CONNECT = `["']?\\s{0,4}(?::|=>|=)\\s{0,4}["']?`;
/** Schemes whose URL password is a database credential (counted as database-url-password). */
const DB_SCHEMES = 'postgres(?:ql)?|mysql|mysqlx|mariadb|mongodb(?:\\+srv)?|rediss?|redis\\+sentinel|amqps?|mssql|sqlserver|clickhouse|cockroachdb|neo4j(?:\\+s)?|couchdb|cassandra|db2|oracle|snowflake';

/**
 * A credential's key name: up to 40 name characters, then one of the words. The pattern starts at
 * the word (what precedes it is checked by lookbehinds), so the regex engine skips to the words.
 */
const CREDENTIAL_WORD = '(?:password|passwd|secret(?:[_-]?key)?|token|api[_-]?key)';
const NAME_BEFORE = '[A-Za-z0-9_.-]{0,40}';

/**
 * Whether a value given to a credential's name looks like one, not like what stands in for one
 * in documentation, templates and masked output: a variable (`$TOKEN`, `${X}`, `%X%`, `{{x}}`),
 * a placeholder (`<token>`, `YOUR_TOKEN_HERE`, `xxxx`, `****`, `...`), another variable's name
 * (`GITHUB_TOKEN`), a path or URL, a value of one repeated character, or a plain word (`required`,
 * `false`, `String`). A real password that is a plain word is left: no rule can tell it from one.
 */
export function plausibleCredential(value: string): boolean {
  if (/^[$%{<[(*/~@]|^\.\.?\/|:\/\/|[<>]|\{\{|\*\*\*|\.\.\.|\u2026|xxx/i.test(value)) return false;
  if (/^(?:your|example|sample|dummy|fake|placeholder)[_-]|[_-](?:here|placeholder)$/i.test(value)) return false;
  if (/^(.)\1*$/.test(value) || /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)) return false;
  // A plain word: letters only, in one case or capitalised.
  return !/^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)$/.test(value);
}

function rx(source: string, flags = ''): RegExp {
  return new RegExp(source, `gd${flags}`);
}

export const RULES: readonly Rule[] = [
  {
    id: 'private-key',
    title: 'PEM, OpenSSH and PGP private key blocks (also inside JSON strings, and cut by truncation)',
    // Matched by the block reader in pem.ts; the pattern only finds the header or footer line.
    keys: ['PRIVATE KEY'],
    pattern: rx('-----(?:BEGIN|END) [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----'),
  },
  {
    id: 'aws-access-key-id',
    title: 'AWS access key ids (AKIA…, ASIA… and the other IAM unique-id prefixes)',
    keys: ['\\bAKIA', '\\bASIA', '\\bABIA', '\\bACCA', '\\bAGPA', '\\bAIDA', '\\bAIPA', '\\bANPA', '\\bANVA', '\\bAROA', '\\bAPKA', '\\bASCA', '\\bA3T'],
    pattern: rx('(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}(?![A-Za-z0-9])'),
  },
  {
    id: 'aws-secret-access-key',
    title: 'AWS secret access keys after their key name (aws_secret_access_key=, "SecretAccessKey":)',
    keys: ['secret_access_key', 'secretaccesskey', 'secret_accesskey', 'secretaccess_key'],
    caseless: true,
    pattern: rx(`(?:aws_?)?secret_?access_?key${CONNECT}(?<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])`, 'i'),
    minEntropy: 3,
  },
  {
    id: 'aws-session-token',
    title: 'AWS session tokens after their key name (aws_session_token=, "SessionToken":)',
    keys: ['session_token', 'sessiontoken'],
    caseless: true,
    pattern: rx(`(?:aws_?)?session_?token${CONNECT}(?<v>[A-Za-z0-9/+=]{100,4096})(?![A-Za-z0-9/+=])`, 'i'),
    minEntropy: 3,
  },
  {
    id: 'gcp-api-key',
    title: 'Google Cloud API keys (AIza…)',
    keys: ['\\bAIza'],
    pattern: rx(`${L}AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])`),
  },
  {
    id: 'gcp-oauth-client-secret',
    title: 'Google OAuth client secrets (GOCSPX-…)',
    keys: ['\\bGOCSPX-'],
    pattern: rx(`${L}GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])`),
  },
  {
    id: 'azure-storage-key',
    title: 'Azure storage account keys and Service Bus / Event Hubs shared access keys in connection strings',
    // Connection string keys are case-insensitive (Azure SDKs accept `accountkey=`).
    keys: ['accountkey=', 'sharedaccesskey='],
    caseless: true,
    pattern: rx('(?:AccountKey=(?<v>[A-Za-z0-9+/]{86}==)|SharedAccessKey=(?<w>[A-Za-z0-9+/]{42,43}=))', 'i'),
  },
  {
    id: 'azure-client-secret',
    title: 'Microsoft Entra ID (Azure AD) client secrets (…8Q~…)',
    keys: ['Q~'],
    pattern: rx('(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])'),
  },
  {
    id: 'azure-sas-signature',
    title: 'Azure shared access signatures (the sig= of a SAS URL or token)',
    keys: ['?sig=', '&sig='],
    pattern: rx('[?&]sig=(?<v>[A-Za-z0-9%+/]{40,120}(?:%3[Dd]|=){0,2})(?![A-Za-z0-9%+/=])'),
  },
  {
    id: 'github-token',
    title: 'GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)',
    keys: ['\\bghp_', '\\bgho_', '\\bghu_', '\\bghs_', '\\bghr_', '\\bgithub_pat_'],
    pattern: rx(`${L}(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{82,250})${R}`),
  },
  {
    id: 'gitlab-token',
    title: 'GitLab tokens (glpat-, gldt-, glrt-, glcbt-, glptt-, glft-, glimt-, glagent-, glsoat-, gloas-, GR1348941…)',
    keys: ['\\bglpat-', '\\bgldt-', '\\bglrt-', '\\bglrtr-', '\\bglcbt-', '\\bglptt-', '\\bglft-', '\\bglimt-', '\\bglagent-', '\\bglsoat-', '\\bgloas-', '\\bGR1348941'],
    pattern: rx(`${L}(?:gl(?:pat|dt|rt|rtr|cbt|ptt|ft|imt|agent|soat|oas)-[A-Za-z0-9_.-]{20,200}|GR1348941[A-Za-z0-9_-]{20,64})(?![A-Za-z0-9_.-])`),
  },
  {
    id: 'slack-token',
    title: 'Slack tokens (xoxb-, xoxp-, xoxa-, xoxo-, xoxr-, xoxs-, xoxe-, xapp-)',
    keys: ['xoxa-', 'xoxb-', 'xoxe-', 'xoxo-', 'xoxp-', 'xoxr-', 'xoxs-', '\\bxapp-'],
    pattern: rx(`${L}(?:xox[abeoprs](?:\\.xox[abeoprs])?-|xapp-)(?:[0-9]+-)?[A-Za-z0-9-]{10,250}${R}`),
  },
  {
    id: 'slack-webhook',
    title: 'Slack incoming webhook and workflow URLs (hooks.slack.com/services/…)',
    keys: ['hooks.slack.com/'],
    pattern: rx('hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<v>[A-Za-z0-9_/-]{20,200})'),
  },
  {
    id: 'stripe-key',
    title: 'Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_) and webhook secrets (whsec_)',
    keys: ['\\bsk_live_', '\\bsk_test_', '\\brk_live_', '\\brk_test_', '\\bwhsec_'],
    pattern: rx(`${L}(?:[sr]k_(?:live|test)_[A-Za-z0-9]{20,247}|whsec_[A-Za-z0-9+/=]{32,100})(?![A-Za-z0-9+/=_])`),
  },
  {
    id: 'twilio-api-key',
    title: 'Twilio API key SIDs with their secret format (SK + 32 hex)',
    keys: ['\\bSK'],
    pattern: rx(`${L}SK[0-9a-fA-F]{32}${R}`),
    minEntropy: 2.5,
  },
  {
    id: 'twilio-auth-token',
    title: 'Twilio auth tokens after their key name (TWILIO_AUTH_TOKEN=, twilioAuthToken:)',
    keys: ['twilio_auth', 'twilioauth'],
    caseless: true,
    pattern: rx(`twilio_?auth_?token${CONNECT}(?<v>[0-9a-f]{32})${R}`, 'i'),
    minEntropy: 2.5,
  },
  {
    id: 'sendgrid-key',
    title: 'SendGrid API keys (SG.….…)',
    keys: ['\\bSG.'],
    pattern: rx(`${L}SG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{16,64}(?![A-Za-z0-9_-])`),
  },
  {
    id: 'npm-token',
    title: 'npm access tokens (npm_…) and _authToken= lines of .npmrc',
    keys: ['npm_', '_auth=', '_authToken='],
    pattern: rx(`(?:${L}npm_[A-Za-z0-9]{36}${R}|_auth(?:Token)?=(?<v>[^\\s"'\`$][^\\s"'\`]{7,500}))`),
  },
  {
    id: 'openai-key',
    title: 'OpenAI API keys (sk-proj-, sk-svcacct-, sk-admin-, legacy sk-…T3BlbkFJ…)',
    keys: ['\\bsk-'],
    pattern: rx(`${L}sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,250}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})(?![A-Za-z0-9_-])`),
  },
  {
    id: 'anthropic-key',
    title: 'Anthropic API keys (sk-ant-api03-…, sk-ant-admin01-…)',
    keys: ['\\bsk-ant-'],
    pattern: rx(`${L}sk-ant-(?:api|admin|oat|ort)\\d\\d-[A-Za-z0-9_-]{32,200}(?![A-Za-z0-9_-])`),
  },
  {
    id: 'huggingface-token',
    title: 'Hugging Face access tokens (hf_…)',
    keys: ['\\bhf_'],
    pattern: rx(`${L}hf_[A-Za-z0-9]{34,40}${R}`),
    minEntropy: 3,
  },
  {
    id: 'pypi-token',
    title: 'PyPI upload tokens (pypi-AgEIcHlwaS5vcmc…)',
    keys: ['\\bpypi-AgE'],
    pattern: rx(`${L}pypi-AgE[A-Za-z0-9_-]{50,400}(?![A-Za-z0-9_-])`),
  },
  {
    id: 'docker-hub-token',
    title: 'Docker Hub personal access tokens (dckr_pat_…)',
    keys: ['\\bdckr_pat_'],
    pattern: rx(`${L}dckr_pat_[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])`),
  },
  {
    id: 'digitalocean-token',
    title: 'DigitalOcean tokens (dop_v1_, doo_v1_, dor_v1_)',
    keys: ['\\bdop_v1_', '\\bdoo_v1_', '\\bdor_v1_'],
    pattern: rx(`${L}do[por]_v1_[a-f0-9]{64}${R}`),
  },
  {
    id: 'linear-api-key',
    title: 'Linear API keys (lin_api_…)',
    keys: ['\\blin_api_'],
    pattern: rx(`${L}lin_api_[A-Za-z0-9]{32,128}${R}`),
  },
  {
    id: 'shopify-token',
    title: 'Shopify access tokens (shpat_, shpca_, shppa_, shpss_)',
    keys: ['\\bshpat_', '\\bshpca_', '\\bshppa_', '\\bshpss_'],
    pattern: rx(`${L}shp(?:at|ca|pa|ss)_[A-Za-z0-9]{32,64}${R}`),
  },
  {
    id: '1password-service-token',
    title: '1Password service account tokens (ops_eyJ…)',
    keys: ['\\bops_eyJ'],
    pattern: rx(`${L}ops_eyJ[A-Za-z0-9+/=_-]{100,2000}(?![A-Za-z0-9+/=_-])`),
  },
  {
    id: 'jwt',
    title: 'JSON Web Tokens (eyJ….eyJ….signature)',
    keys: ['\\beyJ'],
    // Each part is taken whole by a lookahead and a backreference (an atomic group), so a long
    // run without the next dot fails after one pass over it instead of backtracking through it.
    pattern: rx(`${L}eyJ(?=([A-Za-z0-9_-]{2,2000}))\\1\\.eyJ(?=([A-Za-z0-9_-]{2,8000}))\\2\\.[A-Za-z0-9_-]{0,2000}(?![A-Za-z0-9_-])`),
  },
  {
    id: 'database-url-password',
    title: 'passwords in database URLs (postgres://user:PASSWORD@host, mysql, mongodb, redis, amqp, …)',
    keys: ['@'],
    pattern: rx(`(?<![A-Za-z0-9+.-])(?:jdbc:)?(?:${DB_SCHEMES})://[^\\s:/?#@"'\`<>]{0,128}:(?<v>[^\\s/?#"'\`<>]{1,256})@(?=[^\\s@/?#"'\`<>]*[A-Za-z0-9\\]])`, 'i'),
    requires: '://',
  },
  {
    id: 'url-password',
    title: 'passwords in other URLs (scheme://user:PASSWORD@host; the user of TOKEN:x-oauth-basic@, where the token is the user)',
    keys: ['@'],
    // Schemes are case-insensitive (POSTGRES:// is a database URL too). GitHub's OAuth form puts
    // the token in the user and a fixed word in the password.
    pattern: rx(
      `(?<![A-Za-z0-9+.-])(?!(?:jdbc:)?(?:${DB_SCHEMES})://)[A-Za-z][A-Za-z0-9+.-]{0,30}://` +
        `(?:(?<w>[^\\s:/?#@"'\`<>]{1,256}):x-oauth-basic@|[^\\s:/?#@"'\`<>]{0,128}:(?<v>[^\\s/?#"'\`<>]{1,256})@)(?=[^\\s@/?#"'\`<>]*[A-Za-z0-9\\]])`,
      'i',
    ),
    requires: '://',
  },
  {
    id: 'authorization-header',
    title: 'Authorization and Proxy-Authorization headers (Bearer, Basic, token, Digest, …)',
    // Header names are case-insensitive: curl -v prints `authorization:` over HTTP/2.
    keys: ['authorization'],
    caseless: true,
    pattern: rx(
      `(?<![A-Za-z])(?:proxy-)?authorization["']?\\s{0,4}[:=]\\s{0,4}["']?` +
        `(?:(?:bearer|basic|token|bot|apikey|api-key|sso-key|negotiate|ntlm|dpop|gsskey|hoba|mutual|vapid|scram-sha-256|scram-sha-1)\\s{1,4})?` +
        `(?<v>(?:digest|aws4-hmac-sha256)\\s[^"'\`\\n]{1,2000}|[^\\s"'\`,;]{1,4096})`,
      'i',
    ),
  },
  {
    // Last: where a rule above finds the same value, that rule names it (detect.ts mergeDetections).
    id: 'credential-assignment',
    title: 'values given to a key named password, passwd, secret, secret_key, token or api_key (KEY=value, JSON and YAML fields, HTTP headers)',
    keys: ['password', 'passwd', 'secret', 'token', 'api_key', 'apikey', 'api-key'],
    caseless: true,
    pattern: rx(
      // The name: one of the words, after at most 40 name characters (DB_PASSWORD, x-api-key,
      // clientSecret). Each form tests what follows the word before what precedes the name.
      `(?<![A-Za-z0-9_.-]{41})${CREDENTIAL_WORD}(?:` +
        `["'\`]?[ \\t]{0,4}=(?!=)` + // KEY=value, --password=, ?token=
        `|["'\`](?<=["'\`]${NAME_BEFORE}${CREDENTIAL_WORD}["'\`])[ \\t]{0,4}:` + // "password": in JSON, 'token': in YAML or Python
        `|:(?<=(?:^[ \\t]{0,8}(?:[<>-][ \\t]{1,4})?|-H[ \\t]?["']|--header[ \\t=]["'])${NAME_BEFORE}${CREDENTIAL_WORD}:))` + // a header or YAML field at the start of a line, or curl -H 'X-Api-Key: …'
        `[ \\t]{0,4}(?:["'\`](?<v>[^\\s"'\`]{6,4096})|(?<w>[^\\s"'\`,;&]{6,4096}))`,
      'i',
    ),
    plausible: plausibleCredential,
  },
];

/** The rule of an id, or undefined. */
export function ruleById(id: string): Rule | undefined {
  return RULES.find((r) => r.id === id);
}

/** Shannon entropy of `s` in bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}
