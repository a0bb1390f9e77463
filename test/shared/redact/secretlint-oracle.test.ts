// secretlint's recommended preset (a kept, maintained rule set; evaluated and not used at run
// time, docs/secrets.md says why) as an oracle for the redaction stage: every secret it finds in
// the fixture corpus and in generated credentials must be inside one of our redactions. Compared
// by the secret's value, not by secretlint's range (its AWS secret-key range is off: the key name
// and the first 16 characters).
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../../shared/redact';
// @ts-expect-error -- a plain .mjs fixture
import { BENIGN, PEM_KEYS, SECRETS } from '../../fixtures/secrets/credentials.mjs';

type SecretLintCoreConfig = Parameters<typeof lintSource>[0]['options']['config'];
type SecretLintCoreResultMessage = Awaited<ReturnType<typeof lintSource>>['messages'][number];

const CONFIG: SecretLintCoreConfig = {
  rules: [
    {
      id: '@secretlint/secretlint-rule-preset-recommend',
      rule: recommended,
      rules: [
        // Access key ids are off by default in the preset; we redact them.
        { id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } },
        // Lets scanned text switch findings off; an oracle must not listen to the text.
        { id: '@secretlint/secretlint-rule-filter-comments', disabled: true },
      ],
    },
  ],
};

/**
 * Findings secretlint reports that the stage leaves on purpose (by message id, and by value where
 * given), with the reason. Any other finding outside a redaction fails the test.
 */
const NOT_REDACTED: { messageId: string; secret?: string; reason: string }[] = [
  { messageId: 'AWSAccountID', reason: 'a 12-digit AWS account id names an account and authenticates nothing; AWS does not treat it as a secret' },
  { messageId: 'BasicAuth', secret: 'x-oauth-basic', reason: "GitHub's fixed password word in TOKEN:x-oauth-basic@ URLs; the token before it is the secret, and url-password redacts that" },
];
const leftOnPurpose = (m: SecretLintCoreResultMessage, secret: string | null): boolean =>
  NOT_REDACTED.some((n) => n.messageId === m.messageId && (n.secret === undefined || n.secret === secret));

/**
 * Some of the preset's checks run only for some file names (npm: `_authToken=` only in .npmrc,
 * the `x-oauth-basic` URL only in package.json; GCP: a service-account key only in .json files).
 * Command output can be any of them (`cat .npmrc`), so each text is linted as both.
 */
const AS_FILES = [
  { filePath: 'package.json', ext: '.json' },
  { filePath: '.npmrc', ext: '' },
];

async function findings(content: string): Promise<SecretLintCoreResultMessage[]> {
  const seen = new Map<string, SecretLintCoreResultMessage>();
  for (const file of AS_FILES) {
    const result = await lintSource({ source: { content, ...file, contentType: 'text' }, options: { config: CONFIG, noPhysicFilePath: true } });
    for (const m of result.messages) seen.set(`${m.messageId}@${m.range.join(',')}`, m);
  }
  return [...seen.values()];
}

/** The password of a `scheme://user:password@host…` URL as it is written. */
function urlPassword(url: string): string {
  const m = /^[A-Za-z][A-Za-z0-9+.:-]*:\/\/[^:@/\s]*:(.*)@[^@]*$/.exec(url);
  if (m === null) throw new Error(`no password in ${url}`);
  return m[1];
}

/** The secret a finding is about, as the text holds it. */
function secretOf(m: SecretLintCoreResultMessage, content: string): string | null {
  const data = (m.data ?? {}) as Record<string, string>;
  switch (m.messageId) {
    case 'PrivateKeyJSON':
      // The whole file is reported; its secret is the key, as the JSON string writes it.
      return JSON.stringify((JSON.parse(content) as { private_key: string }).private_key).slice(1, -1).replace(/(?:\\n)+$/, '');
    case 'IncomingWebhook':
      return data.URL.slice(data.URL.indexOf('/services/') + '/services/'.length);
    case 'BasicAuth':
      return urlPassword(data.CREDENTIAL);
    case 'MongoDBConnection':
    case 'MySQLConnection':
    case 'PostgreSQLConnection':
      return urlPassword(data.URI);
    default:
      return data.KEY ?? data.TOKEN ?? data.ID ?? null;
  }
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Our redactions of `content` as [start, end) (ASCII text: bytes are characters), and the output. */
function redact(content: string): { spans: [number, number][]; out: string } {
  const r = new Redactor();
  const out = dec.decode(r.write(enc.encode(content))) + dec.decode(r.end());
  return { spans: r.redactions().list.map((x) => [x.offset, x.offset + x.length]), out };
}

/**
 * Checks every finding of secretlint in `content` against our redactions; returns the message ids
 * it found (so a test can see the oracle was not silent).
 */
async function expectCovered(content: string): Promise<string[]> {
  const { spans, out } = redact(content);
  const ids: string[] = [];
  for (const m of await findings(content)) {
    ids.push(m.messageId);
    const secret = secretOf(m, content);
    if (leftOnPurpose(m, secret)) continue;
    expect(secret, m.messageId).toBeTruthy();
    if (secret === null) continue;
    const at = content.indexOf(secret, m.range[0]);
    expect(at, `${m.messageId}: its value is in the text`).toBeGreaterThanOrEqual(0);
    const inside = spans.some(([s, e]) => s <= at && at + secret.length <= e);
    expect(inside, `${m.messageId} ${JSON.stringify(secret)} is inside a redaction of ${JSON.stringify(content)}`).toBe(true);
    expect(out, m.messageId).not.toContain(secret);
  }
  return ids;
}

describe('secretlint (recommended preset) as an oracle', () => {
  it('every finding in the fixture corpus is inside one of our redactions', async () => {
    const items = [...(SECRETS as { line: string }[]).map((s) => `${s.line}\n`), ...(PEM_KEYS as string[][]).map((k) => `${k.join('\n')}\n`), ...(BENIGN as string[]).map((l) => `${l}\n`)];
    const ids = new Set<string>();
    for (const item of items) for (const id of await expectCovered(item)) ids.add(id);
    // The whole corpus as one text too (what a command printing all of it hands the stage).
    for (const id of await expectCovered(items.join(''))) ids.add(id);
    expect([...ids].sort()).toEqual(
      ['AWSAccessKeyID', 'AWSSecretAccessKey', 'BasicAuth', 'GITHUB_TOKEN', 'IncomingWebhook', 'LINEAR_API_TOKEN', 'MongoDBConnection', 'MySQLConnection', 'NPM_ACCESS_TOKEN', 'Npmrc_authToken', 'PackageJSON_xOauthToken', 'PostgreSQLConnection', 'PrivateKey', 'PrivateKeyJSON', 'SHOPIFY_KEY', 'SLACK_TOKEN'].sort(),
    );
  });

  it('every finding in generated credentials is inside one of our redactions', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(generatedLine, { minLength: 1, maxLength: 6 }), async (lines) => {
        for (const id of await expectCovered(`${lines.join('\n')}\n`)) seen.add(id);
      }),
      { numRuns: 150 },
    );
    // Each generator produced something secretlint recognises.
    for (const id of ['AWSAccessKeyID', 'AWSSecretAccessKey', 'GITHUB_TOKEN', 'SLACK_TOKEN', 'IncomingWebhook', 'NPM_ACCESS_TOKEN', 'Npmrc_authToken', 'PackageJSON_xOauthToken', 'BasicAuth', 'OPENAI_TOKEN', 'ANTHROPIC_API_KEY', 'LINEAR_API_TOKEN', 'PrivateKey', 'SENDGRID_KEY', 'SHOPIFY_KEY', 'OPS_TOKEN', 'MongoDBConnection', 'MySQLConnection', 'PostgreSQLConnection']) {
      expect(seen, id).toContain(id);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Generated credentials in the formats the preset knows, in the contexts command output prints them.

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const B64 = `${ALNUM}+/`;
const chars = (set: string, min: number, max = min): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...set), minLength: min, maxLength: max });

/** A password of letters, digits and the punctuation passwords hold and URLs allow unescaped. */
const password = fc.tuple(chars(ALNUM, 6, 20), chars('!*-_.~', 1, 2), chars(DIGITS, 1, 3)).map(([a, b, c]) => a + b + c);
const user = chars(LOWER, 3, 10).filter((u) => !/user|admin|root|pass|secret/.test(u));
const host = fc.tuple(chars(LOWER, 3, 12), fc.constantFrom('.internal', '.example.net', '.corp.io', '.cluster0.mongodb.net')).map(([a, b]) => a + b);

/** A base64 private key body that starts like a DER sequence, in lines of 64. */
const keyBody = chars(B64, 200, 600).map((b) => `MII${b}`.match(/.{1,64}/g)!);

/** The base64 of a JSON object ending in `}` at a whole base64 group, as a 1Password service token is. */
const opsToken = chars(ALNUM, 40, 200).map((s) => {
  let json = JSON.stringify({ signInAddress: 'my.1password.com', email: `${s.slice(0, 8).toLowerCase()}@1passwordserviceaccounts.com`, secretKey: s });
  while (json.length % 3 !== 1) json = `${json.slice(0, -1)} }`;
  return `ops_${btoa(json)}`;
});

const secrets: fc.Arbitrary<string>[] = [
  fc.tuple(fc.constantFrom('AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA'), chars(UPPER + DIGITS, 16)).map(([p, s]) => p + s),
  fc.tuple(fc.constantFrom('aws_secret_access_key = ', 'AWS_SECRET_ACCESS_KEY=', '"SecretAccessKey": "', 'Aws_Secret_Access_Key: '), chars(B64, 40)).map(([k, v]) => k + v + (k.endsWith('"') ? '"' : '')),
  fc.tuple(fc.constantFrom('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'), chars(ALNUM, 36)).map(([p, s]) => p + s),
  chars(ALNUM, 82).map((s) => `github_pat_${s}`),
  fc.tuple(fc.constantFrom('xoxb', 'xoxp'), chars(DIGITS, 10, 13), chars(DIGITS, 10, 13), chars(ALNUM, 24)).map(([p, a, b, c]) => `${p}-${a}-${b}-${c}`),
  fc.tuple(chars(UPPER + DIGITS, 8, 10), chars(UPPER + DIGITS, 8, 10), chars(ALNUM, 24)).map(([t, b, s]) => `https://hooks.slack.com/services/T${t}/B${b}/${s}`),
  chars(ALNUM, 36).map((s) => `npm_${s}`),
  fc.tuple(fc.uuid(), fc.constantFrom('//registry.npmjs.org/:', '//npm.pkg.github.com/:', '')).map(([u, r]) => `${r}_authToken=${u}`),
  chars(HEX, 40).map((t) => `"repository": "git+https://${t}:x-oauth-basic@github.com/org/repo.git"`),
  fc.tuple(fc.constantFrom('https', 'http', 'ftp'), user, chars(ALNUM, 8, 16), host).map(([s, u, p, h]) => `${s}://${u}:${p}@${h}/path`),
  fc.tuple(chars(ALNUM, 20), chars(ALNUM, 20)).map(([a, b]) => `sk-${a}T3BlbkFJ${b}`),
  fc.tuple(fc.constantFrom('proj', 'svcacct', 'admin'), fc.constantFrom(58, 74), chars(`${ALNUM}_-`, 74), chars(`${ALNUM}_-`, 74)).map(([k, n, a, b]) => `sk-${k}-${a.slice(0, n)}T3BlbkFJ${b.slice(0, n)}`),
  chars(`${ALNUM}_-`, 90, 120).map((s) => `sk-ant-api03-${s}AA`),
  chars(ALNUM, 40).map((s) => `lin_api_${s}`),
  fc.tuple(fc.constantFrom('RSA ', 'EC ', 'OPENSSH ', ''), keyBody, fc.boolean()).map(([kind, body, json]) => {
    const block = [`-----BEGIN ${kind}PRIVATE KEY-----`, ...body, `-----END ${kind}PRIVATE KEY-----`];
    return json ? `{"private_key": "${block.join('\\n')}\\n"}` : block.join('\n');
  }),
  fc.tuple(chars(`${ALNUM}_`, 22), chars(`${ALNUM}_`, 43)).map(([a, b]) => `SG.${a}.${b}`),
  fc.tuple(fc.constantFrom('shpat_', 'shpca_', 'shppa_', 'shpss_'), chars(HEX, 32)).map(([p, s]) => p + s),
  opsToken,
  fc.tuple(fc.constantFrom('mongodb', 'mongodb+srv', 'mysql', 'jdbc:mysql', 'postgres', 'postgresql'), user, password, host, chars(LOWER, 2, 8)).map(([s, u, p, h, d]) => `${s}://${u}:${p}@${h}/${d}`),
];

/** A line printing one generated secret, alone or in a context. */
const generatedLine = fc.tuple(fc.oneof(...secrets), fc.constantFrom(['', ''], ['export VAR=', ''], ['  value: ', ''], ['echo "', '"'], ['{"v": "', '"}'], ['  at ', ' (cached)'])).map(([s, [before, after]]) =>
  // A key block, an .npmrc line and a package.json field keep their own line.
  s.includes('\n') || s.includes('_authToken=') || s.startsWith('"repository"') ? s : `${before}${s}${after}`,
);
