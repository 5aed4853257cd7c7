/** Line colours on the dark theme, distinct from each other and from the grid: the theme's
 *  own first (teal, blue, amber, red, green), then more. Past the list, hues go round by
 *  the golden angle, so neighbours never look alike. */
const PALETTE = [
  '#5fd0b6',
  '#6aa7ff',
  '#f0b44c',
  '#f2696b',
  '#58c98b',
  '#b18cff',
  '#ff8cc6',
  '#4dd0e1',
  '#ff9f5a',
  '#c5e478',
  '#9aa4b2',
  '#e6e9ee',
] as const;

/** The i-th colour (0-based), the same every time. */
export function colourAt(i: number): string {
  if (i < PALETTE.length) return PALETTE[i]!;
  const hue = Math.round((i * 137.508) % 360);
  return `hsl(${hue}, 70%, 66%)`;
}
