import { afterEach, describe, expect, it } from 'vitest';
import type { RequestView } from '../../../../shared/bridge/types';
import { flatten, makeEnv, promptWindow, type Env } from './env';

let env: Env;
afterEach(async () => env?.close());

const pendingOf = async (e: Env): Promise<RequestView[]> => (await e.ok<RequestView[]>(e.viewer(), 'listRequests')).filter((r) => r.state === 'pending');

describe('review queue over the bridge', () => {
  it('lists the demo vault\'s pending requests, escaped, pending first', async () => {
    env = await makeEnv();
    const list = await env.ok<RequestView[]>(env.viewer(), 'listRequests');
    expect(list.map((r) => [r.kind, r.state])).toEqual([['text', 'pending'], ['hex-range', 'pending']]);
    expect(list[1]).toMatchObject({ range: [expect.any(Number), expect.any(Number)], title: 'build.log', requester: expect.stringMatching(/ via demo$/), extract: null });
    expect(list[0].reason).toContain('says what the lockfile says \u2014 and');
  });

  it('approve opens main\'s prompt; only the human\'s answer there approves, and the extract comes back', async () => {
    env = await makeEnv();
    const [target] = (await pendingOf(env)).filter((r) => r.kind === 'hex-range');
    const answer = env.ok<RequestView>(env.viewer(), 'reviewRequest', target.id, 'approve', '');
    const pw = await promptWindow(env);
    const prompt = await env.ok<{ extract: RequestView; artifact: { sha256: string }; confirmDigits: number }>(env.prompt(pw), 'getPrompt');
    expect(prompt.extract).toMatchObject({ id: target.id, kind: 'hex-range' });
    // Still pending while the prompt waits: the renderer's call approved nothing.
    expect((await env.ok<RequestView[]>(env.viewer(2), 'listRequests')).find((r) => r.id === target.id)!.state).toBe('pending');
    const wrong = await env.call(env.prompt(pw), 'answerPrompt', { decision: 'approve', reason: 'incident 4711', confirm: '00000000' });
    expect(wrong).toMatchObject({ ok: false, code: 'bad-request' });
    await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'approve', reason: 'incident 4711', confirm: prompt.artifact.sha256.slice(0, 8) });
    const done = await answer;
    expect(done.state).toBe('approved');
    expect(done.decidedBy).toMatch(/ via desktop$/);
    expect(done.note).toBe('incident 4711');
    if (done.extract?.kind !== 'hex-range') throw new Error('no hex extract');
    expect(done.extract.rows.join('\n')).toContain('1b 5d 35 32');
    expect(await env.actions()).toEqual(expect.arrayContaining(['request.created', 'request.approved']));
    expect(await env.actions()).not.toContain('raw.granted');
  });

  it('a closed prompt leaves the request pending; deny is direct and audited', async () => {
    env = await makeEnv();
    const [a, b] = await pendingOf(env);
    const answer = env.ok<RequestView>(env.viewer(), 'reviewRequest', a.id, 'approve', '');
    const pw = await promptWindow(env);
    await env.services.windowClosed(pw);
    expect((await answer).state).toBe('pending');
    const denied = await env.ok<RequestView>(env.viewer(), 'reviewRequest', b.id, 'deny', 'not \u001b[2J needed');
    expect(denied).toMatchObject({ state: 'denied', note: 'not \\x1b[2J needed', extract: null });
    expect((await env.actions()).filter((x) => x.startsWith('request.'))).toEqual(['request.created', 'request.created', 'request.denied']);
  });

  it('the human can deny in the prompt too', async () => {
    env = await makeEnv();
    const [a] = await pendingOf(env);
    const answer = env.ok<RequestView>(env.viewer(), 'reviewRequest', a.id, 'approve', '');
    const pw = await promptWindow(env);
    await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'deny', reason: 'no', confirm: '' });
    expect(await answer).toMatchObject({ state: 'denied', note: 'no' });
    expect(await env.actions()).not.toContain('raw.denied');
  });
});

describe('forged review calls', () => {
  it('a traversal id, a bad decision, extra arguments: refused before anything runs, and audited', async () => {
    env = await makeEnv();
    for (const args of [['../requests/x', 'deny', ''], ['req-20260101T000000Z-00000000/../x', 'approve', ''], ['req-20260101T000000Z-00000000', 'grant', ''], ['req-20260101T000000Z-00000000', 'approve'], ['req-20260101T000000Z-00000000', 'approve', '', true], [{ id: 'x' }, 'approve', '']]) {
      const r = await env.call(env.viewer(), 'reviewRequest', ...args);
      expect(r, JSON.stringify(args)).toMatchObject({ ok: false, code: 'bad-request' });
    }
    expect((await env.actions()).filter((a) => a === 'bridge.refused').length).toBeGreaterThanOrEqual(6);
    expect(env.opened).toEqual([]);
  });

  it('a request that does not exist, or was decided, is refused', async () => {
    env = await makeEnv();
    expect(await env.call(env.viewer(), 'reviewRequest', 'req-20260101T000000Z-00000000', 'approve', '')).toMatchObject({ ok: false, code: 'not-found' });
    const [a] = await pendingOf(env);
    await env.ok(env.viewer(), 'reviewRequest', a.id, 'deny', '');
    expect(await env.call(env.viewer(), 'reviewRequest', a.id, 'approve', '')).toMatchObject({ ok: false, code: 'bad-request' });
    expect(env.opened).toEqual([]);
  });

  it('the prompt answer is accepted only from the prompt window, never from a viewer', async () => {
    env = await makeEnv();
    const [a] = await pendingOf(env);
    const answer = env.ok<RequestView>(env.viewer(), 'reviewRequest', a.id, 'approve', '');
    const pw = await promptWindow(env);
    const sha = (await env.ok<{ artifact: { sha256: string } }>(env.prompt(pw), 'getPrompt')).artifact.sha256;
    // A compromised renderer posting the prompt's answer on either channel.
    expect(await env.services.dispatcher.callPrompt(env.viewer(), 'answerPrompt', [{ decision: 'approve', reason: 'x', confirm: sha.slice(0, 8) }])).toMatchObject({ ok: false, code: 'forbidden' });
    expect(await env.call(env.viewer(), 'answerPrompt', { decision: 'approve', reason: 'x', confirm: sha.slice(0, 8) })).toMatchObject({ ok: false, code: 'bad-request' });
    // A second approve from the same window while one prompt waits.
    expect(await env.call(env.viewer(), 'reviewRequest', a.id, 'approve', '')).toMatchObject({ ok: false, code: 'forbidden' });
    await env.services.windowClosed(pw);
    expect((await answer).state).toBe('pending');
    expect(flatten(await env.ok(env.viewer(), 'listRequests'))).not.toMatch(/[\x1b\x07]/);
  });
});
