import type { Offer } from '../../../src-main/contract';
import { money, perHour } from '../../lib/format';
import { isMarketplace, MARKET, marketName } from '../../lib/marketplaces';
import { SortIcon } from '../../shell/icons';
import { nextSort, offerKey, valueOf, type Sort, type SortKey } from './offer-sort';

const COLUMNS: { key: SortKey | null; label: string; num?: boolean; title?: string }[] = [
  { key: null, label: '' },
  { key: 'provider', label: 'Provider', title: 'The marketplace that rents the machine' },
  { key: 'gpu', label: 'GPU' },
  { key: 'vram', label: 'VRAM', num: true, title: 'Per GPU' },
  {
    key: 'price',
    label: '$/h all-in',
    num: true,
    title: 'GPU plus storage for the disk asked for',
  },
  {
    key: 'bid',
    label: 'Interruptible',
    num: true,
    title:
      'The lowest bid plus storage, all-in: what an interruptible lease bills while its bid wins (outbid, it stops and keeps its disk)',
  },
  { key: 'reliability', label: 'Reliability', num: true },
  { key: 'down', label: 'Down', num: true, title: 'Download, Mb/s' },
  { key: 'up', label: 'Up', num: true, title: 'Upload, Mb/s' },
  { key: 'region', label: 'Region' },
  { key: 'cuda', label: 'CUDA', num: true, title: 'Highest CUDA version the driver supports' },
  { key: 'dlperf', label: 'DLPerf', num: true, title: 'Vast.ai’s deep-learning performance score' },
  {
    key: 'value',
    label: 'DLPerf/$',
    num: true,
    title: 'DLPerf per dollar-hour: work a dollar buys',
  },
];

/** Bandwidth; 0 is what a provider that publishes none reports (RunPod, Lambda Cloud). */
function mbps(n: number): string {
  if (n <= 0) return '—';
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)} Gb/s` : `${Math.round(n)} Mb/s`;
}

export function OfferTable(props: {
  offers: Offer[];
  sort: Sort;
  picked: ReadonlySet<string>;
  auto: ReadonlySet<string>;
  onSort: (sort: Sort) => void;
  /** Called with the offer's `offerKey`. */
  onToggle: (key: string) => void;
}): React.JSX.Element {
  const { sort } = props;
  return (
    <table className="table of-offer-table" data-testid="offer-table">
      <thead>
        <tr>
          {COLUMNS.map((c, i) => {
            if (!c.key) return <th key={i} className="of-pick-col" aria-label="Pick" />;
            const dir = sort.key === c.key ? sort.dir : null;
            return (
              <th
                key={c.key}
                className={`${c.num ? 'num' : ''} ${dir ? 'of-sorted' : ''}`}
                aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}
                title={c.title}
              >
                <button
                  className="of-sort-btn"
                  onClick={() => props.onSort(nextSort(sort, c.key!))}
                  data-testid={`offer-sort-${c.key}`}
                >
                  {c.label}
                  <SortIcon dir={dir} size={11} />
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {props.offers.map((o) => {
          const key = offerKey(o);
          const isPicked = props.picked.has(key);
          const isAuto = props.auto.has(key);
          const value = valueOf(o);
          return (
            <tr
              key={key}
              data-testid="offer-row"
              data-offer-id={o.offerId}
              data-provider={o.provider}
              data-picked={isPicked || undefined}
              className={`of-offer-row ${isPicked ? 'of-is-picked' : ''} ${isAuto ? 'of-is-auto' : ''}`}
              onClick={(e) => {
                if ((e.target as HTMLElement).tagName !== 'INPUT') props.onToggle(key);
              }}
            >
              <td className="of-pick-col">
                <input
                  type="checkbox"
                  checked={isPicked}
                  onChange={() => props.onToggle(key)}
                  aria-label={`Pick ${marketName(o.provider)} offer ${o.offerId} (${o.gpuName})`}
                  data-testid="offer-pick"
                />
              </td>
              <td className="of-provider-cell" data-testid="offer-provider">
                <span className={`of-provider-tag of-provider-${o.provider}`}>
                  {marketName(o.provider)}
                </span>
              </td>
              <td className="of-gpu-cell">
                <span className="of-gpu-name">
                  {o.gpuCount > 1 && <span className="of-gpu-count">{o.gpuCount}×</span>}
                  {o.gpuName}
                </span>
                <span className="of-gpu-sub">
                  {o.verified ? (
                    <span className="of-verified">verified</span>
                  ) : (
                    <span className="of-unverified">unverified</span>
                  )}
                  <span className="faint mono of-offer-id" title={o.offerId}>
                    #{o.offerId}
                  </span>
                  {isAuto && (
                    <span
                      className="of-auto-tag"
                      title="Filled in with the cheapest offers (whatever the sort) to reach the count"
                    >
                      in pool
                    </span>
                  )}
                </span>
              </td>
              <td className="num">
                {o.vramGb > 0 ? `${o.vramGb.toFixed(o.vramGb >= 100 ? 0 : 1)} GB` : '—'}
              </td>
              <td
                className="num of-price-cell"
                title={
                  o.storagePricePerHour > 0
                    ? `GPU ${perHour(o.gpuPricePerHour)} + disk ${perHour(o.storagePricePerHour)}`
                    : `${marketName(o.provider)} prices the machine as one: no separate disk charge`
                }
              >
                {perHour(o.pricePerHour)}
                <span className="of-price-sub">{money(o.pricePerHour * 24)}/day</span>
              </td>
              <td
                className="num of-price-cell of-bid-cell"
                data-testid="offer-bid-price"
                title={
                  o.interruptiblePricePerHour === undefined
                    ? isMarketplace(o.provider) && !MARKET[o.provider].hasInterruptible
                      ? `${marketName(o.provider)} sells no interruptible machines`
                      : 'This offer takes no bid'
                    : `Lowest bid ${perHour(o.interruptiblePricePerHour - o.storagePricePerHour)} + disk ${perHour(o.storagePricePerHour)}`
                }
              >
                {o.interruptiblePricePerHour === undefined ? (
                  <span className="faint">—</span>
                ) : (
                  <>
                    {perHour(o.interruptiblePricePerHour)}
                    <span className="of-price-sub">
                      {Math.round((1 - o.interruptiblePricePerHour / o.pricePerHour) * 100)}% less
                    </span>
                  </>
                )}
              </td>
              <td
                className={`num ${o.reliability !== null && o.reliability < 0.95 ? 'of-amber' : ''}`}
                data-testid="offer-reliability-cell"
                title={
                  o.reliability === null
                    ? `${marketName(o.provider)} publishes no host reliability score`
                    : undefined
                }
              >
                {o.reliability === null ? (
                  <span className="faint">—</span>
                ) : (
                  `${(o.reliability * 100).toFixed(1)}%`
                )}
              </td>
              <td className="num">{mbps(o.downMbps)}</td>
              <td className="num">{mbps(o.upMbps)}</td>
              <td className="of-region-cell" title={o.location ?? undefined}>
                {o.location ?? <span className="faint">unknown</span>}
              </td>
              <td className="num">{o.cudaMaxGood !== null ? o.cudaMaxGood.toFixed(1) : '—'}</td>
              <td className="num">{o.dlperf !== null ? o.dlperf.toFixed(1) : '—'}</td>
              <td className="num">{value !== null ? value.toFixed(0) : '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
