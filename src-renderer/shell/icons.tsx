// Small inline icons (DejaVu, the only font everywhere, lacks most symbol glyphs).
import './icons.css';

type IconProps = { size?: number; className?: string; title?: string };

function Svg(props: IconProps & { children: React.ReactNode }): React.JSX.Element {
  const size = props.size ?? 14;
  return (
    <svg
      className={`tn-icon ${props.className ?? ''}`}
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden={props.title ? undefined : true}
      role={props.title ? 'img' : undefined}
    >
      {props.title && <title>{props.title}</title>}
      {props.children}
    </svg>
  );
}

export const CheckIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M3 8.5l3.2 3L13 4.5" />
  </Svg>
);

export const CrossIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 4l8 8M12 4l-8 8" />
  </Svg>
);

export const ChevronIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6 3.5L10.5 8 6 12.5" />
  </Svg>
);

export const AlertIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 1.8l6.6 11.7H1.4z" />
    <path d="M8 6.2v3.4M8 11.6v.2" />
  </Svg>
);

export const PowerIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 1.8v5.6" />
    <path d="M4.6 4.1a5.2 5.2 0 1 0 6.8 0" />
  </Svg>
);

export const SearchIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="7" cy="7" r="4.3" />
    <path d="M10.2 10.2l3.6 3.6" />
  </Svg>
);

export const SortIcon = ({ dir, ...p }: IconProps & { dir: 'asc' | 'desc' | null }) => (
  <Svg {...p}>
    <path d="M5 6.5L8 3.5l3 3" opacity={dir === 'desc' ? 0.25 : 1} />
    <path d="M5 9.5l3 3 3-3" opacity={dir === 'asc' ? 0.25 : 1} />
  </Svg>
);

/** A turning ring, for work in flight. */
export function Spinner({ size = 12 }: { size?: number }): React.JSX.Element {
  return <span className="tn-spinner" style={{ width: size, height: size }} aria-hidden="true" />;
}

export const LedgerIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="2.5" y="2.5" width="11" height="11" rx="1.5" />
    <path d="M5 6h6M5 8.5h6M5 11h3.5" />
  </Svg>
);

export const ChipIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="4" y="4" width="8" height="8" rx="1" />
    <path d="M6 1.8v2.2M10 1.8v2.2M6 12v2.2M10 12v2.2M1.8 6h2.2M1.8 10h2.2M12 6h2.2M12 10h2.2" />
  </Svg>
);

export const PlusIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 3v10M3 8h10" />
  </Svg>
);

export const PlayIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M5 3.2v9.6L12.5 8z" />
  </Svg>
);

export const GearIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="8" cy="8" r="2.2" />
    <path d="M8 1.8v1.8M8 12.4v1.8M1.8 8h1.8M12.4 8h1.8M3.6 3.6l1.3 1.3M11.1 11.1l1.3 1.3M3.6 12.4l1.3-1.3M11.1 4.9l1.3-1.3" />
  </Svg>
);
