import { create } from 'zustand';
import type { OfferFilterInput } from '../../../src-main/contract';
import { MARKETPLACES, type Marketplace } from '../../lib/marketplaces';
import { DEFAULT_FORM, type FilterForm } from './offer-filter';
import type { Sort } from './offer-sort';

interface OffersState {
  form: FilterForm;
  /** The filter of the last search; null before the first. */
  searched: OfferFilterInput | null;
  sort: Sort;
  /** Picked offers by `offerKey` (provider and offer id). */
  picked: Set<string>;
  count: number;
  /** The marketplaces searched, as ticked; null: every configured one (the default, which
   *  follows keys added or forgotten in Settings). */
  providers: Marketplace[] | null;
  /** The form was filled from Settings' default disk (once). */
  hasDiskDefault: boolean;
  patchForm(patch: Partial<FilterForm>): void;
  search(filter: OfferFilterInput): void;
  setSort(sort: Sort): void;
  togglePick(key: string): void;
  /** Ticks or unticks a marketplace; `shown` is what is ticked now. Picks of one unticked
   *  are dropped (their rows leave the table). */
  toggleProvider(m: Marketplace, shown: readonly Marketplace[]): void;
  setCount(count: number): void;
  /** Back to the safe defaults (with the disk size from Settings). */
  reset(diskGb: number | null): void;
  applyDiskDefault(diskGb: number): void;
}

export const MAX_POOL = 16;

/** The offer browser's own state: kept while you look at other views. */
export const useOffersUi = create<OffersState>()((set) => ({
  form: DEFAULT_FORM,
  searched: null,
  sort: { key: 'price', dir: 'asc' },
  picked: new Set(),
  count: 1,
  providers: null,
  hasDiskDefault: false,
  patchForm: (patch) => set((s) => ({ form: { ...s.form, ...patch } })),
  search: (filter) => set({ searched: filter, picked: new Set() }),
  setSort: (sort) => set({ sort }),
  togglePick: (key) =>
    set((s) => {
      const picked = new Set(s.picked);
      if (picked.has(key)) picked.delete(key);
      else picked.add(key);
      return { picked, count: Math.min(MAX_POOL, Math.max(s.count, picked.size)) };
    }),
  toggleProvider: (m, shown) =>
    set((s) => {
      const isOn = shown.includes(m);
      const providers = MARKETPLACES.filter((x) => (x === m ? !isOn : shown.includes(x)));
      const picked = isOn ? new Set([...s.picked].filter((k) => !k.startsWith(`${m}:`))) : s.picked;
      return { providers, picked };
    }),
  setCount: (count) =>
    set((s) => ({ count: Math.min(MAX_POOL, Math.max(1, s.picked.size, Math.round(count))) })),
  reset: (diskGb) =>
    set({ form: diskGb === null ? DEFAULT_FORM : { ...DEFAULT_FORM, diskGb: String(diskGb) } }),
  applyDiskDefault: (diskGb) =>
    set((s) =>
      s.hasDiskDefault ? {} : { hasDiskDefault: true, form: { ...s.form, diskGb: String(diskGb) } },
    ),
}));
