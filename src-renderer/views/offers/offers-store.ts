import { create } from 'zustand';
import type { OfferFilterInput } from '../../../src-main/contract';
import { DEFAULT_FORM, type FilterForm } from './offer-filter';
import type { Sort } from './offer-sort';

interface OffersState {
  form: FilterForm;
  /** The filter of the last search; null before the first. */
  searched: OfferFilterInput | null;
  sort: Sort;
  picked: Set<string>;
  count: number;
  /** The form was filled from Settings' default disk (once). */
  hasDiskDefault: boolean;
  patchForm(patch: Partial<FilterForm>): void;
  search(filter: OfferFilterInput): void;
  setSort(sort: Sort): void;
  togglePick(offerId: string): void;
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
  hasDiskDefault: false,
  patchForm: (patch) => set((s) => ({ form: { ...s.form, ...patch } })),
  search: (filter) => set({ searched: filter, picked: new Set() }),
  setSort: (sort) => set({ sort }),
  togglePick: (offerId) =>
    set((s) => {
      const picked = new Set(s.picked);
      if (picked.has(offerId)) picked.delete(offerId);
      else picked.add(offerId);
      return { picked, count: Math.min(MAX_POOL, Math.max(s.count, picked.size)) };
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
