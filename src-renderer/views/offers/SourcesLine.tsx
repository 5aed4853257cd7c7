import { Fragment } from 'react';
import type { SourceItem } from './offer-sources';

/** What each marketplace answered: its count, or its error (the others' rows still show). */
export function SourcesLine({ items }: { items: readonly SourceItem[] }): React.JSX.Element {
  return (
    <div className="of-sources" data-testid="offer-sources">
      {items.map((it, i) => (
        <Fragment key={it.provider}>
          {i > 0 && <span className="of-source-sep">·</span>}
          <span
            className={`of-source of-source-${it.state}`}
            data-testid={`offer-source-${it.provider}`}
            data-state={it.state}
            role={it.state === 'error' ? 'alert' : undefined}
          >
            {it.state === 'ok' ? <OkText text={it.text} /> : it.text}
          </span>
        </Fragment>
      ))}
    </div>
  );
}

/** "Vast.ai 12" with the count in bold. */
function OkText({ text }: { text: string }): React.JSX.Element {
  const at = text.lastIndexOf(' ');
  return (
    <>
      {text.slice(0, at)} <b>{text.slice(at + 1)}</b>
    </>
  );
}
