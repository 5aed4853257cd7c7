// Placeholder until the view lands (issue 5).
export function TeardownAll(): React.JSX.Element | null {
  return null;
}
