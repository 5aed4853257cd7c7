import { useEffect } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { OfferFilterInput } from '../../src-main/contract';
import { ApiError, call, describeError } from '../api/backend';
import { keys, useSettings } from '../api/queries';
import { clockTime } from '../lib/format';
import { andList, configuredMarkets, MARKET, MARKETPLACES, marketName } from '../lib/marketplaces';
import { Spinner } from '../shell/icons';
import { useUi } from '../store/ui';
import { MarketChips } from './offers/MarketChips';
import { OfferFilters } from './offers/OfferFilters';
import { formToFilter } from './offers/offer-filter';
import { isKeyText, isNoneAnswered, sourceItems, type SourceItem } from './offers/offer-sources';
import { poolOf, poolProblem, sortOffers } from './offers/offer-sort';
import { OfferTable } from './offers/OfferTable';
import { useOffersUi } from './offers/offers-store';
import { PoolBar } from './offers/PoolBar';
import { SourcesLine } from './offers/SourcesLine';
import './offers/offers.css';

function sameFilter(a: OfferFilterInput | null, b: OfferFilterInput | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A provider error that a key in Settings fixes (missing, or refused). */
export function isKeyProblem(err: unknown): boolean {
  return err instanceof ApiError && isKeyText(err.message, err.hint);
}

const ALL_NAMES = andList(MARKETPLACES.map((m) => MARKET[m].name));
const KEY_WHERE = MARKETPLACES.map((m) => MARKET[m].keyWhere).join('; ');

/** Every marketplace's offers in one table: filter, sort, pick machines, and use them as a
 *  run's pool. */
export function OffersView(): React.JSX.Element {
  const ui = useOffersUi();
  const settings = useSettings();
  const setView = useUi((s) => s.setView);
  const diskDefault = settings.data?.defaults.diskGb ?? null;

  const configured = configuredMarkets(settings.data);
  const shown = (ui.providers ?? configured).filter((m) => configured.includes(m));
  // All that have a key: asked as "every configured one", so a key set meanwhile counts.
  const providers = shown.length === configured.length ? null : shown;
  const isNoneTicked = configured.length > 0 && shown.length === 0;

  const offers = useQuery({
    queryKey: keys.offers(providers ?? 'configured', ui.searched ?? {}),
    queryFn: () =>
      call('offers.searchAll', {
        ...(providers ? { providers } : {}),
        filter: ui.searched ?? {},
      }),
    enabled: ui.searched !== null && !isNoneTicked,
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

  const data = offers.data;
  const list = data?.offers ?? [];
  const items = data ? sourceItems(data.sources, configured) : [];
  const sorted = sortOffers(list, ui.sort);
  const { pool, auto } = poolOf(sorted, ui.picked, ui.count);
  const poolProvider = pool[0]?.provider ?? null;
  const isSearching = offers.isFetching;
  const searchingNames = andList((shown.length > 0 ? shown : MARKETPLACES).map(marketName));

  return (
    <div className="page of-offers-page" data-testid="offers">
      <div className="page-head">
        <div>
          <h1>GPU offers</h1>
          <div className="sub">
            Machines from {ALL_NAMES} you can rent now, in one table, priced all-in (GPU plus disk
            where the marketplace prices it apart). Pick some, or let the cheapest fill the pool,
            and start a run on them.
          </div>
        </div>
      </div>
      <OfferFilters
        isSearching={isSearching}
        isStale={ui.searched !== null && !sameFilter(formToFilter(ui.form).filter, ui.searched)}
        diskDefault={diskDefault}
        onSearch={onSearch}
        markets={
          <MarketChips
            configured={configured}
            shown={shown}
            onToggle={(m) => ui.toggleProvider(m, shown)}
            onSettings={() => setView('settings')}
          />
        }
      />

      {isNoneTicked ? (
        <div className="card empty" data-testid="offers-none-ticked">
          <strong>No marketplace ticked</strong>
          Tick Vast.ai, RunPod or Lambda Cloud above to see their offers.
        </div>
      ) : offers.isError ? (
        <OffersError
          error={offers.error}
          onSettings={() => setView('settings')}
          onRetry={() => void offers.refetch()}
        />
      ) : offers.isPending ? (
        <div className="card empty row of-offers-loading" data-testid="offers-loading">
          <Spinner /> Searching {searchingNames}…
        </div>
      ) : list.length === 0 && data && isNoneAnswered(data.sources) ? (
        <NoneAnswered
          items={items.filter((it) => it.state === 'error')}
          onSettings={() => setView('settings')}
          onRetry={() => void offers.refetch()}
        />
      ) : list.length === 0 ? (
        <>
          <SourcesLine items={items} />
          <div className="card empty" data-testid="offers-empty">
            <strong>No machine matches</strong>
            Loosen the filter: raise the price cap, lower the VRAM or reliability minimum, pick
            another region, untick Verified machines only, or tick another marketplace.
          </div>
        </>
      ) : (
        <>
          <SourcesLine items={items} />
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
      {list.length > 0 && !isNoneTicked && (
        <PoolBar
          count={ui.count}
          picked={ui.picked.size}
          pool={pool}
          available={list.filter((o) => o.provider === poolProvider).length}
          providerName={poolProvider && marketName(poolProvider)}
          problem={poolProblem(pool)}
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
        <strong>{isKey ? 'No marketplace has an API key' : 'The search failed'}</strong>
        <div>{describeError(props.error)}</div>
        {isKey && (
          <div className="of-dim-on-red">
            Paste a key in Settings ({KEY_WHERE}); Tender stores it in the OS keychain and never
            shows it again.
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

/** Every marketplace searched failed: each one's reason, and Settings when a key fixes it. */
function NoneAnswered(props: {
  items: SourceItem[];
  onSettings: () => void;
  onRetry: () => void;
}): React.JSX.Element {
  const isKey = props.items.some((it) => it.isKeyProblem);
  const only = props.items.length === 1 ? marketName(props.items[0]!.provider) : null;
  const title = only
    ? isKey
      ? `${only} needs an API key`
      : `${only} did not answer`
    : 'No marketplace answered';
  return (
    <div className="alert of-offers-error" role="alert" data-testid="offers-error">
      <div>
        <strong>{title}</strong>
        {props.items.map((it) => (
          <div key={it.provider} data-testid={`offers-error-${it.provider}`}>
            {it.text}
          </div>
        ))}
        {isKey && (
          <div className="of-dim-on-red">
            Paste a key in Settings ({KEY_WHERE}); Tender stores it in the OS keychain and never
            shows it again.
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
