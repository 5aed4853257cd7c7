import { useSettings } from '../../api/queries';
import { perHour } from '../../lib/format';
import {
  andList,
  configuredMarkets,
  isMarketplace,
  MARKET,
  MARKETPLACES,
  marketName,
  type Marketplace,
} from '../../lib/marketplaces';
import { useUi } from '../../store/ui';
import { CloseIcon, SearchIcon } from '../run/icons';
import { CountField } from './CountField';
import { ImageField } from './ImageField';
import { hasInterruptible, marketsOf } from './market-pool';
import { ImageLoginField } from './ImageLoginField';
import type { CheapestMatch } from './use-cheapest-match';

/** A marketplace pool: one marketplace (offers picked there, or its cheapest match), several
 *  tried in order, or the cheapest across them; the node shape, a bid, the image. */
export function MarketPool({ cheapest }: { cheapest: CheapestMatch }): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const patch = useUi((s) => s.patchDraft);
  const setView = useUi((s) => s.setView);
  const f = draft.offerFilter;
  const setFilter = (next: Partial<typeof f>) => patch({ offerFilter: { ...f, ...next } });
  const num = (v: string) =>
    v.trim() === '' || !Number.isFinite(Number(v)) ? undefined : Number(v);
  const extra = Math.max(0, draft.count - draft.offers.length);
  const isOne = isMarketplace(draft.provider);
  const lacksBid = marketsOf(draft).filter((m) => !MARKET[m].hasInterruptible);
  return (
    <>
      {draft.provider === 'chain' && <ChainField />}
      {draft.provider === 'cheapest' && <CheapestMarkets />}
      {(isOne || draft.offers.length > 0) && (
        <div className="field">
          <div className="label">Offers picked</div>
          {draft.offers.length === 0 ? (
            <div className="hint">
              None: nodes rent the cheapest {marketName(draft.provider)} offers matching the shape
              below.
            </div>
          ) : (
            <div className="chips">
              {draft.offers.map((o) => (
                <span className="chip" key={o.offerId} data-testid="offer-chip">
                  <strong>
                    {o.gpuCount}× {o.gpuName}
                  </strong>
                  <span className="tabular">{perHour(o.pricePerHour)}</span>
                  <span className="faint">{marketName(o.provider)}</span>
                  {o.location && <span className="faint">{o.location}</span>}
                  <button
                    className="chip-x"
                    aria-label={`Remove offer ${o.offerId}`}
                    onClick={() => patch({ offers: draft.offers.filter((x) => x !== o) })}
                  >
                    <CloseIcon />
                  </button>
                </span>
              ))}
            </div>
          )}
          <div>
            <button
              className="btn btn-sm"
              data-testid="browse-offers"
              onClick={() => setView('offers')}
            >
              <SearchIcon /> Browse offers
            </button>
          </div>
        </div>
      )}
      <CountField
        min={Math.max(1, draft.offers.length)}
        hint={
          draft.offers.length > 0
            ? `${extra > 0 ? `${extra} beyond the picked offers rent${extra === 1 ? 's' : ''} the cheapest match.` : 'One node per picked offer.'}`
            : isOne
              ? 'Each node rents the cheapest matching offer.'
              : draft.provider === 'chain'
                ? 'Each node rents the cheapest matching offer of the first marketplace that has one.'
                : 'Each node rents the cheapest matching offer of any marketplace.'
        }
      />
      <div className="shape-grid">
        <div className="field">
          <label htmlFor="gpu">GPU</label>
          <input
            id="gpu"
            className="input"
            placeholder="any, e.g. RTX 4090"
            value={f.gpu ?? ''}
            onChange={(e) => setFilter({ gpu: e.target.value || undefined })}
          />
        </div>
        <div className="field">
          <label htmlFor="gpus">GPUs per node</label>
          <input
            id="gpus"
            className="input tabular"
            type="number"
            min={1}
            max={16}
            value={f.gpuCount ?? 1}
            onChange={(e) =>
              setFilter({ gpuCount: Math.max(1, Math.floor(Number(e.target.value) || 1)) })
            }
          />
        </div>
        <div className="field">
          <label htmlFor="maxprice">Max $/h per node</label>
          <input
            id="maxprice"
            className="input tabular"
            type="number"
            min={0}
            step={0.05}
            placeholder="no cap"
            value={f.maxPrice ?? ''}
            onChange={(e) => setFilter({ maxPrice: num(e.target.value) })}
          />
        </div>
        <div className="field">
          <label htmlFor="disk">Disk GB</label>
          <input
            id="disk"
            className="input tabular"
            type="number"
            min={8}
            placeholder="32"
            value={f.diskGb ?? ''}
            onChange={(e) => setFilter({ diskGb: num(e.target.value) })}
          />
        </div>
      </div>
      {hasInterruptible(draft) ? (
        <div className="field">
          <label className="check">
            <input
              type="checkbox"
              data-testid="interruptible"
              checked={draft.interruptible}
              onChange={(e) => patch({ interruptible: e.target.checked })}
            />
            <span>
              Interruptible (a bid: cheaper; outbid, it stops with its disk until the bid wins)
            </span>
          </label>
          {draft.interruptible && (
            <div className="row">
              <input
                id="bid"
                aria-label="Bid in $/h for the machine"
                data-testid="bid-input"
                className="input tabular count-input"
                placeholder="min + 10%"
                value={draft.bid}
                onChange={(e) => patch({ bid: e.target.value })}
              />
              <span className="hint grow">
                $/h for the machine, storage not included; never above the on-demand price. Set
                recovery to <span className="mono">preempted</span> in tender.toml to move on when
                outbid.
              </span>
            </div>
          )}
          {draft.interruptible && lacksBid.length > 0 && (
            <span className="hint">
              {andList(lacksBid.map((m) => MARKET[m].name))} sells no interruptible machines: it is
              skipped.
            </span>
          )}
        </div>
      ) : (
        <div className="hint" data-testid="no-interruptible">
          {marketName(draft.provider)} sells no interruptible machines: nodes are on demand.
        </div>
      )}
      <ImageField />
      <div className="field">
        <label htmlFor="pull-stall">Give up a pull after</label>
        <input
          id="pull-stall"
          className="input mono"
          data-testid="pull-stall"
          placeholder="10m without progress"
          title="A host whose image pull makes no progress this long is given up and another rented; a pull that keeps moving is waited for (pull_stall)"
          value={draft.pullStall}
          onChange={(e) => patch({ pullStall: e.target.value })}
        />
      </div>
      <ImageLoginField />
      {extra > 0 && <CheapestLine cheapest={cheapest} />}
    </>
  );
}

function CheapestLine({ cheapest }: { cheapest: CheapestMatch }): React.JSX.Element {
  if (cheapest.state === 'idle') return <></>;
  if (cheapest.state === 'loading') return <div className="hint">Looking up matching offers…</div>;
  if (cheapest.state === 'error')
    return <div className="hint">Prices unknown: {cheapest.error}</div>;
  if (cheapest.price === null)
    return <div className="field-error">No offer matches this shape right now.</div>;
  return (
    <div className="hint" data-testid="cheapest-match">
      Cheapest match now: <span className="tabular">{perHour(cheapest.price)}</span>
      {cheapest.provider && ` on ${marketName(cheapest.provider)}`} (
      {cheapest.matches >= 64 ? '64+' : cheapest.matches} offer
      {cheapest.matches === 1 ? '' : 's'} match).
    </div>
  );
}

/** A chain's marketplaces: ticked ones are tried first to last, a node going to the next
 *  only when one has no matching capacity. */
function ChainField(): React.JSX.Element {
  const chain = useUi((s) => s.draft.chain);
  const patch = useUi((s) => s.patchDraft);
  const configured = configuredMarkets(useSettings().data);
  const rest = MARKETPLACES.filter((m) => !chain.includes(m));
  const move = (m: Marketplace, by: -1 | 1) => {
    const i = chain.indexOf(m);
    const next = chain.slice();
    next.splice(i, 1);
    next.splice(i + by, 0, m);
    patch({ chain: next });
  };
  const row = (m: Marketplace, i: number | null) => (
    <li key={m} className="chain-row" data-testid={`chain-${m}`}>
      <label className="check grow">
        <input
          type="checkbox"
          checked={i !== null}
          onChange={(e) =>
            patch({ chain: e.target.checked ? [...chain, m] : chain.filter((x) => x !== m) })
          }
        />
        <span>
          {i !== null && <span className="chain-step tabular">{i + 1}.</span>} {MARKET[m].name}
          {!configured.includes(m) && <span className="faint"> — no API key: skipped</span>}
        </span>
      </label>
      {i !== null && (
        <span className="row">
          <button
            className="btn btn-sm btn-ghost"
            aria-label={`Try ${MARKET[m].name} earlier`}
            disabled={i === 0}
            onClick={() => move(m, -1)}
          >
            ↑
          </button>
          <button
            className="btn btn-sm btn-ghost"
            aria-label={`Try ${MARKET[m].name} later`}
            disabled={i === chain.length - 1}
            onClick={() => move(m, 1)}
          >
            ↓
          </button>
        </span>
      )}
    </li>
  );
  return (
    <div className="field">
      <div className="label">Marketplaces, in the order tried</div>
      <ul className="chain-list" data-testid="chain-field">
        {chain.map((m, i) => row(m, i))}
        {rest.map((m) => row(m, null))}
      </ul>
      <span className="hint">
        A node rents from the first marketplace with a matching offer; the next is tried when one
        has no capacity. Offers cannot be picked by hand here (they belong to one).
      </span>
    </div>
  );
}

/** What `cheapest` compares: every marketplace with a key. */
function CheapestMarkets(): React.JSX.Element {
  const configured = configuredMarkets(useSettings().data);
  return (
    <div className="hint" data-testid="cheapest-markets">
      Each node rents the cheapest matching offer across{' '}
      {configured.length > 0
        ? andList(configured.map((m) => MARKET[m].name))
        : 'the marketplaces with a key (none yet: add one in Settings)'}
      . Offers cannot be picked by hand here (they belong to one marketplace).
    </div>
  );
}
