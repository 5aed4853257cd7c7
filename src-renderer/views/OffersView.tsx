// Placeholder until the view lands (issue 5).
export function OffersView(): React.JSX.Element {
  return <div className="page" />;
}
