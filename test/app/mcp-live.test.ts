// #41 item 3: MCP `capture` sends progress while the command runs (a client whose request timeout
// resets on progress gets the result of a command longer than the timeout), starts in the
// background and returns the record at once, `read_text` pages a running record, `wait` tells
// when it ended; the whole result for `echo hello` is at most 2 KB.
// The bar is a 60 s timeout and a 90 s command; CI runs the same shape scaled down (a
// 2 s timeout, a 5 s command), since what matters is the ratio: progress every second.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp, textOf, type McpPair } from '../helpers/mcp';

let base: string;
let mcp: McpPair;
beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'airlock-mcp-live-'));
  mcp = await startMcp(join(base, 'vault'));
});
afterAll(async () => {
  await mcp.close();
  rmSync(base, { recursive: true, force: true });
});

const structured = (r: CallToolResult): Record<string, unknown> => r.structuredContent as Record<string, unknown>;

describe('MCP progress', () => {
  it('keeps a client with a short, progress-reset timeout waiting for a longer command', async () => {
    const progress: { progress: number; message?: string }[] = [];
    const t = Date.now();
    const r = (await mcp.client.callTool({ name: 'capture', arguments: { argv: ['sh', '-c', 'echo start; sleep 5; echo done'] } }, undefined, {
      timeout: 2000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => void progress.push(p),
    })) as CallToolResult;
    expect(Date.now() - t).toBeGreaterThan(4500);
    expect(r.isError).toBeFalsy();
    expect(structured(r)).toMatchObject({ state: 'ended', exit_code: 0, stdout: 'start\ndone\n' });
    expect(progress.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < progress.length; i++) expect(progress[i].progress).toBeGreaterThan(progress[i - 1].progress);
    expect(progress.at(-1)!.message).toMatch(/^running for \d+ s; stdout \d+ B, stderr 0 B so far$/);
  }, 20_000);

  it('without progress the same client gives up (the test can fail)', async () => {
    await expect(mcp.client.callTool({ name: 'capture', arguments: { argv: ['sh', '-c', 'sleep 4'] } }, undefined, { timeout: 2000 })).rejects.toThrow(/timed out/i);
  }, 20_000);
});

describe('MCP background captures', () => {
  it('returns the record at once; read_text pages it while it runs; wait returns its result', async () => {
    const t = Date.now();
    const started = await mcp.call('capture', { argv: ['sh', '-c', 'echo first; sleep 2; echo second'], background: true });
    expect(Date.now() - t).toBeLessThan(1500);
    const s = structured(started);
    expect(s).toMatchObject({ state: 'running', record: expect.stringMatching(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/) });
    expect(textOf(started)).toContain(`wait {"record":"${s.record}"}`);
    // The running record's text so far (flushed within a fraction of a second).
    let page: Record<string, unknown> = {};
    for (let i = 0; i < 20 && page.text !== 'first\n'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      page = structured(await mcp.call('read_text', { record: s.record }));
    }
    expect(page).toMatchObject({ running: true, text: 'first\n' });
    const early = structured(await mcp.call('wait', { record: s.record, timeout_ms: 0 }));
    expect(early).toMatchObject({ state: 'running', record: s.record });
    const done = structured(await mcp.call('wait', { record: s.record, timeout_ms: 20_000 }));
    expect(done).toMatchObject({ state: 'ended', exit_code: 0, stdout: 'first\nsecond\n' });
    const after = structured(await mcp.call('read_text', { record: s.record }));
    expect(after).toMatchObject({ running: false, text: 'first\nsecond\n' });
  }, 20_000);

  it('wait says so for a record that does not exist', async () => {
    const r = await mcp.call('wait', { record: '20000101T000000Z-00000000', timeout_ms: 0 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/no record 20000101T000000Z-00000000/);
  });
});

describe('MCP compact result', () => {
  it('the whole result for echo hello is at most 2 KB', async () => {
    const r = await mcp.call('capture', { argv: ['echo', 'hello'] });
    const whole = JSON.stringify({ content: r.content, structuredContent: r.structuredContent });
    expect(Buffer.byteLength(whole)).toBeLessThanOrEqual(2048);
    const s = structured(r);
    expect(s).toMatchObject({ exit_code: 0, stdout: 'hello\n', stderr: '', removed: {}, redaction: { stdout: { count: 0 }, stderr: { count: 0 } } });
    for (const key of ['truncated', 'termination', 'text_truncated', 'inline', 'withheld_to_end', 'sanitizer']) expect(s[key], key).toBeUndefined();
  });
});
