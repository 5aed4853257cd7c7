// The hidden prompt turns the terminal's echo off before its question shows: a value typed
// or pasted the moment the question appears is never echoed.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { terminalPrompt } from './hidden-prompt';

/** A terminal's two ends, recording what is done to them in order. */
function fakeTerminal() {
  const steps: string[] = [];
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode: (on: boolean) => steps.push(`raw ${on}`),
    setEncoding: () => {},
    resume: () => {},
    pause: () => {},
  });
  const stderr = { isTTY: true, write: (text: string) => steps.push(`write ${text}`.trim()) };
  return {
    steps,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    type: (text: string) => stdin.emit('data', text),
  };
}

describe('terminalPrompt', () => {
  it('echo off before the question, back on after the answer', async () => {
    const t = fakeTerminal();
    const ask = terminalPrompt(t.stdin, t.stderr)!;
    const answer = ask('API_TOKEN');
    expect(t.steps).toEqual(['raw true', 'write API_TOKEN (secret, not shown):']);
    t.type('tok-1\r');
    expect(await answer).toBe('tok-1');
    expect(t.steps.slice(2)).toEqual(['raw false', 'write']);
  });

  it.each([
    ['a pasted value with its line end', 'abc\n', 'abc'],
    ['backspace and Ctrl-U', 'xy\u007fz\u0015ok\r', 'ok'],
  ])('%s', async (_what, typed, expected) => {
    const t = fakeTerminal();
    const answer = terminalPrompt(t.stdin, t.stderr)!('X');
    t.type(typed);
    expect(await answer).toBe(expected);
  });

  it('no terminal: no prompt', () => {
    const t = fakeTerminal();
    expect(terminalPrompt({ isTTY: false } as NodeJS.ReadStream, t.stderr)).toBeUndefined();
  });
});
