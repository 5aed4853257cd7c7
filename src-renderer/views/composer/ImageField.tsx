import { useQuery } from '@tanstack/react-query';
import {
  CACHED_IMAGES_START_FASTEST,
  WELL_KNOWN_IMAGES,
  type ImageInfo,
  type WellKnownImage,
} from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { MARKET, type Marketplace } from '../../lib/marketplaces';
import { useUi } from '../../store/ui';
import { marketsOf } from './market-pool';
import { useDebounced } from './use-debounced';

const INFO_FRESH_MS = 10 * 60_000; // a tag's size does not change while the composer is open

/** The pool's image: free text, or one of the well-known images (those the pool's
 *  marketplaces likely hold already first, marked), with what its registry says of its
 *  size before anything is rented — or that the size is unknown, never a guess. */
export function ImageField(): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const patch = useUi((s) => s.patchDraft);
  const markets = marketsOf(draft);
  const cachedHere = (w: WellKnownImage) =>
    w.cachedOn.filter((m) => markets.includes(m as Marketplace));
  const picks = [...WELL_KNOWN_IMAGES].sort((a, b) => cachedHere(b).length - cachedHere(a).length);
  return (
    <div className="field" data-testid="image-field">
      <label htmlFor="image">Image</label>
      <input
        id="image"
        className="input mono"
        placeholder="the provider's default"
        list="well-known-images"
        value={draft.image}
        onChange={(e) => patch({ image: e.target.value })}
      />
      <datalist id="well-known-images">
        {WELL_KNOWN_IMAGES.map((w) => (
          <option key={w.image} value={w.image}>
            {w.title}
          </option>
        ))}
      </datalist>
      <ImageFacts image={draft.image.trim()} />
      <div className="image-picks" data-testid="image-picks">
        {picks.map((w) => {
          const here = cachedHere(w);
          return (
            <button
              key={w.image}
              type="button"
              className={`image-pick${draft.image.trim() === w.image ? ' is-on' : ''}`}
              title={`${w.image}\n${w.note}\n(tag seen: ${w.seen})`}
              aria-pressed={draft.image.trim() === w.image}
              onClick={() => patch({ image: w.image })}
            >
              {w.title}
              {here.length > 0 && (
                <span className="cached" data-testid="cached-badge">
                  likely cached on {here.map((m) => MARKET[m as Marketplace].name).join(', ')}
                </span>
              )}
            </button>
          );
        })}
      </div>
      <span className="hint">{CACHED_IMAGES_START_FASTEST}</span>
    </div>
  );
}

/** What the image's registry says: size, platforms, user; or why it cannot run a node. */
function ImageFacts({ image }: { image: string }): React.JSX.Element {
  const shown = useDebounced(image, 400);
  const q = useQuery({
    queryKey: ['image-info', shown],
    enabled: shown !== '',
    staleTime: INFO_FRESH_MS,
    retry: false,
    queryFn: (): Promise<ImageInfo> => call('images.inspect', { image: shown }),
  });
  if (shown === '') return <></>;
  if (q.isPending) return <div className="hint">Asking the registry about {shown}…</div>;
  if (q.isError) return <div className="hint">Size unknown: {describeError(q.error)}</div>;
  const i = q.data;
  if (i.problem)
    return (
      <div className="field-error" data-testid="image-problem">
        {i.problem}
      </div>
    );
  const facts = [
    i.sizeText,
    ...(i.platforms.length ? [i.platforms.join(', ')] : []),
    ...(i.user ? [`runs as ${i.user}`] : []),
  ];
  return (
    <div className="hint" data-testid="image-size">
      {facts.join(' · ')}
    </div>
  );
}
