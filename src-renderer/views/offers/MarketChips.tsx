import { MARKET, MARKETPLACES, type Marketplace } from '../../lib/marketplaces';

/** Which marketplaces the table searches: one box each; one without a key cannot be ticked
 *  and says where to add it. Ticking applies at once (no Search needed). */
export function MarketChips(props: {
  configured: readonly Marketplace[];
  shown: readonly Marketplace[];
  onToggle: (m: Marketplace) => void;
  onSettings: () => void;
}): React.JSX.Element {
  return (
    <div
      className="of-market-row"
      role="group"
      aria-label="Marketplaces"
      data-testid="offer-markets"
    >
      <span className="of-label">Marketplaces</span>
      {MARKETPLACES.map((m) => {
        const isConfigured = props.configured.includes(m);
        return (
          <label
            key={m}
            className={`of-check ${isConfigured ? '' : 'of-is-off'}`}
            title={isConfigured ? undefined : `No ${MARKET[m].name} API key: add one in Settings`}
          >
            <input
              type="checkbox"
              checked={isConfigured && props.shown.includes(m)}
              disabled={!isConfigured}
              onChange={() => props.onToggle(m)}
              data-testid={`offer-market-${m}`}
            />
            {MARKET[m].name}
            {!isConfigured && (
              <button type="button" className="of-link" onClick={props.onSettings}>
                add a key
              </button>
            )}
          </label>
        );
      })}
    </div>
  );
}
