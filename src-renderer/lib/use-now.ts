import { useEffect, useState } from 'react';

/** The current time, re-rendering every `everyMs` (for ages, accrued cost, deadlines). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}
