// Which page numbers a pagination bar shows (pure; tests/directory/page-window.test.ts).

/**
 * The page numbers to show: always the first and last, the current one and its neighbours, and
 * null where pages are skipped, e.g. [1, null, 4, 5, 6, null, 20]. A gap of exactly one page
 * shows that page instead of an ellipsis, which would take the same room.
 */
export function pageWindow(current: number, last: number, neighbours = 1): Array<number | null> {
  const pages: Array<number | null> = [];
  for (let page = 1; page <= last; page++) {
    const near = Math.abs(page - current) <= neighbours;
    const fillsSingleGap = Math.abs(page - current) === neighbours + 1 && (page === 2 || page === last - 1);
    if (page === 1 || page === last || near || fillsSingleGap) pages.push(page);
    else if (pages[pages.length - 1] !== null) pages.push(null);
  }
  return pages;
}
