// Where a distributed run's nodes are rented on Vast.ai.

/** The offers in the location of the cheapest one first, each group cheapest first: the
 *  nodes of one gang land near each other (Vast.ai's search has no host-group filter). */
export function sameLocationFirst<T extends { location: string | null }>(offers: T[]): T[] {
  const here = offers[0]?.location ?? null;
  if (here === null) return offers;
  return [
    ...offers.filter((o) => o.location === here),
    ...offers.filter((o) => o.location !== here),
  ];
}
