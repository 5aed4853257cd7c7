import { describe, expect, it } from 'vitest';
import { terminalSafe } from './terminal-text';

const E = '\x1b';
const BEL = '\x07';
const ST = `${E}\\`;

// [what, node line, what the terminal is given]
const cases: [string, string, string][] = [
  ['plain text', 'epoch 1 loss 0.5', 'epoch 1 loss 0.5'],
  ['unicode text', 'Größe ✓ 学习', 'Größe ✓ 学习'],
  ['tab, newline, carriage return (progress bars)', 'a\tb\r 50%\nc', 'a\tb\r 50%\nc'],
  ['SGR colour kept', `${E}[31mred${E}[0m`, `${E}[31mred${E}[0m`],
  ['SGR reset without parameters', `${E}[m`, `${E}[m`],
  [
    'SGR 256 and true colour',
    `${E}[38;5;208mx${E}[38:2::1:2:3m`,
    `${E}[38;5;208mx${E}[38:2::1:2:3m`,
  ],
  ['OSC 0 title, BEL', `${E}]0;pwned${BEL}after`, 'after'],
  ['OSC 2 title, ST', `${E}]2;pwned${ST}after`, 'after'],
  ['OSC 52 clipboard write', `x${E}]52;c;Y3VybCBldmlsfHNo${BEL}y`, 'xy'],
  ['OSC 8 link keeps its text', `${E}]8;;https://evil.example${ST}docs${E}]8;;${ST}`, 'docs'],
  ['OSC with C1 ST', `${E}]0;t\x9cok`, 'ok'],
  ['OSC cut by the line end', `ok${E}]52;c;AAAA`, 'ok'],
  ['OSC aborted by another escape', `${E}]0;t${E}[1mbold`, `${E}[1mbold`],
  ['DCS (e.g. XTGETTCAP, sixel)', `a${E}P+q544e${ST}b`, 'ab'],
  ['APC, PM, SOS', `${E}_kitty${ST}${E}^pm${ST}${E}Xsos${ST}z`, 'z'],
  ['CSI cursor up + erase line (overwrite Tender’s lines)', `${E}[2A${E}[2Kfake`, 'fake'],
  ['CSI cursor position', `${E}[10;1Hx`, 'x'],
  ['CSI clear screen', `${E}[2J${E}[3Jx`, 'x'],
  ['CSI private mode (alt screen, mouse)', `${E}[?1049h${E}[?1000hx`, 'x'],
  ['CSI device status report (answers into stdin)', `${E}[6nx`, 'x'],
  ['CSI window ops (report title)', `${E}[21tx`, 'x'],
  ['CSI ending in m but not SGR (private)', `${E}[>4;2mx`, 'x'],
  ['CSI cut by the line end', `x${E}[12`, 'x'],
  ['C1 CSI (U+009B)', `\x9b2Jx`, 'x'],
  ['C1 OSC (U+009D) with BEL', `\x9d0;t${BEL}x`, 'x'],
  ['C1 DCS (U+0090) with C1 ST', `\x90q#0\x9cx`, 'x'],
  ['lone C1 controls', 'a\x85b\x8dc', 'abc'],
  ['ESC c full reset', `${E}cx`, 'x'],
  ['charset designation', `${E}(0x${E}(B`, 'x'],
  ['save/restore cursor', `${E}7x${E}8`, 'x'],
  ['bell, backspace, NUL, vertical tab, form feed, DEL', `a${BEL}\b\0\v\f\x7fb`, 'ab'],
  ['an escape at the very end', `x${E}`, 'x'],
  ['ESC ESC', `${E}${E}[32mg`, `${E}[32mg`],
];

describe('terminalSafe', () => {
  it.each(cases)('%s', (_what, line, shown) => {
    expect(terminalSafe(line)).toBe(shown);
  });

  it('leaves nothing but SGR escapes in any mix of the above', () => {
    const all = cases.map((c) => c[1]).join('');
    const cleaned = terminalSafe(all);
    // eslint-disable-next-line no-control-regex
    const escapes = cleaned.match(/\x1b[^m]*m?/g) ?? [];
    // eslint-disable-next-line no-control-regex
    for (const e of escapes) expect(e).toMatch(/^\x1b\[[0-9;:]*m$/);
    // eslint-disable-next-line no-control-regex
    expect(cleaned).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]/);
  });
});
