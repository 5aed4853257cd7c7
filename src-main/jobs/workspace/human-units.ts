// Sizes and counts as people read them in progress notes and `tender push --dry-run`.

const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];

/** Decimal units, as disks and networks are sold: `12.3 MB`, `512 B`. */
export function formatBytes(n: number): string {
  let value = n;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** Thousands grouped with a space, which reads the same in every locale: `4 990`. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}
