// Inline icons for the Run and Composer views: DejaVu, the one font everywhere, lacks most
// symbol glyphs, so these are drawn, 16×16, in the text colour.
import type { ReactNode } from 'react';

function Icon({ children, size = 14 }: { children: ReactNode; size?: number }): React.JSX.Element {
  return (
    <svg
      className="v-icon"
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      {children}
    </svg>
  );
}

export const SearchIcon = () => (
  <Icon>
    <circle cx="7" cy="7" r="4.2" />
    <path d="M10.2 10.2L13.5 13.5" />
  </Icon>
);
export const UpIcon = () => (
  <Icon>
    <path d="M4 10l4-4 4 4" />
  </Icon>
);
export const DownIcon = () => (
  <Icon>
    <path d="M4 6l4 4 4-4" />
  </Icon>
);
export const FollowIcon = () => (
  <Icon>
    <path d="M8 2.5v9M4.5 8L8 11.5 11.5 8M3.5 13.5h9" />
  </Icon>
);
export const CopyIcon = () => (
  <Icon>
    <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
    <path d="M10.5 3.5v-.5a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h.5" />
  </Icon>
);
export const FolderIcon = ({ size }: { size?: number }) => (
  <Icon size={size}>
    <path d="M2 4.5a1 1 0 0 1 1-1h3.2l1.5 1.6H13a1 1 0 0 1 1 1V12a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1z" />
  </Icon>
);
export const FileIcon = () => (
  <Icon>
    <path d="M4 1.8h5l3 3v9.4H4z" />
    <path d="M9 1.8v3h3" />
  </Icon>
);
export const TerminalIcon = () => (
  <Icon>
    <rect x="1.8" y="2.8" width="12.4" height="10.4" rx="1.5" />
    <path d="M4.5 6.5L6.5 8.3 4.5 10M8.5 10.5h3" />
  </Icon>
);
export const LogIcon = () => (
  <Icon>
    <path d="M3 4h10M3 8h10M3 12h6" />
  </Icon>
);
export const CloseIcon = () => (
  <Icon>
    <path d="M4 4l8 8M12 4l-8 8" />
  </Icon>
);
export const PlusIcon = () => (
  <Icon>
    <path d="M8 3v10M3 8h10" />
  </Icon>
);
export const WarnIcon = ({ size }: { size?: number }) => (
  <Icon size={size}>
    <path d="M8 1.8l6.6 11.7H1.4z" />
    <path d="M8 6.2v3.4M8 11.6v.2" />
  </Icon>
);
export const PlayIcon = () => (
  <Icon>
    <path d="M5 3.2v9.6L12.5 8z" fill="currentColor" />
  </Icon>
);
export const StopIcon = () => (
  <Icon>
    <rect x="4" y="4" width="8" height="8" rx="1" />
  </Icon>
);
export const LockIcon = () => (
  <Icon>
    <rect x="3.5" y="7" width="9" height="6.5" rx="1.2" />
    <path d="M5.5 7V5a2.5 2.5 0 0 1 5 0v2" />
  </Icon>
);
export const EyeIcon = () => (
  <Icon>
    <path d="M1.5 8s2.4-4.5 6.5-4.5S14.5 8 14.5 8 12.1 12.5 8 12.5 1.5 8 1.5 8z" />
    <circle cx="8" cy="8" r="2" />
  </Icon>
);
export const DownloadIcon = () => (
  <Icon>
    <path d="M8 2.5v8M4.5 7L8 10.5 11.5 7M3 13.5h10" />
  </Icon>
);
