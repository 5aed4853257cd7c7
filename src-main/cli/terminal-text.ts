// What a node may make the user's terminal do: colour its text, nothing else. A line from a
// node (job output, bootstrap, agent notices) is written to a real terminal by the CLI, and a
// terminal obeys what it reads: OSC 0/2 set the window title, OSC 52 writes the clipboard,
// OSC 8 dresses a link as other text, DCS/APC reach terminal extensions, CSI moves the cursor
// (and so overwrites what Tender printed). Lines arrive whole (the agent splits on '\n'), so
// each is cleaned alone; a sequence a line cut left open is dropped to the line's end, and
// its rest in the next line is plain text.

const ESC = 0x1b;
const BEL = 0x07;
/** C1 controls as UTF-8 text decodes them (U+0080–U+009F); some terminals obey them. */
const C1_FIRST = 0x80;
const C1_LAST = 0x9f;
const C1_ST = 0x9c;

/** Kept: tab, newline, and '\r' (progress bars redraw their line with it; the agent keeps it). */
const KEPT_CONTROLS = new Set([0x09, 0x0a, 0x0d]);

/** A CSI that only sets colours and attributes: `ESC [` digits, ';' or ':', then `m`. */
const SGR_PARAMS = /^[0-9;:]*$/;

/**
 * `text` with every control sequence removed except SGR colour sequences (`ESC [ … m`), and
 * every control character removed except tab, newline and carriage return. Pure.
 */
export function terminalSafe(text: string): string {
  if (!hasControl(text)) return text; // the common case: nothing to scan
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === ESC) {
      const end = escapeEnd(text, i);
      if (isSgr(text, i, end)) out += text.slice(i, end);
      i = end;
    } else if (c >= C1_FIRST && c <= C1_LAST) {
      i = c1End(text, i);
    } else if ((c < 0x20 && !KEPT_CONTROLS.has(c)) || c === 0x7f) {
      i += 1;
    } else {
      out += text[i];
      i += 1;
    }
  }
  return out;
}

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && !KEPT_CONTROLS.has(c)) || (c >= 0x7f && c <= C1_LAST)) return true;
  }
  return false;
}

/** Where the escape sequence starting at `i` (an ESC) ends (exclusive). */
function escapeEnd(text: string, i: number): number {
  const kind = text[i + 1];
  if (kind === undefined) return i + 1;
  if (kind === '[') return csiEnd(text, i + 2);
  // OSC, DCS, SOS, PM, APC: a string up to its terminator (OSC also ends at BEL).
  if (kind === ']' || kind === 'P' || kind === 'X' || kind === '^' || kind === '_')
    return stringEnd(text, i + 2, kind === ']');
  // ESC, intermediates (0x20–0x2F), one final byte: charset designations, ESC c (reset)…
  let j = i + 1;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  const final = text.charCodeAt(j);
  return final >= 0x30 && final <= 0x7e ? j + 1 : j;
}

/** A CSI's parameters and intermediates run to a final byte in 0x40–0x7E. */
function csiEnd(text: string, j: number): number {
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c >= 0x40 && c <= 0x7e) return j + 1;
    if (c < 0x20 || c > 0x3f) return j; // not a CSI byte: the sequence is broken off here
    j++;
  }
  return j;
}

/** A control string ends at ST (`ESC \` or U+009C) or, for OSC, BEL; unterminated: the
 *  end of the text. */
function stringEnd(text: string, j: number, belEnds: boolean): number {
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === C1_ST || (belEnds && c === BEL)) return j + 1;
    // ESC \ is ST; any other ESC aborts the string and begins a sequence of its own.
    if (c === ESC) return text[j + 1] === '\\' ? j + 2 : j;
    j++;
  }
  return j;
}

/** A C1 control: CSI (U+009B) and the string introducers take their sequence with them. */
function c1End(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x9b) return csiEnd(text, i + 1);
  if (c === 0x9d) return stringEnd(text, i + 1, true);
  if (c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) return stringEnd(text, i + 1, false);
  return i + 1;
}

function isSgr(text: string, start: number, end: number): boolean {
  return (
    text[start + 1] === '[' &&
    text[end - 1] === 'm' &&
    end - start >= 3 &&
    SGR_PARAMS.test(text.slice(start + 2, end - 1))
  );
}
