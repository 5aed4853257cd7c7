import { useEffect } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { OfferFilterInput } from '../../src-main/contract';
import { ApiError, call, describeError } from '../api/backend';
import { keys, useSettings } from '../api/queries';
import { clockTime } from '../lib/format';
import { Spinner } from '../shell/icons';
import { useUi } from '../store/ui';
import { OfferFilters } from './offers/OfferFilters';
import { formToFilter } from './offers/offer-filter';
import { poolOf, sortOffers } from './offers/offer-sort';
import { OfferTable } from './offers/OfferTable';
import { useOffersUi } from './offers/offers-store';
import { PoolBar } from './offers/PoolBar';
import './offers/offers.css';

const PROVIDER = 'vastai';

function sameFilter(a: OfferFilterInput | null, b: OfferFilterInput | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A provider error that a key in Settings fixes (missing, or refused). */
export function isKeyProblem(err: unknown): boolean {
  return err instanceof ApiError && /api key/i.test(`${err.message} ${err.hint ?? ''}`);
}

/** Vast.ai's marketplace: filter, sort, pick machines, and use them as a run's pool. */
export function OffersView(): React.JSX.Element {
  const ui = useOffersUi();
  const settings = useSettings();
  const setView = useUi((s) => s.setView);
  const diskDefault = settings.data?.defaults.diskGb ?? null;

  const offers = useQuery({
    queryKey: keys.offers(PROVIDER, ui.searched ?? {}),
    queryFn: () => call('offers.search', { provider: PROVIDER, filter: ui.searched ?? {} }),
    enabled: ui.searched !== null,
    staleTime: 60_000,
    retry: false,
    // A new search keeps the last results on screen, dimmed, until its own arrive.
    placeholderData: keepPreviousData,
  });

  // The first visit searches with the safe defaults (and the disk size from Settings), so
  // the market is on screen at once.
  const { searched, applyDiskDefault, search } = ui;
  const settingsSettled = !settings.isPending;
  useEffect(() => {
    if (searched !== null || !settingsSettled) return;
    if (diskDefault !== null) applyDiskDefault(diskDefault);
    const { filter } = formToFilter(useOffersUi.getState().form);
    if (filter) search(filter);
  }, [searched, settingsSettled, diskDefault, applyDiskDefault, search]);

  const onSearch = (filter: OfferFilterInput) => {
    if (sameFilter(filter, ui.searched)) void offers.refetch();
    else ui.search(filter);
  };

  const list = offers.data ?? [];
  const sorted = sortOffers(list, ui.sort);
  const { pool, auto } = poolOf(sorted, ui.picked, ui.count);
  const isSearching = offers.isFetching;

  return (
    <div className="page of-offers-page" data-testid="offers">
      <div className="page-head">
        <div>
          <h1>GPU offers</h1>
          <div className="sub">
            Vast.ai machines you can rent now, priced all-in (GPU plus disk). Pick some, or let the
            cheapest fill the pool, and start a run on them.
          </div>
        </div>
      </div>
      <OfferFilters
        isSearching={isSearching}
        isStale={ui.searched !== null && !sameFilter(formToFilter(ui.form).filter, ui.searched)}
        diskDefault={diskDefault}
        onSearch={onSearch}
      />

      {offers.isError ? (
        <OffersError
          error={offers.error}
          onSettings={() => setView('settings')}
          onRetry={() => void offers.refetch()}
        />
      ) : offers.isPending ? (
        <div className="card empty row of-offers-loading" data-testid="offers-loading">
          <Spinner /> Searching Vast.ai…
        </div>
      ) : list.length === 0 ? (
        <div className="card empty" data-testid="offers-empty">
          <strong>No machine matches</strong>
          Loosen the filter: raise the price cap, lower the VRAM or reliability minimum, pick
          another region, or untick Verified machines only.
        </div>
      ) : (
        <>
          <div className="of-results-head">
            <span>
              <b>{list.length}</b> offer{list.length === 1 ? '' : 's'}
              {list.length >= (ui.searched?.limit ?? 64) &&
                ' (the cheapest; narrow the filter to see others)'}
            </span>
            <span className="faint">
              {isSearching ? (
                <span className="row">
                  <Spinner size={10} /> refreshing…
                </span>
              ) : (
                `as of ${clockTime(offers.dataUpdatedAt)}; prices move, so a taken offer falls back to a similar machine`
              )}
            </span>
          </div>
          <div className={`card of-offer-card ${isSearching ? 'of-is-refreshing' : ''}`}>
            <OfferTable
              offers={sorted}
              sort={ui.sort}
              picked={ui.picked}
              auto={auto}
              onSort={ui.setSort}
              onToggle={ui.togglePick}
            />
          </div>
        </>
      )}
      {list.length > 0 && (
        <PoolBar
          count={ui.count}
          picked={ui.picked.size}
          pool={pool}
          available={list.length}
          onCount={ui.setCount}
          onUse={() => useUi.getState().useOffers(pool, ui.searched ?? {})}
        />
      )}
    </div>
  );
}

function OffersError(props: {
  error: unknown;
  onSettings: () => void;
  onRetry: () => void;
}): React.JSX.Element {
  const isKey = isKeyProblem(props.error);
  return (
    <div className="alert of-offers-error" role="alert" data-testid="offers-error">
      <div>
        <strong>{isKey ? 'Vast.ai needs an API key' : 'The search failed'}</strong>
        <div>{describeError(props.error)}</div>
        {isKey && (
          <div className="of-dim-on-red">
            Paste your key in Settings (Vast.ai console → Account → Keys); Tender stores it in the
            OS keychain and never shows it again.
          </div>
        )}
      </div>
      <div className="row">
        {isKey && (
          <button
            className="btn btn-primary"
            onClick={props.onSettings}
            data-testid="offers-open-settings"
          >
            Open Settings
          </button>
        )}
        <button className="btn" onClick={props.onRetry}>
          Try again
        </button>
      </div>
    </div>
  );
}
