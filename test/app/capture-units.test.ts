import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UsageError } from '../../app/cli/command';
import {
  ChunkLog,
  childEnvironment,
  commandString,
  exitStatus,
  formatBytes,
  parseEnvEdit,
  splitCaptureArgs,
  TextWindow,
} from '../../app/capture';
import { completeUtf8Prefix, leadingContinuationBytes } from '../../app/capture/text-window';

const enc = new TextEncoder();

describe('TextWindow', () => {
  it('returns short text whole, joined across a character split between head and tail', () => {
    const w = new TextWindow(8);
    const bytes = enc.encode('ab€cd'); // € is 3 bytes and straddles the 4-byte head
    w.push(bytes.subarray(0, 3));
    w.push(bytes.subarray(3));
    expect(w.finish()).toEqual({ text: 'ab€cd', totalBytes: 7, truncation: null });
  });

  it('keeps head and tail halves and states what it left out', () => {
    const w = new TextWindow(10);
    for (const c of 'abcdefghijklmnopqrstuvwxyz') w.push(enc.encode(c));
    expect(w.finish()).toEqual({ text: 'abcdevwxyz', totalBytes: 26, truncation: { omitted_bytes: 16, head_bytes: 5, tail_bytes: 5, at_line_boundaries: false } });
  });

  it('copies what it keeps, so the caller may reuse its buffer', () => {
    const w = new TextWindow(64);
    const buf = enc.encode('first\n');
    w.push(buf);
    buf.fill(0x78);
    w.push(buf);
    expect(w.finish().text).toBe('first\nxxxxxx');
  });

  it('handles a single chunk larger than the whole window', () => {
    const w = new TextWindow(7);
    w.push(enc.encode('0123456789abcdef'));
    expect(w.finish()).toMatchObject({ text: '012cdef', truncation: { omitted_bytes: 9, head_bytes: 3, tail_bytes: 4 } });
  });

  it('property: output is valid UTF-8, a head prefix plus a tail suffix, and within the bound', () => {
    const alphabet = ['a', 'é', '€', '本', '😀', '\n'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...alphabet), { maxLength: 400 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 120 }),
        (chars, splits, max) => {
          const full = enc.encode(chars.join(''));
          const w = new TextWindow(max);
          for (let off = 0, k = 0; off < full.length; k++) {
            const n = splits[k % splits.length];
            w.push(full.subarray(off, off + n));
            off += n;
          }
          const { text, totalBytes, truncation } = w.finish();
          const out = enc.encode(text);
          expect(totalBytes).toBe(full.length);
          expect(text).not.toContain('\ufffd');
          if (truncation === null) {
            expect(full.length).toBeLessThanOrEqual(max);
            expect(text).toBe(chars.join(''));
            return;
          }
          expect(out.length).toBeLessThanOrEqual(max);
          expect(truncation.head_bytes + truncation.tail_bytes + truncation.omitted_bytes).toBe(full.length);
          expect(Buffer.from(out.subarray(0, truncation.head_bytes)).equals(Buffer.from(full.subarray(0, truncation.head_bytes)))).toBe(true);
          expect(Buffer.from(out.subarray(truncation.head_bytes)).equals(Buffer.from(full.subarray(full.length - truncation.tail_bytes)))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds character boundaries', () => {
    const b = enc.encode('a😀');
    expect(completeUtf8Prefix(b)).toBe(5);
    for (let n = 1; n < 5; n++) expect(completeUtf8Prefix(b.subarray(0, n))).toBe(1);
    expect(leadingContinuationBytes(b.subarray(2))).toBe(3);
    expect(leadingContinuationBytes(b)).toBe(0);
  });

  it('rejects a zero bound', () => {
    expect(() => new TextWindow(0)).toThrow(RangeError);
  });
});

describe('ChunkLog', () => {
  it('numbers chunks in arrival order', () => {
    const log = new ChunkLog();
    expect(log.add('stdout', 0, 10, 0, 8, 1.5)).toBe(0);
    expect(log.add('stderr', 0, 3, 0, 3, 2.25)).toBe(1);
    expect(log.toJSON()).toMatchObject({
      rows: [[0, 0, 'stdout', 0, 10, 0, 8, 1.5], [1, 1, 'stderr', 0, 3, 0, 3, 2.25]],
      count: 2,
      coalesced: false,
      complete: true,
      omitted_from_seq: null,
    });
  });

  it('coalesces neighbouring rows of one stream when full, keeping offsets truthful', () => {
    const log = new ChunkLog(8);
    for (let i = 0; i < 20; i++) log.add('stdout', i * 4, 4, i * 2, 2, i);
    const json = log.toJSON();
    expect(json.count).toBe(20);
    expect(json.coalesced).toBe(true);
    expect(json.complete).toBe(true);
    expect(json.rows.length).toBeLessThanOrEqual(8);
    let seq = 0;
    let offset = 0;
    for (const [s, e, stream, off, len, toff, tlen] of json.rows) {
      expect(stream).toBe('stdout');
      expect(s).toBe(seq);
      expect(off).toBe(offset);
      expect(toff).toBe(off / 2);
      expect(tlen).toBe(len / 2);
      seq = e + 1;
      offset += len;
    }
    expect(seq).toBe(20);
    expect(offset).toBe(80);
  });

  it('stops (and says where) when strictly alternating streams cannot be coalesced', () => {
    const log = new ChunkLog(8);
    for (let i = 0; i < 12; i++) log.add(i % 2 ? 'stderr' : 'stdout', i, 1, i, 1, i);
    expect(log.toJSON()).toMatchObject({ count: 12, complete: false, omitted_from_seq: 8 });
    expect(log.toJSON().rows).toHaveLength(8);
    expect(log.summary()).toEqual({ count: 12, rows: 8, coalesced: false, complete: false });
  });
});

describe('capture command line', () => {
  const spec = { '--vault': 'value', '--json': 'flag', '--max-bytes': 'value', '--env': 'list' } as const;

  it('splits options, repeated --env and the command', () => {
    const r = splitCaptureArgs(['--vault', 'V', '--env', 'A=1', '--env=B=x=y', '--json', '--env', 'C', '--', 'ls', '-l', '--env', 'X=1'], spec);
    expect(r.options.values).toEqual({ '--vault': 'V' });
    expect([...r.options.flags]).toEqual(['--json']);
    expect(r.env).toEqual([{ key: 'A', value: '1' }, { key: 'B', value: 'x=y' }, { key: 'C', unset: true }]);
    expect(r.argv).toEqual(['ls', '-l', '--env', 'X=1']);
  });

  it('ends options at the first non-option argument, after a value option takes its value', () => {
    expect(splitCaptureArgs(['--max-bytes', '1M', 'grep', '-r', 'x'], spec)).toMatchObject({ argv: ['grep', '-r', 'x'], options: { values: { '--max-bytes': '1M' } } });
  });

  it('refuses bad names and missing commands', () => {
    expect(() => parseEnvEdit('A-B=1')).toThrow(UsageError);
    expect(() => parseEnvEdit('=1')).toThrow(UsageError);
    expect(() => splitCaptureArgs(['--json'], spec)).toThrow(/no command to run/);
    expect(() => splitCaptureArgs(['--'], spec)).toThrow(/no command after --/);
    expect(() => splitCaptureArgs(['--vault', '--', 'ls'], spec)).toThrow(/--vault needs a value/);
  });

  it('quotes the command for display', () => {
    expect(commandString(['sh', '-c', "echo 'hi' $X"])).toBe(`sh -c 'echo '\\''hi'\\'' $X'`);
    expect(commandString(['ls', '-la', '/tmp'])).toBe('ls -la /tmp');
  });
});

describe('child environment and exit status', () => {
  it('adds the plain-output variables, removes colour forcing, then applies edits in order', () => {
    const { env, summary } = childEnvironment(
      { PATH: '/bin', TERM: 'xterm', CLICOLOR_FORCE: '1', HOME: '/h' },
      [{ key: 'TERM', value: 'vt100' }, { key: 'HOME', unset: true }, { key: 'CLICOLOR_FORCE', value: '0' }],
    );
    expect(env).toEqual({ PATH: '/bin', TERM: 'vt100', NO_COLOR: '1', CLICOLOR: '0', FORCE_COLOR: '0', PAGER: 'cat', GIT_PAGER: 'cat', CLICOLOR_FORCE: '0' });
    expect(summary).toEqual({ set: ['CLICOLOR', 'CLICOLOR_FORCE', 'FORCE_COLOR', 'GIT_PAGER', 'NO_COLOR', 'PAGER', 'TERM'], unset: ['HOME'] });
  });

  it('maps exits like a shell', () => {
    expect(exitStatus({ code: 0, signal: null })).toBe(0);
    expect(exitStatus({ code: 3, signal: null })).toBe(3);
    expect(exitStatus({ code: null, signal: 'SIGTERM' })).toBe(143);
    expect(exitStatus({ code: null, signal: 'SIGKILL' })).toBe(137);
    expect(exitStatus({ code: null, signal: 'SIGINT' })).toBe(130);
  });

  it('formats byte counts', () => {
    expect(formatBytes(4)).toBe('4 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(64 * 1024 * 1024)).toBe('64.0 MiB');
  });
});
